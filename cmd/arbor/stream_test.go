package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// straightGenerate is generate's output as it was written before it
// streamed: every input generated with a recorder, then all encoded.
func straightGenerate(t *testing.T, grammarArg, mode string, n int, seed uint64, choices bool) string {
	t.Helper()
	g, err := datasets.LoadGrammar(grammarArg)
	if err != nil {
		t.Fatal(err)
	}
	policy := synth.RandomPolicy
	if mode == "shortest" {
		policy = synth.ShortestPolicy
	}
	rec := &synth.Recorder{C: synth.NewRandom(seed)}
	gen := &synth.Generator{G: g, Chooser: rec, Policy: policy, MaxDepth: synth.DefaultMaxDepth, MaxRepeat: synth.DefaultMaxRepeat}
	var inputs []synth.Input
	for range n {
		rec.Choices = nil
		tree := gen.Generate()
		inputs = append(inputs, synth.Input{Tree: tree, Text: tree.String(), Choices: rec.Choices})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, in := range inputs {
		rec := struct {
			Input   *string `json:"input,omitempty"`
			Bytes   []byte  `json:"bytes,omitempty"`
			Choices []int   `json:"choices,omitempty"`
		}{}
		if utf8.ValidString(in.Text) {
			rec.Input = &in.Text
		} else {
			rec.Bytes = []byte(in.Text)
		}
		if choices {
			rec.Choices = in.Choices
		}
		enc.Encode(rec)
	}
	return b.String()
}

// TestGenerateStreams (issue 17, item 1): generation streams, and without
// --choices records no choices, with the same output byte for byte; the
// files of --out DIR hold the inputs --out - prints.
func TestGenerateStreams(t *testing.T) {
	dir := t.TempDir()
	ff := filepath.Join(dir, "ff.grammar")
	os.WriteFile(ff, []byte("S := \"a\\xff\" | \"b\" ;\n"), 0o644)
	for _, c := range []struct {
		grammar, mode string
		n             int
		seed          uint64
		choices       bool
	}{
		{"json", "random", 3000, 3, false},
		{"json", "random", 500, 4, true},
		{"json", "shortest", 200, 5, true},
		{"url", "random", 1000, 6, false},
		{"expr", "random", 1000, 7, true},
		{ff, "random", 50, 8, true},
	} {
		name := fmt.Sprintf("%s %s -n %d --seed %d choices=%v", filepath.Base(c.grammar), c.mode, c.n, c.seed, c.choices)
		args := []string{"generate", c.grammar, "--mode", c.mode, "-n", fmt.Sprint(c.n), "--seed", fmt.Sprint(c.seed)}
		if c.choices {
			args = append(args, "--choices")
		}
		stdout, errOut, code := runArbor(t, "", append(args, "--out", "-")...)
		if code != 0 {
			t.Fatalf("%s: %s", name, errOut)
		}
		if want := straightGenerate(t, c.grammar, c.mode, c.n, c.seed, c.choices); stdout != want {
			t.Errorf("%s: --out - differs from generating all, then writing", name)
		}

		folder := filepath.Join(dir, fmt.Sprintf("out%d", c.seed))
		if _, errOut, code := runArbor(t, "", append(args, "--out", folder)...); code != 0 {
			t.Fatalf("%s: %s", name, errOut)
		}
		var choices []byte
		if c.choices {
			var err error
			if choices, err = os.ReadFile(filepath.Join(folder, "choices.jsonl")); err != nil {
				t.Fatal(err)
			}
		}
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		manifest := strings.Split(strings.TrimSuffix(string(choices), "\n"), "\n")
		for i, line := range lines {
			var rec struct {
				Input   *string `json:"input"`
				Bytes   []byte  `json:"bytes"`
				Choices []int   `json:"choices"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			want := string(rec.Bytes)
			if rec.Input != nil {
				want = *rec.Input
			}
			file := corpus.Name(i, c.n, corpus.Extension(c.grammar))
			got, err := os.ReadFile(filepath.Join(folder, file))
			if err != nil || string(got) != want {
				t.Fatalf("%s: %s holds %q (%v), --out - printed %q", name, file, got, err, want)
			}
			if c.choices {
				b, _ := json.Marshal(struct {
					File    string `json:"file"`
					Choices []int  `json:"choices"`
				}{file, rec.Choices})
				if manifest[i] != string(b) {
					t.Fatalf("%s: choices.jsonl line %d is %s, want %s", name, i+1, manifest[i], b)
				}
			}
		}
	}
}

// TestPerInputCommandsInOrder: predict, kpaths and coverage work on many
// inputs at once and print what they print one input at a time, in the
// order of the files, errors included.
func TestPerInputCommandsInOrder(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if _, errOut, code := runArbor(t, "", "generate", "json", "-n", "400", "--seed", "11", "--out", corpus); code != 0 {
		t.Fatal(errOut)
	}
	// A made-up coverage file, so that a model is trained without
	// recording: "f.array" runs on inputs with an array, "f.string" on
	// those with a string.
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var cov bytes.Buffer
	enc := json.NewEncoder(&cov)
	enc.Encode(coverage.NewHeader("made-up", []string{"f.array", "f.string", "f.any"}))
	var files []string
	for _, e := range entries {
		p := filepath.Join(corpus, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		covered := []int{}
		if bytes.Contains(b, []byte("[")) {
			covered = append(covered, 0)
		}
		if bytes.Contains(b, []byte(`"`)) {
			covered = append(covered, 1)
		}
		covered = append(covered, 2)
		sum := sha256.Sum256(b)
		enc.Encode(coverage.Record{Input: e.Name(), SHA256: hex.EncodeToString(sum[:]), Covered: covered, Outcome: "ok"})
		files = append(files, p)
	}
	covFile := filepath.Join(dir, "cov.jsonl")
	os.WriteFile(covFile, cov.Bytes(), 0o644)
	model := filepath.Join(dir, "m.model.gz")
	if _, errOut, code := runArbor(t, "", "train", "--grammar", "json", "--inputs", corpus, "--coverage", covFile, "--out", model, "--cv", "0"); code != 0 {
		t.Fatal(errOut)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"k": }`), 0o644)
	// Bad inputs first, in the middle and last; standard input too.
	files = append(append([]string{bad}, files[:200]...), append([]string{bad, "-"}, append(files[200:], bad)...)...)
	const stdin = `[{"s": 1}]`

	for _, c := range []struct {
		name string
		args []string
	}{
		{"predict", []string{"predict", "--model", model}},
		{"predict --all --why", []string{"predict", "--model", model, "--all", "--why"}},
		{"predict --json", []string{"predict", "--model", model, "--json"}},
		{"kpaths", []string{"kpaths", "json", "--k", "2"}},
		{"kpaths --json", []string{"kpaths", "json", "--k", "3", "--json"}},
	} {
		stdout, errOut, code := runArbor(t, stdin, append(c.args, files...)...)
		// One input at a time, the straightforward way.
		var wantOut, wantErr strings.Builder
		for _, f := range files {
			o, e, _ := runArbor(t, stdin, append(c.args, f)...)
			wantOut.WriteString(o)
			// Each run ends with its count of failures.
			if i := strings.LastIndex(strings.TrimSuffix(e, "\n"), "\n"); i >= 0 {
				e = e[:i+1]
			} else if strings.Contains(e, " of 1 inputs") {
				e = ""
			}
			wantErr.WriteString(e)
		}
		if code != 1 {
			t.Errorf("%s: exit status %d, want 1", c.name, code)
		}
		if stdout != wantOut.String() {
			t.Errorf("%s: the output of all inputs at once differs from theirs one at a time", c.name)
		}
		if !strings.HasPrefix(errOut, wantErr.String()) || strings.Count(errOut, "\n") != strings.Count(wantErr.String(), "\n")+1 {
			t.Errorf("%s: errors\n%s\nwant\n%s", c.name, errOut, wantErr.String())
		}
	}

	// coverage against the k-paths of every input, added one at a time.
	os.WriteFile(filepath.Join(corpus, "zz-bad.json"), []byte(`{"k": }`), 0o644)
	stdout, errOut, code := runArbor(t, "", "coverage", "json", corpus, "--max-k", "3", "--json", "--missing", "0")
	if code != 0 {
		t.Fatal(errOut)
	}
	g, err := datasets.LoadGrammar("json")
	if err != nil {
		t.Fatal(err)
	}
	want := features.NewCoverage(g, 3)
	for _, f := range files {
		if f == bad || f == "-" {
			continue
		}
		b, _ := os.ReadFile(f)
		trees, err := g.ParseAll(b, grammar.DefaultTreeLimit)
		if err != nil {
			t.Fatal(err)
		}
		want.Add(trees...)
	}
	var got struct {
		Inputs   int `json:"inputs"`
		Rejected int `json:"rejected"`
		KPaths   map[string]struct {
			Covered int `json:"covered"`
		} `json:"kpaths"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Inputs != want.Inputs() || got.Rejected != 1 {
		t.Errorf("coverage: %d inputs, %d rejected; want %d and 1", got.Inputs, got.Rejected, want.Inputs())
	}
	for k := 1; k <= 3; k++ {
		if c := got.KPaths[fmt.Sprint(k)].Covered; c != want.Covered(k) {
			t.Errorf("coverage: %d %d-paths covered, want %d", c, k, want.Covered(k))
		}
	}
}
