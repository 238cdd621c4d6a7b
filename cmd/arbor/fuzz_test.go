package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// crashModule writes a Go module whose function crashes two ways: on
// inputs with "bb" (one stack) and on inputs ending in "xa" (another).
func crashModule(t *testing.T) (dir, grammarFile string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/crash\n\ngo 1.24\n",
		"c.go": `package crash

import (
	"bytes"
	"errors"
)

// Run is the subject.
func Run(b []byte) error {
	if bytes.Contains(b, []byte("bb")) {
		twoB()
	}
	if bytes.HasSuffix(b, []byte("xa")) {
		endXA()
	}
	if bytes.HasPrefix(b, []byte("c")) {
		return errors.New("starts with c")
	}
	return nil
}

func twoB()  { panic("two b") }
func endXA() { panic("ends in xa") }
`,
		"c.grammar": "S := Item{1,6} ;\nItem := \"a\" | \"b\" | \"c\" | \"x\" ;\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "c.grammar")
}

type fuzzSummary struct {
	Execs    int `json:"executions"`
	Corpus   int `json:"corpus"`
	Failures []struct {
		File    string `json:"file"`
		Outcome string `json:"outcome"`
		Message string `json:"message"`
		Count   int    `json:"count"`
	} `json:"failures"`
	Domains map[string]int `json:"domains"`
	Resumed int            `json:"resumed_from"`
	Before  int            `json:"failures_before"`
}

