//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/proctest"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// fuzzBed runs arbor fuzz as a process of its own on the crash module
// (two distinct panics), with a shared harness cache and a mark on
// every process.
type fuzzBed struct {
	t                 *testing.T
	mod, grammarFile  string
	cache, mark       string
	g                 *grammar.Graph
	hostile, hostileG string
}

func newFuzzBed(t *testing.T) *fuzzBed {
	t.Helper()
	if testing.Short() {
		t.Skip("builds harnesses and kills processes")
	}
	mod, gf := crashModule(t)
	text, err := os.ReadFile(gf)
	if err != nil {
		t.Fatal(err)
	}
	ast, err := grammar.Parse(gf, text)
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	return &fuzzBed{t: t, mod: mod, grammarFile: gf, cache: t.TempDir(), mark: proctest.NewMark(), g: g}
}

// fuzz is arbor fuzz into out, not yet started.
func (b *fuzzBed) fuzz(out string, env []string, flags ...string) *arborProc {
	args := append([]string{"fuzz", "--go", "example.com/crash.Run", "--dir", b.mod, "--grammar", b.grammarFile,
		"--out", out, "--json"}, flags...)
	p := &arborProc{cmd: exec.Command(os.Args[0], args...)}
	p.cmd.Env = append(append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1", "XDG_CACHE_HOME="+b.cache, b.mark), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.err
	return p
}

// campaign is what a campaign folder holds, read as a user would after a
// crash: complete lines only.
type campaign struct {
	corpus   []fuzz.CorpusLine
	inputs   map[string]string // file → content
	failures map[string]fuzz.FailureRecord
	execs    int
	curve    []string
}

// completeLines are the lines of path that end in a newline.
func completeLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// check reads out and asserts the campaign invariants: every corpus line
// replays to its file, no file or input is named twice, every failure's
// file is there, and nothing the previous look (prev, if any) saw was
// lost: its corpus lines and curve rows are a prefix of these, its
// failures are here in the same files with counts no smaller, its
// executions no more.
func (b *fuzzBed) check(out string, prev *campaign) *campaign {
	t := b.t
	t.Helper()
	c := &campaign{inputs: map[string]string{}, failures: map[string]fuzz.FailureRecord{}}
	seen := map[string]string{}
	for i, line := range completeLines(t, filepath.Join(out, "corpus.jsonl")) {
		var l fuzz.CorpusLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("corpus.jsonl line %d: %q: %v", i+1, line, err)
		}
		data, err := os.ReadFile(filepath.Join(out, l.File))
		if err != nil {
			t.Fatalf("corpus.jsonl line %d names a file that is not there: %v", i+1, err)
		}
		if _, dup := c.inputs[l.File]; dup {
			t.Errorf("corpus.jsonl names %s twice", l.File)
		}
		if other, dup := seen[string(data)]; dup {
			t.Errorf("%s and %s hold the same input %q", other, l.File, data)
		}
		seen[string(data)] = l.File
		c.inputs[l.File] = string(data)
		if got := synth.NewGenerator(b.g, &synth.Replay{Choices: l.Choices}, synth.RandomPolicy).Generate().String(); got != string(data) {
			t.Errorf("%s: its line replays to %q, the file holds %q", l.File, got, data)
		}
		c.corpus = append(c.corpus, l)
	}
	for _, line := range completeLines(t, filepath.Join(out, "failures.jsonl")) {
		var r fuzz.FailureRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("failures.jsonl: %q: %v", line, err)
		}
		key := r.Outcome + "\x00" + r.Stack
		if _, dup := c.failures[key]; dup {
			t.Errorf("failures.jsonl holds %s twice", r.File)
		}
		if _, err := os.Stat(filepath.Join(out, r.File)); err != nil {
			t.Errorf("failure file: %v", err)
		}
		c.failures[key] = r
	}
	if data, err := os.ReadFile(filepath.Join(out, "state.json")); err == nil {
		var st fuzz.State
		if err := json.Unmarshal(data, &st); err != nil {
			t.Errorf("state.json: %q: %v", data, err)
		}
		c.execs = st.Executions
	}
	c.curve = completeLines(t, filepath.Join(out, "curve.csv"))
	if prev == nil {
		return c
	}
	if len(c.corpus) < len(prev.corpus) {
		t.Fatalf("the corpus shrank from %d to %d lines", len(prev.corpus), len(c.corpus))
	}
	for i, l := range prev.corpus {
		if c.corpus[i].File != l.File || c.inputs[l.File] != prev.inputs[l.File] {
			t.Errorf("corpus line %d was %s (%q), is %s (%q)", i+1, l.File, prev.inputs[l.File], c.corpus[i].File, c.inputs[c.corpus[i].File])
		}
	}
	for key, r := range prev.failures {
		now, ok := c.failures[key]
		switch {
		case !ok:
			t.Errorf("failure %s lost", r.File)
		case now.File != r.File || now.Count < r.Count:
			t.Errorf("failure was %+v, is %+v", r, now)
		}
	}
	if c.execs < prev.execs {
		t.Errorf("executions went back from %d to %d", prev.execs, c.execs)
	}
	if len(c.curve) < len(prev.curve) || !slicesPrefix(c.curve, prev.curve) {
		t.Errorf("the curve lost rows: %d rows, %d before", len(c.curve), len(prev.curve))
	}
	return c
}

