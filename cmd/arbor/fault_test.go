//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/proctest"
)

// TestMain lets the fault suite run arbor as a process of its own (this
// test binary, told so by the environment), which it can kill.
func TestMain(m *testing.M) {
	if os.Getenv("ARBOR_TEST_AS_ARBOR") == "1" {
		if limit := os.Getenv("ARBOR_TEST_FSIZE"); limit != "" {
			// A disk that fills up: writes past the limit fail (Go
			// ignores SIGXFSZ, so they return EFBIG).
			n, _ := strconv.ParseUint(limit, 10, 64)
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
		code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		if path := os.Getenv("ARBOR_TEST_PEAK"); path != "" {
			// The process's own peak resident size (Linux), which the
			// parent's rusage cannot give: Linux carries the parent's
			// peak into a child that starts sharing its memory, as Go's
			// exec does (TestChainGrammarMemory).
			if status, err := os.ReadFile("/proc/self/status"); err == nil {
				os.WriteFile(path, status, 0o644)
			}
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// faultBed is a copy of the hostile subject's module, a harness cache and
// a mark that every process arbor starts inherits.
type faultBed struct {
	t           *testing.T
	mod, cache  string
	mark        string
	modListing  []string
	inputsCount int
}

func newFaultBed(t *testing.T) *faultBed {
	t.Helper()
	if testing.Short() {
		t.Skip("builds harnesses and kills processes")
	}
	mod := filepath.Join(t.TempDir(), "hostile")
	if err := os.CopyFS(mod, os.DirFS("../../coverage/testdata/hostile")); err != nil {
		t.Fatal(err)
	}
	listing, err := proctest.Tree(mod)
	if err != nil {
		t.Fatal(err)
	}
	return &faultBed{t: t, mod: mod, cache: t.TempDir(), mark: proctest.NewMark(), modListing: listing}
}

// inputs writes a folder of inputs, one per text, named in order.
func (b *faultBed) inputs(texts ...string) string {
	b.t.Helper()
	dir := b.t.TempDir()
	for i, text := range texts {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d", i)), []byte(text), 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	return dir
}

// arbor is an arbor process recording inputs into out, not yet started.
type arborProc struct {
	cmd         *exec.Cmd
	stdout, err bytes.Buffer
}

func (b *faultBed) record(inputs, out string, flags ...string) *arborProc {
	args := append([]string{"record", "--go", "example.com/hostile.Run", "--dir", b.mod, "--cache", b.cache,
		"--inputs", inputs, "--out", out, "--memory", "256MiB"}, flags...)
	p := &arborProc{cmd: exec.Command(os.Args[0], args...)}
	p.cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1", b.mark)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.err
	return p
}

// exitCode runs p to its end.
func (p *arborProc) exitCode(t *testing.T) int {
	t.Helper()
	err := p.cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return p.cmd.ProcessState.ExitCode()
}

// clean asserts that no process arbor started outlives it and that the
// subject's module is as it was.
func (b *faultBed) clean(within time.Duration) {
	b.t.Helper()
	if left := proctest.WaitGone(b.mark, within); len(left) > 0 {
		b.t.Errorf("processes outlive arbor: %v", left)
	}
	if now, _ := proctest.Tree(b.mod); !slices.Equal(now, b.modListing) {
		b.t.Errorf("the subject's module changed:\nbefore %q\nafter  %q", b.modListing, now)
	}
}

// records reads the coverage file and asserts that it holds each input
// at most once, and exactly n inputs.
func records(t *testing.T, out string, n int) map[string]coverage.Record {
	t.Helper()
	f, err := coverage.ReadFile(out)
	if err != nil {
		t.Fatalf("the coverage file: %v", err)
	}
	byName := map[string]coverage.Record{}
	for _, r := range f.Records {
		if _, dup := byName[filepath.Base(r.Input)]; dup {
			t.Errorf("%s recorded twice", r.Input)
		}
		byName[filepath.Base(r.Input)] = r
	}
	if n >= 0 && len(byName) != n {
		t.Errorf("%d inputs recorded, want %d", len(byName), n)
	}
	return byName
}

// waitFor polls cond until it holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > d {
			t.Fatalf("waited %v for %s", d, what)
		}
	}
}

func lines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

func building(mark string) func() bool {
	return func() bool {
		return slices.ContainsFunc(proctest.Marked(mark), func(p proctest.Process) bool {
			return strings.Contains(p.Command, "build -cover")
		})
	}
}

// TestRecordFaults is the fault suite of issue 14: a hostile subject,
// concurrent recordings, and arbor killed (SIGKILL) or terminated
// (SIGTERM) while it builds the harness and while it records. Each case
// asserts the outcomes, that no input is lost or recorded twice once the
// recording is resumed, that no process arbor started outlives it, and
// that nothing is left in the subject's module.
func TestRecordFaults(t *testing.T) {
	b := newFaultBed(t)
	sleeps := func(n int, more ...string) []string {
		var texts []string
		for i := range n {
			texts = append(texts, fmt.Sprintf("sleep %d", i))
		}
		return append(texts, more...)
	}

	// The build is killed first, while the cache is empty.
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run("build/"+sig.String(), func(t *testing.T) {
			in := b.inputs("ok 1", "ok 2")
			out := filepath.Join(t.TempDir(), "cov.jsonl")
			p := b.record(in, out)
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, time.Minute, "the harness build", building(b.mark))
			p.cmd.Process.Signal(sig)
			p.cmd.Wait()
			if code := p.cmd.ProcessState.ExitCode(); sig == syscall.SIGTERM && code != exitFailure {
				t.Errorf("exit %d after SIGTERM, want %d:\n%s", code, exitFailure, p.err.String())
			}
			b.clean(20 * time.Second) // the compilers a killed go command started finish their file
		})
	}

	t.Run("hostile", func(t *testing.T) {
		want := map[string]coverage.Outcome{
			"ok 1": coverage.OK, "print": coverage.OK, "println": coverage.OK, "frame": coverage.OK,
			"stderr": coverage.OK, "stdin": coverage.OK, "child": coverage.OK, "leak": coverage.OK,
			"loop": coverage.Timeout, "deadlock": coverage.Timeout, "exit": coverage.Panic,
			"alloc": coverage.Panic, "panic": coverage.Panic, "bogus": coverage.Error, "ok 2": coverage.OK,
		}
		var texts []string
		for text := range want {
			texts = append(texts, text)
		}
		slices.Sort(texts)
		in := b.inputs(texts...)
		out := filepath.Join(t.TempDir(), "cov.jsonl")
		p := b.record(in, out, "--timeout", "1s", "--show-output")
		if code := p.exitCode(t); code != 0 {
			t.Fatalf("exit %d:\n%s", code, p.err.String())
		}
		got := records(t, out, len(texts))
		for i, text := range texts {
			if r := got[fmt.Sprintf("%03d", i)]; r.Outcome != want[text] {
				t.Errorf("%q: %s (%s), want %s", text, r.Outcome, r.Error, want[text])
			}
		}
		if !strings.Contains(p.err.String(), "stdout| a line of the subject's own\n") {
			t.Errorf("--show-output did not show the subject's line:\n%s", p.err.String())
		}
		b.clean(5 * time.Second)
	})

	t.Run("concurrent", func(t *testing.T) {
		in := b.inputs(sleeps(40)...)
		out := filepath.Join(t.TempDir(), "cov.jsonl")
		first := b.record(in, out)
		if err := first.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, time.Minute, "the first recording's header", func() bool { return lines(out) > 0 })
		second := b.record(in, out)
		if code := second.exitCode(t); code != exitFailure || !strings.Contains(second.err.String(), fmt.Sprintf("is being written by process %d", first.cmd.Process.Pid)) {
			t.Errorf("a second recording on the same file: exit %d:\n%s", code, second.err.String())
		}
		waiter := b.record(in, out, "--wait")
		if code := waiter.exitCode(t); code != 0 || !strings.Contains(waiter.stdout.String(), "0 inputs recorded now, 40 already there") {
			t.Errorf("a waiting recording: exit %d:\n%s%s", code, waiter.stdout.String(), waiter.err.String())
		}
		if err := first.cmd.Wait(); err != nil {
			t.Errorf("the first recording: %v\n%s", err, first.err.String())
		}
		records(t, out, 40)
		b.clean(5 * time.Second)
	})

	// Killed while recording, with the harness spinning in the subject
	// ("loop", last, with a long time limit), then resumed.
	for _, tt := range []struct {
		sig   syscall.Signal
		flags []string
	}{
		{syscall.SIGKILL, []string{"--isolate"}},
		{syscall.SIGTERM, nil},
	} {
		t.Run("record/"+tt.sig.String(), func(t *testing.T) {
			in := b.inputs(sleeps(30, "loop")...)
			out := filepath.Join(t.TempDir(), "cov.jsonl")
			p := b.record(in, out, append([]string{"--timeout", "60s"}, tt.flags...)...)
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if tt.flags != nil {
				waitFor(t, time.Minute, "the records", func() bool { return lines(out) > 30 })
			} else {
				waitFor(t, time.Minute, "the warm-up to reach the loop", func() bool { return lines(out) > 0 })
			}
			time.Sleep(300 * time.Millisecond) // spinning now
			start := time.Now()
			p.cmd.Process.Signal(tt.sig)
			p.cmd.Wait()
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("arbor took %v to stop; the input's time limit is a minute", d.Round(time.Second))
			}
			b.clean(5 * time.Second)
			records(t, out, -1)
			resume := b.record(in, out, "--timeout", "1s")
			if code := resume.exitCode(t); code != 0 {
				t.Fatalf("resume: exit %d:\n%s", code, resume.err.String())
			}
			got := records(t, out, 31)
			if r := got["030"]; r.Outcome != coverage.Timeout {
				t.Errorf("the loop: %s, want a timeout", r.Outcome)
			}
			b.clean(5 * time.Second)
		})
	}
}