func runFuzzCLI(t *testing.T, args ...string) fuzzSummary {
	t.Helper()
	out, errOut, code := runArbor(t, "", append([]string{"fuzz", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s fuzzSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return s
}

// TestFuzz runs a campaign on a bundled subject: what it saves replays,
// the same seed gives the same corpus with one worker, a campaign of two
// workers (two harness processes) keeps the budget and saves inputs that
// replay, and a second campaign in the same folder resumes the first.
func TestFuzz(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	g, err := datasets.Grammar("json")
	if err != nil {
		t.Fatal(err)
	}
	a, b, two := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b"), filepath.Join(t.TempDir(), "two")
	sa := runFuzzCLI(t, "--subject", "json", "--execs", "400", "--seed", "3", "--workers", "1", "--out", a)
	sb := runFuzzCLI(t, "--subject", "json", "--execs", "400", "--seed", "3", "--workers", "1", "--out", b)
	if s2 := runFuzzCLI(t, "--subject", "json", "--execs", "400", "--seed", "3", "--workers", "2", "--out", two); s2.Execs != 400 || s2.Corpus < 2 {
		t.Errorf("two workers: summary %+v", s2)
	}
	if sa.Execs != 400 || sa.Corpus < 2 || sa.Domains["blocks"] == 0 || sa.Domains["valid-blocks"] == 0 {
		t.Fatalf("summary %+v", sa)
	}
	ca, _ := os.ReadFile(filepath.Join(a, "corpus.jsonl"))
	cb, _ := os.ReadFile(filepath.Join(b, "corpus.jsonl"))
	if !bytes.Equal(ca, cb) || sa.Corpus != sb.Corpus {
		t.Errorf("the same seed gives different corpora:\n%s\n%s", ca, cb)
	}
	lines := strings.Split(strings.TrimSpace(string(ca)), "\n")
	if len(lines) != sa.Corpus {
		t.Fatalf("%d corpus lines for a corpus of %d", len(lines), sa.Corpus)
	}
	for _, dir := range []string{a, two} {
		corpus, _ := os.ReadFile(filepath.Join(dir, "corpus.jsonl"))
		for _, line := range strings.Split(strings.TrimSpace(string(corpus)), "\n") {
			var c fuzz.CorpusLine
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			if got := synth.NewGenerator(g, &synth.Replay{Choices: c.Choices}, synth.RandomPolicy).Generate().String(); got != string(data) {
				t.Errorf("%s: choices replay to %q, the file holds %q", c.File, got, data)
			}
			if len(c.Moved) == 0 {
				t.Errorf("%s kept without moving a domain", c.File)
			}
		}
	}
	curve, _ := os.ReadFile(filepath.Join(a, "curve.csv"))
	rows := strings.Split(strings.TrimSpace(string(curve)), "\n")
	if rows[0] != "executions,seconds,corpus,valid_executions,failures,blocks,valid-blocks" || len(rows) < 3 ||
		!strings.HasPrefix(rows[len(rows)-1], "400,") {
		t.Errorf("curve.csv:\n%s", curve)
	}

	again := runFuzzCLI(t, "--subject", "json", "--execs", "400", "--seed", "3", "--out", a)
	if again.Resumed != sa.Corpus {
		t.Errorf("resumed from %d inputs, the folder held %d", again.Resumed, sa.Corpus)
	}
	var state fuzz.State
	if data, err := os.ReadFile(filepath.Join(a, "state.json")); err != nil || json.Unmarshal(data, &state) != nil || state.Executions != 800 {
		t.Errorf("state.json: %s (%v)", data, err)
	}
	// The curve goes on: the first campaign's rows, then the second's,
	// counted from the first's end.
	curve2, _ := os.ReadFile(filepath.Join(a, "curve.csv"))
	rows2 := strings.Split(strings.TrimSpace(string(curve2)), "\n")
	if !bytes.HasPrefix(curve2, curve) || !strings.HasPrefix(rows2[len(rows2)-1], "800,") || len(rows2) <= len(rows) {
		t.Errorf("curve.csv after resuming:\n%s", curve2)
	}
	after, _ := os.ReadFile(filepath.Join(a, "corpus.jsonl"))
	if !bytes.HasPrefix(after, ca) || strings.Count(string(after), "\n") != again.Corpus {
		t.Errorf("the resumed campaign rewrote or repeated the corpus:\n%s", after)
	}
}

// TestFuzzFailures fuzzes a function with two crashes: each is saved once
// with its input and counted, and a resumed campaign does not report
// them again.
func TestFuzzFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	mod, grammarFile := crashModule(t)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"--go", "example.com/crash.Run", "--dir", mod, "--grammar", grammarFile, "--execs", "300", "--out", out}
	s := runFuzzCLI(t, args...)
	messages := map[string]bool{}
	for _, f := range s.Failures {
		if f.Outcome != "panic" || f.Count < 1 {
			t.Errorf("failure %+v", f)
		}
		messages[f.Message] = true
		data, err := os.ReadFile(filepath.Join(out, f.File))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("bb")) && !bytes.HasSuffix(data, []byte("xa")) {
			t.Errorf("%s holds %q, which does not crash", f.File, data)
		}
	}
	if len(s.Failures) != 2 || !messages["two b"] || !messages["ends in xa"] {
		t.Fatalf("failures %+v, want the two crashes", s.Failures)
	}
	lines, _ := os.ReadFile(filepath.Join(out, "failures.jsonl"))
	if n := strings.Count(string(lines), "\n"); n != 2 {
		t.Errorf("failures.jsonl has %d lines:\n%s", n, lines)
	}
	again := runFuzzCLI(t, args...)
	if again.Before != 2 {
		t.Errorf("the resumed campaign knew %d failures, want 2", again.Before)
	}
	if len(again.Failures) != 2 || again.Failures[0].File != "" || again.Failures[1].File != "" {
		t.Errorf("the resumed campaign reported old failures as new: %+v", again.Failures)
	}
	// The same failures, in the same files, counted on.
	lines2, _ := os.ReadFile(filepath.Join(out, "failures.jsonl"))
	before, after := fuzzFailureLines(t, lines), fuzzFailureLines(t, lines2)
	if len(after) != len(before) {
		t.Fatalf("failures.jsonl has %d lines after resuming, %d before", len(after), len(before))
	}
	for i := range before {
		if after[i].File != before[i].File || after[i].Stack != before[i].Stack || after[i].Count <= before[i].Count {
			t.Errorf("failure %d: before %+v, after %+v", i, before[i], after[i])
		}
	}
}

