//go:build !unix

package hostile

func unixWord(string) (bool, error) { return false, nil }