func slicesPrefix(s, prefix []string) bool {
	if len(prefix) > len(s) {
		return false
	}
	for i := range prefix {
		if s[i] != prefix[i] {
			return false
		}
	}
	return true
}

// TestFuzzFaults is the fault suite of issue 29 for fuzz campaigns: arbor
// fuzz killed (SIGKILL) or stopped (SIGTERM) at seeded random moments and
// resumed each time, two campaigns on one folder, a disk that fills up,
// and a campaign stopped by Ctrl-C or its --time while an input hangs.
// Each case asserts that nothing found is lost or duplicated, that every
// corpus line replays to its file, that no old failure is reported as
// new, and that no process of arbor's outlives it.
func TestFuzzFaults(t *testing.T) {
	b := newFuzzBed(t)
	// The harness is built once, by a campaign that runs to its end.
	warm := b.fuzz(filepath.Join(t.TempDir(), "warm"), nil, "--execs", "50")
	if code := warm.exitCode(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, warm.err.String())
	}

	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run("killed/"+sig.String(), func(t *testing.T) {
			b := *b
			b.t = t
			out := filepath.Join(t.TempDir(), "out")
			r := rand.New(rand.NewPCG(uint64(sig), 29))
			var prev *campaign
			for i := range 20 {
				p := b.fuzz(out, nil, "--execs", "100000", "--seed", strconv.Itoa(i))
				if err := p.cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Duration(50+r.IntN(400)) * time.Millisecond)
				p.cmd.Process.Signal(sig)
				p.cmd.Wait()
				if sig == syscall.SIGTERM && p.cmd.ProcessState.ExitCode() != exitFailure {
					t.Errorf("kill %d: exit %d after SIGTERM, want %d: %s", i, p.cmd.ProcessState.ExitCode(), exitFailure, p.err.String())
				}
				if left := proctest.WaitGone(b.mark, 5*time.Second); len(left) > 0 {
					t.Fatalf("kill %d: processes outlive arbor: %v", i, left)
				}
				prev = b.check(out, prev)
			}
			if len(prev.corpus) == 0 || len(prev.failures) == 0 {
				t.Fatalf("after 20 kills the corpus has %d inputs and %d failures: the kills came too early to test anything", len(prev.corpus), len(prev.failures))
			}
			// A last campaign runs to its end: it resumes everything
			// and reports no old failure as new.
			last := b.fuzz(out, nil, "--execs", "300")
			if code := last.exitCode(t); code != 0 {
				t.Fatalf("exit %d:\n%s", code, last.err.String())
			}
			var s fuzzSummary
			if err := json.Unmarshal(last.stdout.Bytes(), &s); err != nil {
				t.Fatal(err)
			}
			if s.Resumed < len(prev.corpus) || s.Before < len(prev.failures) {
				t.Errorf("resumed %d inputs and %d failures, the folder held %d and %d", s.Resumed, s.Before, len(prev.corpus), len(prev.failures))
			}
			for _, fl := range s.Failures {
				for _, old := range prev.failures {
					if fl.File != "" && fl.File == old.File {
						t.Errorf("old failure %s reported as new", fl.File)
					}
				}
			}
			b.check(out, prev)
		})
	}

	t.Run("two writers", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		first := b.fuzz(out, nil, "--execs", "100000")
		if err := first.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "the first campaign's lock", func() bool {
			locks, _ := os.ReadFile("/proc/locks")
			return bytes.Contains(locks, []byte(" "+strconv.Itoa(first.cmd.Process.Pid)+" "))
		})
		second := b.fuzz(out, nil, "--execs", "100")
		code := second.exitCode(t)
		if code == 0 || !strings.Contains(second.err.String(), "is being written by process "+strconv.Itoa(first.cmd.Process.Pid)) {
			t.Errorf("second campaign: exit %d: %s", code, second.err.String())
		}
		// With --wait it runs once the first is done.
		waiting := b.fuzz(out, nil, "--execs", "100", "--wait")
		if err := waiting.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		first.cmd.Process.Signal(syscall.SIGTERM)
		first.cmd.Wait()
		if err := waiting.cmd.Wait(); err != nil {
			t.Errorf("waiting campaign: %v: %s", err, waiting.err.String())
		}
		b.check(out, nil)
	})

	t.Run("disk full", func(t *testing.T) {
		// A file size limit makes writes past it fail as a full disk
		// does, cutting the line being written.
		// The limits are fractions of the largest file a campaign of
		// the same budget writes.
		ref := filepath.Join(t.TempDir(), "ref")
		if p := b.fuzz(ref, nil, "--execs", "3000"); p.exitCode(t) != 0 {
			t.Fatal(p.err.String())
		}
		largest := int64(0)
		for _, name := range []string{"corpus.jsonl", "curve.csv", "failures.jsonl"} {
			if fi, err := os.Stat(filepath.Join(ref, name)); err == nil {
				largest = max(largest, fi.Size())
			}
		}
		for _, limit := range []int64{largest / 3, 2 * largest / 3} {
			out := filepath.Join(t.TempDir(), "out")
			p := b.fuzz(out, []string{"ARBOR_TEST_FSIZE=" + strconv.FormatInt(limit, 10)}, "--execs", "3000")
			code := p.exitCode(t)
			if code == 0 || !strings.Contains(p.err.String(), "file too large") {
				t.Errorf("limit %d: exit %d: %s", limit, code, p.err.String())
			}
			prev := b.check(out, nil)
			last := b.fuzz(out, nil, "--execs", "200")
			if code := last.exitCode(t); code != 0 {
				t.Fatalf("exit %d:\n%s", code, last.err.String())
			}
			b.check(out, prev)
		}
	})

	t.Run("interrupted in flight", func(t *testing.T) {
		// Every input hangs: --time and Ctrl-C must not wait out the
		// input's --timeout.
		hang := filepath.Join(t.TempDir(), "hang.grammar")
		if err := os.WriteFile(hang, []byte("S := \"loop\" ;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mod := filepath.Join(t.TempDir(), "hostile")
		if err := os.CopyFS(mod, os.DirFS("../../coverage/testdata/hostile")); err != nil {
			t.Fatal(err)
		}
		run := func(flags ...string) *arborProc {
			args := append([]string{"fuzz", "--go", "example.com/hostile.Run", "--dir", mod, "--grammar", hang,
				"--out", filepath.Join(t.TempDir(), "out"), "--timeout", "30s"}, flags...)
			p := &arborProc{cmd: exec.Command(os.Args[0], args...)}
			p.cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1", "XDG_CACHE_HOME="+b.cache, b.mark)
			p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.err
			return p
		}
		// The harness is built first (not timed).
		build := run("--execs", "1", "--timeout", "100ms")
		build.exitCode(t)

		p := run("--time", "1s")
		start := time.Now()
		if code := p.exitCode(t); code != 0 {
			t.Errorf("--time: exit %d: %s", code, p.err.String())
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("--time 1s with a hanging input took %v", d)
		}
		p = run("--execs", "5")
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "the harness", func() bool { return len(proctest.Marked(b.mark)) > 1 })
		time.Sleep(200 * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGINT)
		sent := time.Now()
		p.cmd.Wait()
		if d := time.Since(sent); d > 2*time.Second {
			t.Errorf("Ctrl-C with a hanging input took %v to end arbor", d)
		}
		if left := proctest.WaitGone(b.mark, 5*time.Second); len(left) > 0 {
			t.Errorf("processes outlive arbor: %v", left)
		}
	})
}

