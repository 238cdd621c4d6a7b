//go:build unix

package coverage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWriterLock: two writers never append to one coverage file at once
// (issue 14, item 1: two recordings on one --out lost records and tore
// lines). A second writer fails at once, naming the holder, or, with
// wait, waits until the first closes; appending many records from both
// then loses nothing and tears no line.
func TestWriterLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cov.jsonl")
	h := NewHeader("s", []string{"f"})
	ctx := context.Background()
	first, err := OpenWriter(ctx, path, h, false)
	if err != nil {
		t.Fatal(err)
	}
	_, held := OpenWriter(ctx, path, h, false)
	if held == nil {
		t.Fatal("a second writer opened a file another writer holds")
	}
	for _, want := range []string{"is being written by", "record merge", "--wait"} {
		if !strings.Contains(held.Error(), want) {
			t.Errorf("error %q lacks %q", held, want)
		}
	}
	if _, err := os.Stat("/proc/locks"); err == nil && !strings.Contains(held.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("error %q does not name this process", held)
	}
	// Waiting gives up when the context does.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := OpenWriter(short, path, h, true); err == nil || !strings.Contains(err.Error(), "waiting for") {
		t.Errorf("waiting past the context: %v", err)
	}
	// Two writers at once, the second waiting: every record of both is
	// in the file, each on a line of its own.
	const n = 2000
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	write := func(w *Writer, prefix string) {
		defer wg.Done()
		defer w.Close()
		for i := range n {
			if err := w.Write(Record{Input: prefix, SHA256: fmt.Sprintf("%s%05d", prefix, i), Covered: []int{0}, Outcome: OK}); err != nil {
				errs <- err
				return
			}
		}
	}
	wg.Add(2)
	go write(first, "a")
	go func() {
		w, err := OpenWriter(ctx, path, h, true)
		if err != nil {
			errs <- err
			wg.Done()
			return
		}
		write(w, "b")
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range f.Records {
		if seen[r.SHA256] {
			t.Fatalf("record %s twice", r.SHA256)
		}
		seen[r.SHA256] = true
	}
	if len(seen) != 2*n {
		t.Errorf("%d records in the file, want %d", len(seen), 2*n)
	}
}

// TestWriterAfterReplace: a recording that waits for the lock while a
// merge replaces the file writes into the new file, not into the one
// replaced (whose records nobody would see again).
func TestWriterAfterReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cov.jsonl")
	h := NewHeader("s", []string{"f"})
	ctx := context.Background()
	w, err := OpenWriter(ctx, path, h, false)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	held, err := lockCoverageFile(ctx, path, os.O_RDONLY, false, "")
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan *Writer, 1)
	go func() {
		w, err := OpenWriter(ctx, path, h, true)
		if err != nil {
			t.Error(err)
		}
		opened <- w
	}()
	time.Sleep(100 * time.Millisecond) // the writer waits on the old file
	replacement := filepath.Join(dir, "new")
	if _, err := Merge(ctx, replacement, []string{path}, false); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(replacement, path); err != nil {
		t.Fatal(err)
	}
	held.Close()
	w = <-opened
	if w == nil {
		return
	}
	if err := w.Write(Record{Input: "x", SHA256: "x1", Covered: []int{0}, Outcome: OK}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f, err := ReadFile(path)
	if err != nil || len(f.Records) != 1 {
		t.Fatalf("the record went elsewhere: %v, %d records in the file at the path", err, len(f.Records))
	}
}
