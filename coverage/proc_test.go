//go:build unix

package coverage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChildHoldingStderr (issue 14, item 3): a subject that starts a
// child process holding the harness's stderr used to hang the session
// for ever when the harness was killed (Wait waited for stderr to
// close). Killing now takes the harness's whole process group, and
// waiting for its output is bounded; the child does not outlive it.
func TestChildHoldingStderr(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	mod := writeModule(t, map[string]string{
		"go.mod": "module example.com/childtest\n\ngo 1.24\n",
		"lib/lib.go": `package lib

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Run starts a sleeping child that inherits stderr on "spawn:PIDFILE",
// and spins on "spin".
func Run(b []byte) error {
	s := string(b)
	if file, ok := strings.CutPrefix(s, "spawn:"); ok {
		cmd := exec.Command("sleep", "60")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		return os.WriteFile(file, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	}
	if s == "spin" {
		for {
		}
	}
	return nil
}
`,
	})
	_, s := buildAndStart(t, Target{ImportPath: "example.com/childtest/lib", Func: "Run", Dir: mod}, t.TempDir())
	defer s.Close()
	pidFile := filepath.Join(t.TempDir(), "child")
	if r, err := s.Record([]byte("spawn:"+pidFile), 5*time.Second); err != nil || r.Outcome != OK {
		t.Fatalf("spawn: %v, %+v", err, r)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	done := make(chan *Result, 1)
	go func() {
		r, _ := s.Record([]byte("spin"), 300*time.Millisecond)
		done <- r
	}()
	select {
	case r := <-done:
		if r == nil || r.Outcome != Timeout {
			t.Errorf("spin: %+v, want a timeout", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the session hangs killing a harness whose child holds stderr")
	}
	// The child went with the harness's process group.
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(child, 0)
		if errors.Is(err, syscall.ESRCH) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the subject's child %d outlives the killed harness (%v)", child, err)
			syscall.Kill(child, syscall.SIGKILL)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The session goes on with a new harness.
	if r, err := s.Record([]byte("x"), 5*time.Second); err != nil || r.Outcome != OK {
		t.Errorf("after the kill: %v, %+v", err, r)
	}
}

// TestInterruptInFlight (issue 14, item 4): cancelling a recording stops
// the input in flight at once, instead of waiting out its --timeout,
// and does not record it (it would be labelled a timeout it was not).
func TestInterruptInFlight(t *testing.T) {
	bin := testBinary(t, "Parse")
	_, files := writeInputs(t, map[string]string{"1": "abc", "2": "h", "3": "abd"}) // "h" hangs
	for _, isolate := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "cov.jsonl")
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(1500*time.Millisecond, cancel)
		start := time.Now()
		_, err := RecordInputs(ctx, bin, files, out, Options{Subject: "covtest", Timeout: time.Minute, Isolate: isolate})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("isolate %v: %v, want the cancellation", isolate, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("isolate %v: stopped %v after the start, the input's timeout is a minute", isolate, d.Round(time.Second))
		}
		f, err := ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Records {
			if r.Outcome == Timeout {
				t.Errorf("isolate %v: the interrupted input was recorded as %s", isolate, r.Outcome)
			}
		}
		cancel()
	}
}