func fuzzFailureLines(t *testing.T, data []byte) []fuzz.FailureRecord {
	t.Helper()
	var recs []fuzz.FailureRecord
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r fuzz.FailureRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("failures.jsonl: %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestFuzzUsage(t *testing.T) {
	dir := t.TempDir()
	runCases(t, []cliCase{
		{name: "no out", args: []string{"fuzz", "--subject", "json", "--execs", "10"}, code: 2, stderr: []string{"--out is required"}},
		{name: "no budget", args: []string{"fuzz", "--subject", "json", "--out", dir}, code: 2, stderr: []string{"give --execs, --time or both"}},
		{name: "negative", args: []string{"fuzz", "--subject", "json", "--execs", "-1", "--out", dir}, code: 2, stderr: []string{"cannot be negative"}},
		{name: "domain", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--domain", "cov,speed", "--out", dir}, code: 2, stderr: []string{`unknown domain "speed"`}},
		{name: "k", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--k", "0", "--out", dir}, code: 2, stderr: []string{"--k must be at least 1"}},
		{name: "no subject", args: []string{"fuzz", "--execs", "10", "--out", dir}, code: 2},
		{name: "fresh", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--fresh", "1", "--out", dir}, code: 2, stderr: []string{"--fresh must be in [0, 1)"}},
		{name: "seed-from", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--seed-from", "afl", "--out", dir}, code: 2, stderr: []string{"--seed-from must be rlcheck"}},
		{name: "filter", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--seed-from", "rlcheck", "--filter", "best", "--out", dir}, code: 2, stderr: []string{"--filter must be one of rnd, par, cho, cov"}},
		{name: "levels", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--bonsai", "--bonsai-levels", "0", "--out", dir}, code: 2, stderr: []string{"--bonsai-levels must be at least 1"}},
		{name: "workers", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--workers", "0", "--out", dir}, code: 2, stderr: []string{"--workers must be at least 1"}},
		{name: "distinct", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--max-distinct", "-1", "--out", dir}, code: 2, stderr: []string{"--max-distinct not negative"}},
		{name: "format", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--format", "afl", "--out", dir}, code: 2, stderr: []string{"--format must be raw or gofuzz"}},
		{name: "fuzz-target", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--fuzz-target", "FuzzX", "--out", dir}, code: 2, stderr: []string{"--fuzz-target goes with --format gofuzz"}},
		{name: "bonsai budget", args: []string{"fuzz", "--subject", "json", "--execs", "10", "--bonsai", "--out", dir}, code: 1, stderr: []string{"cannot be shared among 27"}},
	})
}

// TestFuzzSeedFrom seeds a campaign with the bandit generator's valid
// inputs, chosen by a filter: the seeds are the campaign's first runs.
func TestFuzzSeedFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := runArbor(t, "", "fuzz", "--subject", "json", "--execs", "50", "--seed-from", "rlcheck", "--seed-trials", "300",
		"--seed-count", "5", "--filter", "cov", "--out", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "fuzz: 5 seeds (cov) of ") {
		t.Errorf("stderr: %s", stderr)
	}
	var s fuzzSummary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil || s.Execs != 50 || s.Corpus == 0 {
		t.Errorf("summary %s: %v", stdout, err)
	}
}

// TestFuzzWarmsUp: a campaign's processes run a warm-up input before
// any input of the campaign, so that the one-time work a process does
// on its first call is credited to none of them. The subject rejects
// its first call, which does that work: before, the campaign's first
// input ran it, and its blocks were covered but never valid.
func TestFuzzWarmsUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	mod := fixture.OnceModule(t)
	grammarFile := filepath.Join(t.TempDir(), "once.grammar")
	if err := os.WriteFile(grammarFile, []byte("S := Item{1,4} ;\nItem := \"a\" | \"b\" ;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []string{"1", "2"} {
		s := runFuzzCLI(t, "--go", "example.com/once/lib.Run", "--dir", mod, "--grammar", grammarFile,
			"--execs", "50", "--workers", workers, "--out", filepath.Join(t.TempDir(), "c"))
		if s.Domains["blocks"] == 0 || s.Domains["valid-blocks"] != s.Domains["blocks"] {
			t.Errorf("%s workers: domains %v: the blocks of the rejected first call counted as the campaign's", workers, s.Domains)
		}
	}
}
