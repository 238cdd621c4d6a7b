//go:build unix

package filelock_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/filelock"
)

// TestAcquire: a second writer is refused at once, with the holder and
// the hint; with Wait it gets the lock once the first lets go, and gives
// up when its context does.
func TestAcquire(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	o := filelock.Options{What: "folder d", Hint: "use another"}
	ctx := context.Background()
	first, err := filelock.Acquire(ctx, path, o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = filelock.Acquire(ctx, path, o)
	if err == nil {
		t.Fatal("a second writer took a held lock")
	}
	for _, want := range []string{"folder d is being written by", "; use another"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, serr := os.Stat("/proc/locks"); serr == nil && !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("error %q does not name this process", err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	w := o
	w.Wait = true
	if _, err := filelock.Acquire(short, path, w); err == nil || !strings.Contains(err.Error(), "waiting for") {
		t.Errorf("waiting past the context: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		l, err := filelock.Acquire(ctx, path, w)
		if err == nil {
			err = l.Release()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("waiting writer: %v", err)
	}
}
