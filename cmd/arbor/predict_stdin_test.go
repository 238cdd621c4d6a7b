//go:build unix

package main

import (
	"bytes"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
)

// blockedReader is standard input that never ends: its first Read says
// so on reading, and every Read waits until release is closed.
type blockedReader struct {
	reading, release chan struct{}
	once             sync.Once
}

func (r *blockedReader) Read([]byte) (int, error) {
	r.once.Do(func() { close(r.reading) })
	<-r.release
	return 0, os.ErrClosed
}

// TestPredictStdinSignal (issue 29, item 9): predict of standard input
// that never ends stops on SIGINT and SIGTERM and exits 1, as parse and
// kpaths do. The test asserts that predict returns, not how fast: it
// logs the time. Before, predict read standard input without looking at
// its context, and the same test ran until its 10 s bound.
func TestPredictStdinSignal(t *testing.T) {
	model := craftedModel(t, coverage.Target{})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			in := &blockedReader{reading: make(chan struct{}), release: make(chan struct{})}
			defer close(in.release)
			// A receiver of the test's own keeps the signal from killing
			// the test binary should it come when arbor is not listening.
			held := make(chan os.Signal, 1)
			signal.Notify(held, sig)
			defer signal.Stop(held)
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				var out, errOut bytes.Buffer
				code := run([]string{"predict", "--model", model, "-"}, in, &out, &errOut)
				done <- result{code, errOut.String()}
			}()
			select {
			case <-in.reading:
			case <-time.After(time.Minute):
				t.Fatal("predict did not read standard input")
			}
			sent := time.Now()
			syscall.Kill(os.Getpid(), sig)
			select {
			case r := <-done:
				t.Logf("returned %v after %v", time.Since(sent).Round(time.Millisecond), sig)
				if r.code != exitFailure || !strings.Contains(r.stderr, "context canceled") {
					t.Errorf("exit %d, stderr %q; want %d and the cancellation", r.code, r.stderr, exitFailure)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("predict did not return within 10 s of %v", sig)
			}
		})
	}
	// Standard input that ends is predicted as before.
	out, errOut, code := runArbor(t, "a=1", "predict", "--model", model, "-")
	if code != 0 || !strings.Contains(out, "-") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
