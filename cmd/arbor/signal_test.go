//go:build unix

package main

import (
	"bytes"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
)

// TestSIGTERM (issue 14, item 4): SIGTERM stops a recording as Ctrl-C
// does, keeping what it recorded, instead of killing arbor mid-write
// (before, it killed this very test).
func TestSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("records coverage")
	}
	dir := t.TempDir()
	corpus := jsonCorpus(t, dir, 2000, 3)
	out := filepath.Join(dir, "cov.jsonl")
	type result struct {
		code int
		err  string
	}
	done := make(chan result, 1)
	go func() {
		_, errOut, code := runArbor(t, "", "record", "--subject", "json", "--inputs", corpus, "--out", out, "--isolate")
		done <- result{code, errOut}
	}()
	// Once recording has begun, terminate.
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(out); err == nil && bytes.Count(b, []byte("\n")) > 5 {
			break
		}
		if time.Since(start) > 2*time.Minute {
			t.Fatal("recording did not begin")
		}
	}
	// A receiver of the test's own keeps SIGTERM from killing the test
	// binary should it arrive when arbor is not listening (the recording
	// over, say): then the test fails instead of the whole package.
	held := make(chan os.Signal, 1)
	signal.Notify(held, syscall.SIGTERM)
	defer signal.Stop(held)
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case r := <-done:
		if r.code == 0 {
			t.Errorf("a terminated recording exited 0:\n%s", r.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("record did not stop after SIGTERM")
	}
	f, err := coverage.ReadFile(out)
	if err != nil {
		t.Fatalf("the coverage file after SIGTERM: %v", err)
	}
	if n := len(f.Records); n == 0 || n >= 2000 {
		t.Errorf("%d records kept of 2000 inputs", n)
	}
}