// TestMergeFaults: record merge --out on a file being recorded into is
// refused, naming the recording, or waits for it with --wait; the
// recording's records are all in the merged file (issue 29, item 4:
// both exited 0 and the recorder's records were lost).
func TestMergeFaults(t *testing.T) {
	b := newFaultBed(t)
	var texts []string
	for i := range 40 {
		texts = append(texts, "sleep "+strconv.Itoa(i))
	}
	in := b.inputs(texts...)
	out := filepath.Join(t.TempDir(), "cov.jsonl")
	rec := b.record(in, out)
	if err := rec.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Minute, "the first records", func() bool { return lines(out) > 2 })
	merge := func(flags ...string) *arborProc {
		p := &arborProc{cmd: exec.Command(os.Args[0], append([]string{"record", "merge", "--out", out, out}, flags...)...)}
		p.cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1", b.mark)
		p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.err
		return p
	}
	refused := merge()
	if code := refused.exitCode(t); code == 0 || !strings.Contains(refused.err.String(), "is being written by process "+strconv.Itoa(rec.cmd.Process.Pid)) {
		t.Errorf("merge during a recording: exit %d: %s", code, refused.err.String())
	}
	waiting := merge("--wait")
	if code := waiting.exitCode(t); code != 0 {
		t.Errorf("merge --wait: exit %d: %s", code, waiting.err.String())
	}
	if err := rec.cmd.Wait(); err != nil {
		t.Fatalf("the recording: %v: %s", err, rec.err.String())
	}
	records(t, out, len(texts))
	b.clean(5 * time.Second)
}

