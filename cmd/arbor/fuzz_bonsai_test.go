package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/synth"
)

// corpusLines reads a corpus.jsonl and the inputs its lines name,
// decoded from Go's format where they are in it.
func corpusLines(t *testing.T, path string) ([]fuzz.CorpusLine, [][]byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []fuzz.CorpusLine
	var inputs [][]byte
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c fuzz.CorpusLine
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		raw, err := os.ReadFile(filepath.Join(filepath.Dir(path), filepath.FromSlash(c.File)))
		if err != nil {
			t.Fatal(err)
		}
		in, err := corpus.Decode(c.File, raw)
		if err != nil {
			t.Fatal(err)
		}
		lines, inputs = append(lines, c), append(inputs, in)
	}
	return lines, inputs
}

// TestFuzzBonsai runs a Bonsai campaign: a line per bounded campaign on
// stderr, the whole budget spent, inputs that replay under the top
// bounds and respect them, and a resumed campaign that writes no input
// twice.
func TestFuzzBonsai(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	g, err := datasets.Grammar("json")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "b")
	args := []string{"fuzz", "--json", "--subject", "json", "--execs", "1600", "--bonsai", "--bonsai-levels", "2", "--max-distinct", "2",
		"--max-repeat", "3", "--max-depth", "12", "--out", out}
	stdout, stderr, code := runArbor(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s fuzzSummary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stderr, "bonsai: distinct "); n != 8 || s.Execs != 1600 || s.Corpus == 0 {
		t.Fatalf("%d campaigns, summary %+v; stderr:\n%s", n, s, stderr)
	}
	top := fuzz.Bounds{MaxDistinct: 2, MaxRepeat: 3, MaxDepth: 12}
	lines, inputs := corpusLines(t, filepath.Join(out, "corpus.jsonl"))
	if len(lines) != s.Corpus {
		t.Errorf("%d corpus lines, the corpus has %d", len(lines), s.Corpus)
	}
	for i, c := range lines {
		x := synth.NewGenerator(g, &synth.Replay{Choices: c.Choices}, synth.RandomPolicy)
		x.MaxDistinct, x.MaxRepeat, x.MaxDepth = top.MaxDistinct, top.MaxRepeat, top.MaxDepth
		if got := x.Generate().String(); got != string(inputs[i]) {
			t.Errorf("%s: choices replay to %q under the top bounds, the file holds %q", c.File, got, inputs[i])
		}
	}
	again := runFuzzCLI(t, args[2:]...)
	if again.Resumed != s.Corpus {
		t.Errorf("resumed from %d inputs, the folder held %d", again.Resumed, s.Corpus)
	}
	_, after := corpusLines(t, filepath.Join(out, "corpus.jsonl"))
	seen := map[string]bool{}
	for _, in := range after {
		if seen[string(in)] {
			t.Errorf("%q written twice", in)
		}
		seen[string(in)] = true
	}
}

// TestFuzzGoFuzzFormat writes a campaign into a Go fuzz target's seed
// corpus: Go's format and names, arbor's files beside the folder, and a
// resumed campaign that reads them back.
func TestFuzzGoFuzzFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	pkg := t.TempDir()
	args := []string{"--subject", "json", "--execs", "300", "--format", "gofuzz", "--fuzz-target", "FuzzParse", "--out", pkg}
	s := runFuzzCLI(t, args...)
	dir := corpus.GoFuzzDir(pkg, "FuzzParse")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != s.Corpus || s.Corpus == 0 {
		t.Fatalf("%d files in the seed corpus, a corpus of %d", len(entries), s.Corpus)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !corpus.IsGoFuzz(data) || corpus.GoFuzzName(data) != e.Name() {
			t.Errorf("%s is not in Go's format under Go's name:\n%s", e.Name(), data)
		}
	}
	for _, side := range []string{"corpus.jsonl", "failures.jsonl", "curve.csv", "state.json"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "FuzzParse."+side)); err != nil {
			t.Errorf("side file: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(pkg, "corpus.jsonl")); err == nil {
		t.Errorf("corpus.jsonl written into the package folder")
	}
	lines, _ := corpusLines(t, filepath.Join(filepath.Dir(dir), "FuzzParse.corpus.jsonl"))
	if len(lines) != s.Corpus {
		t.Errorf("%d corpus lines for %d inputs", len(lines), s.Corpus)
	}
	again := runFuzzCLI(t, args...)
	if again.Resumed != s.Corpus || again.Execs != 300 {
		t.Errorf("resumed from %d inputs (the corpus held %d), %d executions", again.Resumed, s.Corpus, again.Execs)
	}
	after, _ := os.ReadDir(dir)
	lines2, _ := corpusLines(t, filepath.Join(filepath.Dir(dir), "FuzzParse.corpus.jsonl"))
	if len(after) != len(lines2) {
		t.Errorf("%d files, %d corpus lines after resuming", len(after), len(lines2))
	}
}

// TestFuzzSeedsDir starts a campaign from a folder of inputs: the one the
// generator can make runs first (so it is the corpus's first input), the
// others are skipped and told of, and a folder with no usable input is
// an error.
func TestFuzzSeedsDir(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	seeds := t.TempDir()
	// A pretty-printed file with a long string breaks the generator's
	// bounds (newlines it does not draw, 40 repetitions in a regex where
	// it draws 5): it runs first all the same, as it is.
	pretty := "{\n  \"name\": \"a string longer than the generator's bounds\",\n  \"list\": [\n    1,\n    2\n  ]\n}\n"
	// c is in Go's corpus format but holds a string, not a []byte: it is
	// skipped like b, not the end of the campaign (issue 29, item 11:
	// fuzz stopped at it, "--seeds: ...: not a []byte").
	malformed := "go test fuzz v1\nstring(\"x\")\n"
	for name, text := range map[string]string{"0-pretty.json": pretty, "a.json": `[1,2,{"a":true}]`, "b.json": "nope", "c": malformed} {
		if err := os.WriteFile(filepath.Join(seeds, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runArbor(t, "", "fuzz", "--subject", "json", "--execs", "100", "--seeds", seeds, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "fuzz: 2 seeds of the 4 inputs") || !strings.Contains(stderr, "b.json: does not parse") ||
		!strings.Contains(stderr, "2 inputs skipped") {
		t.Errorf("stderr:\n%s", stderr)
	}
	_, inputs := corpusLines(t, filepath.Join(out, "corpus.jsonl"))
	if len(inputs) < 2 || string(inputs[0]) != pretty || string(inputs[1]) != `[1,2,{"a":true}]` {
		t.Errorf("the corpus does not start with the seeds: %q", inputs)
	}
	for _, name := range []string{"0-pretty.json", "a.json"} {
		if err := os.Remove(filepath.Join(seeds, name)); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, code = runArbor(t, "", "fuzz", "--subject", "json", "--execs", "100", "--seeds", seeds, "--out", filepath.Join(t.TempDir(), "o2"))
	if code == 0 || !strings.Contains(stderr, "none of the 2 inputs") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}
