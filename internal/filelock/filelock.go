package filelock

import (
	"context"
	"fmt"
	"os"
)

// Options say what a lock protects, for its errors.
type Options struct {
	// What names the thing locked: "coverage file c.jsonl".
	What string
	// Hint is what a user whose writer was refused can do instead; it
	// follows the error after a semicolon.
	Hint string
	// Wait retries until the holder lets go or the context is done,
	// instead of failing at once.
	Wait bool
}

// Lock is a held lock. Release lets go of it; so does the end of the
// process, however it ends.
type Lock struct {
	f     *os.File
	owned bool // f was opened by Acquire and is closed by Release
}

// Acquire opens (creating it with mode 0600 if needed) and locks the file
// at path. Its content is not touched: the lock can be the data file
// itself or a file of its own beside the data.
func Acquire(ctx context.Context, path string, o Options) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%s: lock: %w", o.What, err)
	}
	if err := LockFile(ctx, f, o); err != nil {
		f.Close()
		return nil, err
	}
	return &Lock{f: f, owned: true}, nil
}

// Release lets go of the lock, closing the file Acquire opened.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	if l.owned {
		return f.Close()
	}
	return unlock(f)
}
