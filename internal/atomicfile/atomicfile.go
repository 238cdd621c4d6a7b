// Package atomicfile replaces a file whole: the data is written beside
// it under a name of its own and renamed over it, so that a crash, a kill
// or a full disk leaves the old file or the new one, never a part, and
// two writers at once do not share a temporary file.
//
//	err := atomicfile.Write("state.json", data, 0o644)
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, with permissions perm. The temporary
// file, .NAME-*, is removed on every error; only a kill leaves it.
func Write(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
