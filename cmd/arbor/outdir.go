package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/arbor-fuzz/arbor/internal/filelock"
)

// claimOutput takes the lock of an output folder for one command at a
// time (with gofuzz, the lock beside the fuzz target's seed corpus, which
// fuzz campaigns writing the same seed corpus take too). release lets go.
func claimOutput(ctx context.Context, o outputFormat, out string, wait bool) (release func(), err error) {
	lock := o.layout("").LockFile(out)
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	l, err := filelock.Acquire(ctx, lock, filelock.Options{
		What: "output folder " + out, Wait: wait,
		Hint: "give each run a folder of its own, or wait for it with --wait",
	})
	if err != nil {
		return nil, err
	}
	return func() { l.Release() }, nil
}
