//go:build !unix

package filelock

import (
	"context"
	"os"
)

// LockFile does nothing where flock is not available.
func LockFile(ctx context.Context, f *os.File, o Options) error { return nil }

func unlock(f *os.File) error { return nil }

// Holder cannot tell here.
func Holder(f *os.File) string { return "another process" }