// arbor runs an arbor command of the bed to its end and fails the test
// if it fails.
func (b *fuzzBed) arbor(args ...string) *arborProc {
	b.t.Helper()
	p := &arborProc{cmd: exec.Command(os.Args[0], args...)}
	p.cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1", "XDG_CACHE_HOME="+b.cache, b.mark)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.err
	return p
}

// checkRare asserts that every function folder of a target --rare run
// in out holds exactly the inputs its manifest names, and that every
// summary line's folder is there; complete says the run ended, so that
// the folders are exactly the summary's.
func checkRare(t *testing.T, out string, complete bool) {
	t.Helper()
	var sums []struct {
		Function string
		Verified int
		Out      string
	}
	if data, err := os.ReadFile(filepath.Join(out, "summary.json")); err == nil {
		if err := json.Unmarshal(data, &sums); err != nil {
			t.Fatalf("summary.json: %v", err)
		}
	} else if complete {
		t.Fatal(err)
	}
	inSummary := map[string]bool{}
	for _, s := range sums {
		inSummary[filepath.Base(s.Out)] = true
		if _, err := os.Stat(s.Out); err != nil {
			t.Errorf("summary line %s: %v", s.Function, err)
		}
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if complete && !inSummary[e.Name()] {
			t.Errorf("folder %s is not in summary.json", e.Name())
		}
		dir := filepath.Join(out, e.Name())
		named := map[string]bool{"manifest.jsonl": true, "verify.cov.jsonl": true}
		for _, line := range completeLines(t, filepath.Join(dir, "manifest.jsonl")) {
			var l struct{ File string }
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatalf("%s manifest: %v", e.Name(), err)
			}
			named[l.File] = true
			if _, err := os.Stat(filepath.Join(dir, l.File)); err != nil {
				t.Errorf("%s: its manifest names a missing file: %v", e.Name(), err)
			}
		}
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if !named[f.Name()] {
				t.Errorf("%s/%s is named by no manifest", e.Name(), f.Name())
			}
		}
	}
}

