package filelock_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/arbor-fuzz/arbor/internal/filelock"
)

func Example() {
	dir, _ := os.MkdirTemp("", "campaign")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	o := filelock.Options{What: "campaign folder", Hint: "give each campaign a folder of its own"}
	l, err := filelock.Acquire(ctx, filepath.Join(dir, ".lock"), o)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = filelock.Acquire(ctx, filepath.Join(dir, ".lock"), o)
	fmt.Println(err != nil)
	l.Release()
	// Output: true
}
