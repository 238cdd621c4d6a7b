package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
)

func TestGoFuzzFlags(t *testing.T) {
	dir := t.TempDir()
	var tests []cliCase
	for _, args := range [][]string{
		{"generate", "json", "--out", dir},
		{"target", "--model", "nowhere.json.gz", "--function", "f", "--out", dir},
		{"rlcheck", "--example", "bst", "--trials", "1", "--out", dir},
	} {
		tests = append(tests,
			cliCase{name: args[0] + " no target", args: append(slices.Clone(args), "--format", "gofuzz"), code: exitUsage,
				stderr: []string{"--format gofuzz needs --fuzz-target FuzzX"}},
			cliCase{name: args[0] + " bad target", args: append(slices.Clone(args), "--format", "gofuzz", "--fuzz-target", "Fuzzjson"), code: exitUsage,
				stderr: []string{`--fuzz-target: "Fuzzjson" is not a fuzz target's name`}},
			cliCase{name: args[0] + " target without format", args: append(slices.Clone(args), "--fuzz-target", "FuzzJSON"), code: exitUsage,
				stderr: []string{"--fuzz-target goes with --format gofuzz"}},
			cliCase{name: args[0] + " bad format", args: append(slices.Clone(args), "--format", "zip"), code: exitUsage,
				stderr: []string{`--format must be raw or gofuzz, not "zip"`}},
		)
	}
	tests = append(tests,
		cliCase{name: "generate to stdout", args: []string{"generate", "json", "--format", "gofuzz", "--fuzz-target", "FuzzJSON"}, code: exitUsage,
			stderr: []string{"--format gofuzz writes files: give --out the Go package's folder"}},
		cliCase{name: "rlcheck without out", args: []string{"rlcheck", "--example", "bst", "--trials", "1", "--format", "gofuzz", "--fuzz-target", "FuzzBST"}, code: exitUsage,
			stderr: []string{"--format gofuzz writes files: give --out the Go package's folder"}},
	)
	runCases(t, tests)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused runs wrote %d files", len(entries))
	}
}