// TestTargetFaults kills target --rare (SIGKILL, SIGTERM) at 20 seeded
// random moments each and runs it again: no folder disagrees with its
// manifest, and a run to the end leaves exactly the folders of its
// summary (issue 29, item 7: reruns left stale folders and files).
func TestTargetFaults(t *testing.T) {
	b := newFuzzBed(t)
	// A subject with common and rare functions.
	b.mod = t.TempDir()
	for name, text := range map[string]string{
		"go.mod": "module example.com/rare\n\ngo 1.24\n",
		"r.go": `package rare

import "bytes"

// Run is the subject.
func Run(b []byte) error {
	if bytes.Contains(b, []byte("a")) {
		hasA()
	}
	if bytes.Contains(b, []byte("bc")) {
		bThenC()
	}
	if bytes.HasSuffix(b, []byte("xx")) {
		endXX()
	}
	if bytes.Count(b, []byte("c")) > 3 {
		manyC()
	}
	return nil
}

func hasA()   {}
func bThenC() {}
func endXX()  {}
func manyC()  {}
`,
	} {
		if err := os.WriteFile(filepath.Join(b.mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	inputs, cov, model := filepath.Join(dir, "in"), filepath.Join(dir, "cov.jsonl"), filepath.Join(dir, "m.json.gz")
	for _, args := range [][]string{
		{"generate", b.grammarFile, "-n", "150", "--out", inputs},
		{"record", "--go", "example.com/rare.Run", "--dir", b.mod, "--inputs", inputs, "--out", cov},
		{"train", "--grammar", b.grammarFile, "--inputs", inputs, "--coverage", cov, "--out", model},
	} {
		if p := b.arbor(args...); p.exitCode(t) != 0 {
			t.Fatalf("%s: %s", args[0], p.err.String())
		}
	}
	// train killed at random moments: the model file is the old one or
	// the whole new one, never a part.
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run("train/"+sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "m.json.gz")
			start := time.Now()
			if p := b.arbor("train", "--grammar", b.grammarFile, "--inputs", inputs, "--coverage", cov, "--out", out); p.exitCode(t) != 0 {
				t.Fatal(p.err.String())
			}
			span := time.Since(start)
			os.Remove(out)
			r := rand.New(rand.NewPCG(uint64(sig), 5))
			for i := range 20 {
				p := b.arbor("train", "--grammar", b.grammarFile, "--inputs", inputs, "--coverage", cov, "--out", out)
				if err := p.cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Duration(r.Int64N(int64(span))))
				p.cmd.Process.Signal(sig)
				p.cmd.Wait()
				if _, err := os.Stat(out); err == nil {
					if _, err := learn.LoadModel(out); err != nil {
						t.Fatalf("kill %d: the model file is damaged: %v", i, err)
					}
				}
			}
			if left := proctest.WaitGone(b.mark, 5*time.Second); len(left) > 0 {
				t.Errorf("processes outlive arbor: %v", left)
			}
		})
	}
	rare := func(out string) *arborProc {
		return b.arbor("target", "--model", model, "--go", "example.com/rare.Run", "--dir", b.mod, "--rare", "--below", "0.5",
			"-n", "3", "--budget", "40", "--out", out)
	}
	t.Run("two writers", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "rare")
		first := rare(out)
		if err := first.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "the first run's lock", func() bool {
			locks, _ := os.ReadFile("/proc/locks")
			return bytes.Contains(locks, []byte(" "+strconv.Itoa(first.cmd.Process.Pid)+" "))
		})
		second := rare(out)
		code := second.exitCode(t)
		first.cmd.Wait()
		if code == 0 || !strings.Contains(second.err.String(), "is being written by process "+strconv.Itoa(first.cmd.Process.Pid)) {
			t.Errorf("a second target run on one folder: exit %d: %s", code, second.err.String())
		}
		checkRare(t, out, true)
	})
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "rare")
			r := rand.New(rand.NewPCG(uint64(sig), 7))
			for range 20 {
				p := rare(out)
				if err := p.cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Duration(50+r.IntN(700)) * time.Millisecond)
				p.cmd.Process.Signal(sig)
				p.cmd.Wait()
				if left := proctest.WaitGone(b.mark, 5*time.Second); len(left) > 0 {
					t.Fatalf("processes outlive arbor: %v", left)
				}
				checkRare(t, out, false)
			}
			if p := rare(out); p.exitCode(t) != 0 {
				t.Fatalf("target --rare: %s", p.err.String())
			}
			checkRare(t, out, true)
		})
	}
}

