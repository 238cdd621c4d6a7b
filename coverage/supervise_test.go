//go:build linux

package coverage

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/proctest"
)

// markProcesses puts a fresh mark in the environment the harnesses
// inherit, and returns it.
func markProcesses(t *testing.T) string {
	t.Helper()
	mark := proctest.NewMark()
	name, value, _ := strings.Cut(mark, "=")
	t.Setenv(name, value)
	return mark
}

// TestSubjectSignalsParent (issue 29, items 3 and 10): a subject that
// sends SIGTERM or SIGINT to its parent reaches arbor's supervisor, not
// arbor: the input is labelled a crash that names the signal and the
// recording goes on, the inputs after it keeping their labels; one that
// stops its parent does not stop the recording; a child the subject
// starts in a session of its own (setsid) is gone when the recording
// ends; an input that signals and returns at once gets no other input
// blamed for it. Before, the parent was arbor (here, the test binary): SIGTERM
// killed it, SIGSTOP froze it, and the setsid child outlived it.
func TestSubjectSignalsParent(t *testing.T) {
	bin, _ := hostileBinary(t)
	mark := markProcesses(t)
	inputs := []struct {
		input   string
		outcome Outcome
		message string // in the error, or a function covered
	}{
		{"ok 1", OK, "calm"},
		{"sigterm", Panic, "sent SIGTERM to its parent"},
		{"ok 2", OK, "calm"},
		{"sigint", Panic, "sent SIGINT to its parent"},
		{"ok 3", OK, "calm"},
		{"sigstop", OK, "calm"},
		{"ok 4", OK, "calm"},
		{"setsid 1", OK, "calm"},
		{"exit", Panic, "exit status 7"},
		{"ok 5", OK, "calm"},
		{"setsid 2", OK, "calm"},
		{"ok 6", OK, "calm"},
		// Signals and returns at once: the supervisor may learn of it
		// after the reply, while the next input runs. That one is run
		// again alone and keeps its own label; the signaller's may be
		// either.
		{"sigtermfast", "", ""},
		{"sleep 1", OK, "calm"},
		{"ok 7", OK, "calm"},
	}
	var words []string
	for _, in := range inputs {
		words = append(words, in.input)
	}
	for _, isolate := range []bool{false, true} {
		start := time.Now()
		recs := recordHostile(t, bin, words, Options{Subject: "hostile", Isolate: isolate})
		for i, in := range inputs {
			r := recs[i]
			if in.outcome == "" {
				continue
			}
			if r.Outcome != in.outcome || !strings.Contains(r.Error, in.message) {
				t.Errorf("isolate %v, %q: %s %q, want %s with %q", isolate, in.input, r.Outcome, r.Error, in.outcome, in.message)
			}
		}
		if left := proctest.WaitGone(mark, 5*time.Second); len(left) > 0 {
			t.Errorf("isolate %v: processes outlive the recording: %v", isolate, left)
			for _, p := range left {
				syscall.Kill(p.PID, syscall.SIGKILL)
			}
		}
		t.Logf("isolate %v: %v", isolate, time.Since(start).Round(time.Millisecond))
	}
}

// helperVar makes TestHelperSession a session that runs one input and
// waits to be killed (TestSetsidChildOutlivesNoKilledArbor).
const helperVar = "ARBOR_TEST_SESSION_CACHE"

// TestSetsidChildOutlivesNoKilledArbor (issue 29, item 10): when arbor
// is killed with SIGKILL, which it cannot catch, the subject's harness
// and the child it started in a session of its own go too. Before, the
// harness went (Pdeathsig) but the setsid child ran on.
func TestSetsidChildOutlivesNoKilledArbor(t *testing.T) {
	_, mod := hostileBinary(t)
	cache := t.TempDir()
	if _, err := Build(context.Background(), Target{ImportPath: "example.com/hostile", Func: "Run", Dir: mod}, cache); err != nil {
		t.Fatal(err)
	}
	mark := markProcesses(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSession$", "-test.v")
	cmd.Env = append(os.Environ(), helperVar+"="+cache, "ARBOR_TEST_SESSION_MOD="+mod)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		found := false
		for sc.Scan() {
			if sc.Text() == "session ready" {
				found = true
				ready <- true
			}
		}
		if !found {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the helper ended before its input ran")
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the helper did not run its input")
	}
	if len(proctest.Marked(mark)) < 3 { // supervisor, harness, setsid child
		t.Errorf("before the kill: %v, want a supervisor, a harness and a child", proctest.Marked(mark))
	}
	cmd.Process.Kill()
	if left := proctest.WaitGone(mark, 5*time.Second); len(left) > 0 {
		t.Errorf("processes outlive a killed arbor: %v", left)
		for _, p := range left {
			syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
}

// TestHelperSession is TestSetsidChildOutlivesNoKilledArbor's arbor: it
// runs the input "setsid" in a session and waits.
func TestHelperSession(t *testing.T) {
	cache := os.Getenv(helperVar)
	if cache == "" {
		t.Skip("a helper of TestSetsidChildOutlivesNoKilledArbor")
	}
	bin, err := Build(context.Background(), Target{ImportPath: "example.com/hostile", Func: "Run", Dir: os.Getenv("ARBOR_TEST_SESSION_MOD")}, cache)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(bin, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Record([]byte("setsid"), 10*time.Second); err != nil || r.Outcome != OK {
		t.Fatalf("setsid: %v %+v", err, r)
	}
	os.Stdout.WriteString("session ready\n")
	time.Sleep(time.Minute)
}