// goFuzzPackage writes a Go module with one package and its fuzz
// targets: FuzzJSON fails on an input that is not JSON, FuzzAny takes
// anything.
func goFuzzPackage(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"go.mod": "module example.com/fuzzme\n\ngo 1.24\n",
		"fuzz_test.go": `package fuzzme

import (
	"encoding/json"
	"testing"
)

func FuzzJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			t.Fatalf("not JSON: %q", data)
		}
	})
}

func FuzzAny(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {})
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoFuzzGoTest: generate, target and rlcheck write seed corpora that
// go test runs: every file they wrote is a passing subtest of its fuzz
// target, and FuzzJSON's check that each is JSON passes, so go test read
// the inputs, not the files.
func TestGoFuzzGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "fuzzme")
	os.MkdirAll(pkg, 0o755)
	goFuzzPackage(t, pkg)
	model := trainTinyModel(t, dir)
	gofuzz := func(target string) []string {
		return []string{"--format", "gofuzz", "--fuzz-target", target, "--out", pkg}
	}
	runCases(t, []cliCase{
		{name: "generate", args: append([]string{"generate", "json", "-n", "20", "--choices"}, gofuzz("FuzzJSON")...),
			stderr: []string{"20 inputs in " + corpus.GoFuzzDir(pkg, "FuzzJSON")}},
		{name: "generate kpath", args: append([]string{"generate", "json", "--mode", "kpath", "--k", "2"}, gofuzz("FuzzJSON")...)},
		{name: "target", args: append([]string{"target", "--model", model, "--function", "f.array", "--no-run", "-n", "3"}, gofuzz("FuzzJSON")...),
			stdout: []string{"asked for 3", "in " + corpus.GoFuzzDir(pkg, "FuzzJSON")}},
		{name: "rlcheck", args: append([]string{"rlcheck", "--grammar", "json", "--oracle-cmd", "true", "--trials", "30", "--max-depth", "6"}, gofuzz("FuzzAny")...)},
	})
	fuzzDir := filepath.Join(pkg, "testdata", "fuzz")
	want := map[string][]string{}
	for _, target := range []string{"FuzzJSON", "FuzzAny"} {
		files, err := corpus.List(filepath.Join(fuzzDir, target))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			content, _ := os.ReadFile(f)
			if !corpus.IsGoFuzz(content) || corpus.GoFuzzName(content) != filepath.Base(f) {
				t.Errorf("%s is not a Go corpus file named as Go names it:\n%s", f, content)
			}
			want[target] = append(want[target], filepath.Base(f))
		}
	}
	if len(want["FuzzJSON"]) < 21 || len(want["FuzzAny"]) == 0 {
		t.Fatalf("seed corpora: %d files for FuzzJSON, %d for FuzzAny", len(want["FuzzJSON"]), len(want["FuzzAny"]))
	}
	// The side files sit beside the corpus folders and name their files.
	for _, side := range []string{"FuzzJSON.choices.jsonl", "FuzzJSON.manifest.jsonl"} {
		b, err := os.ReadFile(filepath.Join(fuzzDir, side))
		if err != nil {
			t.Fatal(err)
		}
		var line struct{ File, Function string }
		if err := json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &line); err != nil || !slices.Contains(want["FuzzJSON"], line.File) {
			t.Errorf("%s: first line names %q (%v)", side, line.File, err)
		}
		if side == "FuzzJSON.manifest.jsonl" && line.Function != "f.array" {
			t.Errorf("%s: function %q", side, line.Function)
		}
	}
	cmd := exec.Command("go", "test", "-run", "^(FuzzJSON|FuzzAny)$", "-v", ".")
	cmd.Dir = pkg
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	passed := map[string]bool{}
	for _, m := range regexp.MustCompile(`--- PASS: (Fuzz\w+)/(\w+)`).FindAllStringSubmatch(string(out), -1) {
		passed[m[1]+"/"+m[2]] = true
	}
	for target, names := range want {
		for _, name := range names {
			if !passed[target+"/"+name] {
				t.Errorf("go test did not run %s/%s:\n%s", target, name, out)
			}
		}
	}
}

// TestGoFuzzCorpusEverywhere: a Go seed corpus folder is a corpus for
// every command that reads inputs, which read the inputs it holds.
func TestGoFuzzCorpusEverywhere(t *testing.T) {
	dir := t.TempDir()
	folder := corpus.GoFuzzDir(dir, "FuzzJSON")
	inputs := []string{`[1]`, `{"a": 1}`, `[{"b": [2]}]`, `"s"`, `{"c": [true]}`, `null`, `[[]]`, `{"d": {"e": 3}}`, `[]`, `12`}
	var cov bytes.Buffer
	enc := json.NewEncoder(&cov)
	enc.Encode(coverage.NewHeader("made-up", []string{"f.array", "f.any"}))
	var files []string
	for _, in := range inputs {
		p, err := corpus.WriteGoFuzz(folder, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
		covered := []int{1}
		if strings.Contains(in, "[") {
			covered = []int{0, 1}
		}
		sum := sha256.Sum256([]byte(in))
		enc.Encode(coverage.Record{Input: filepath.Base(p), SHA256: hex.EncodeToString(sum[:]), Covered: covered, Outcome: "ok"})
	}
	covFile := filepath.Join(dir, "made-up.cov.jsonl")
	os.WriteFile(covFile, cov.Bytes(), 0o644)
	model := filepath.Join(dir, "m.model.gz")
	arrayFile := files[slices.Index(inputs, `[{"b": [2]}]`)]
	runCases(t, []cliCase{
		{name: "coverage", args: []string{"coverage", "json", folder, "--max-k", "1"}, stdout: []string{"10 inputs parsed, 0 rejected"}},
		{name: "parse", args: []string{"parse", "json", arrayFile}, stdout: []string{`"b"`}},
		{name: "kpaths", args: []string{"kpaths", "json", arrayFile, "--k", "1"}, stdout: []string{"== " + arrayFile}},
		{name: "train", args: []string{"train", "--grammar", "json", "--inputs", folder, "--coverage", covFile, "--out", model, "--cv", "0"},
			stdout: []string{"on 10 inputs"}},
		{name: "predict", args: []string{"predict", "--model", model, arrayFile}, stdout: []string{"f.array"}},
	})
	bad := filepath.Join(folder, "bad")
	os.WriteFile(bad, []byte(corpus.GoFuzzHeader+"\nstring(\"[1]\")\n"), 0o644)
	runCases(t, []cliCase{
		{name: "a value of another type", args: []string{"parse", "json", bad}, code: 1, stderr: []string{bad + ":2: a string value"}},
	})
	if testing.Short() {
		return
	}
	os.Remove(bad)
	out := filepath.Join(dir, "cov.jsonl")
	runCases(t, []cliCase{
		{name: "record", args: []string{"record", "--subject", "json", "--inputs", folder, "--out", out}, stdout: []string{"10 inputs recorded now", "outcomes: ok 10, error 0"}},
	})
	f, err := coverage.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Records {
		if r.Outcome != "ok" {
			t.Errorf("record: %s: outcome %s (the file, not the input, was run?)", r.Input, r.Outcome)
		}
	}
}