// TestMergeKilled kills record merge (SIGKILL, SIGTERM) at 20 seeded
// random moments each: --out is never a part of a file (the old one or
// the whole merge), and the merge run again to its end holds every
// record once.
func TestMergeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	dir := t.TempDir()
	h := coverage.NewHeader("s", []string{"f", "g", "h"})
	const perShard = 40000
	var shards []string
	for s := range 3 {
		path := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", s))
		w, err := coverage.OpenWriter(context.Background(), path, h, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := range perShard {
			name := fmt.Sprintf("in/%d-%06d", s, i)
			if err := w.Write(coverage.Record{Input: name, SHA256: fmt.Sprintf("%064x", s*perShard+i), Covered: []int{i % 3}, Outcome: coverage.OK}); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		shards = append(shards, path)
	}
	mark := proctest.NewMark()
	merge := func(out string) *arborProc {
		p := &arborProc{cmd: exec.Command(os.Args[0], append([]string{"record", "merge", "--out", out}, shards...)...)}
		p.cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1", mark)
		p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.err
		return p
	}
	// How long a merge takes here: the kills fall within it.
	start := time.Now()
	if p := merge(filepath.Join(dir, "timing.jsonl")); p.exitCode(t) != 0 {
		t.Fatal(p.err.String())
	}
	span := max(time.Since(start), 100*time.Millisecond)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged.jsonl")
			r := rand.New(rand.NewPCG(uint64(sig), 11))
			for i := range 20 {
				p := merge(out)
				if err := p.cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Duration(r.Int64N(int64(span))))
				p.cmd.Process.Signal(sig)
				p.cmd.Wait()
				if _, err := os.Stat(out); err == nil {
					f, err := coverage.ReadFile(out)
					switch {
					case err != nil:
						t.Fatalf("kill %d: --out is damaged: %v", i, err)
					case len(f.Records) != 0 && len(f.Records) != 3*perShard:
						t.Fatalf("kill %d: --out holds %d records, a part of %d", i, len(f.Records), 3*perShard)
					}
				}
			}
			if p := merge(out); p.exitCode(t) != 0 {
				t.Fatal(p.err.String())
			}
			f, err := coverage.ReadFile(out)
			if err != nil || len(f.Records) != 3*perShard {
				t.Fatalf("the merge: %v, %d records", err, len(f.Records))
			}
			if left := proctest.WaitGone(mark, 5*time.Second); len(left) > 0 {
				t.Errorf("processes outlive arbor: %v", left)
			}
		})
	}
}
