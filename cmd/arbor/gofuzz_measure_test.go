package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/synth"
)

// The measurement of docs/gofuzz.md: Go's fuzzer on raw bytes against
// the same fuzzer on bytes made grammar-aware by synth.ByteGenerator. It
// takes minutes, so it runs only when asked for:
//
//	go test ./cmd/arbor -run '^TestGoFuzzMeasure$' -v -timeout 2h -args -gofuzz.measure [-gofuzz.subjects json,url,xml] [-gofuzz.time 60s] [-gofuzz.reps 3] [-gofuzz.minimizetime 0] [-gofuzz.out DIR]
var (
	measure         = flag.Bool("gofuzz.measure", false, "run TestGoFuzzMeasure: go test -fuzz on raw and grammar-aware targets")
	measureSubjects = flag.String("gofuzz.subjects", "json,url,xml", "bundled subjects to measure")
	measureTime     = flag.Duration("gofuzz.time", 60*time.Second, "fuzzing time per target and repetition")
	measureReps     = flag.Int("gofuzz.reps", 3, "repetitions")
	measureOut      = flag.String("gofuzz.out", "", "folder for the corpora, coverage files and results (default: a temporary folder, kept)")
	measureParallel = flag.Int("gofuzz.parallel", 1, "fuzzing workers (go test -parallel)")
	measureMinimize = flag.String("gofuzz.minimizetime", "0", "go test -fuzzminimizetime: 0 turns minimization of new inputs off (Go's default, 60s, can stall a lone worker for most of a run)")
)

// fuzzRun is one go test -fuzz run and what its corpus covered.
type fuzzRun struct {
	Subject   string   `json:"subject"`
	Target    string   `json:"target"` // raw or grammar
	Rep       int      `json:"rep"`
	Execs     int64    `json:"execs"`
	Corpus    int      `json:"corpus"`  // entries the fuzzer kept
	Valid     int      `json:"valid"`   // of them, inputs the subject ran to the end without error
	Covered   []string `json:"covered"` // functions of the subject's packages
	Functions int      `json:"functions"`
}

const fuzzTemplate = `package fz

import (
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/synth"
	subject "%s"
)

// run runs the subject; a panic is a finding, not the end of fuzzing.
func run(data []byte) {
	defer func() { recover() }()
	subject.%s(data)
}

func FuzzRaw(f *testing.F) {
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) { run(data) })
}

func FuzzGrammar(f *testing.F) {
	g, err := datasets.Grammar(%q)
	if err != nil {
		f.Fatal(err)
	}
	gen := synth.NewByteGenerator(g)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) { run(gen.FromBytes(data)) })
}
`

func TestGoFuzzMeasure(t *testing.T) {
	if !*measure {
		t.Skip("runs go test -fuzz for minutes: -args -gofuzz.measure")
	}
	ctx := context.Background()
	out := *measureOut
	if out == "" {
		var err error
		if out, err = os.MkdirTemp("", "arbor-gofuzz-"); err != nil {
			t.Fatal(err)
		}
	}
	out, _ = filepath.Abs(out)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// A workspace joins a module of fuzz targets to this checkout and to
	// its subjects module, so the targets import both as they are here.
	work := filepath.Join(out, "work")
	modPath := fmt.Sprintf("arborgofuzz%d.example", time.Now().UnixNano())
	version := strings.TrimPrefix(goOutput(t, out, "env", "GOVERSION"), "go")
	if i := strings.IndexAny(version, " -+"); i >= 0 {
		version = version[:i]
	}
	writeFile(t, filepath.Join(work, "go.work"), fmt.Appendf(nil, "go %s\n\nuse (\n\t./fz\n\t%q\n\t%q\n)\n", version, repo, filepath.Join(repo, "datasets", "subjects")))
	writeFile(t, filepath.Join(work, "fz", "go.mod"), fmt.Appendf(nil, "module %s\n\ngo %s\n", modPath, version))
	subjects := strings.Split(*measureSubjects, ",")
	for _, name := range subjects {
		s, err := datasets.LookupSubject(name)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(work, "fz", name, "fuzz_test.go"), fmt.Appendf(nil, fuzzTemplate, s.Package, s.Func, s.Grammar))
	}
	fuzzCache := filepath.Join(goOutput(t, work, "env", "GOCACHE"), "fuzz", modPath)
	defer os.RemoveAll(fuzzCache)

	var runs []fuzzRun
	for rep := 1; rep <= *measureReps; rep++ {
		for _, name := range subjects {
			targets := []string{"raw", "grammar"}
			if rep%2 == 0 { // interleaved: neither goes first every time
				slices.Reverse(targets)
			}
			for _, target := range targets {
				r := fuzzOnce(t, ctx, work, fuzzCache, modPath, out, name, target, rep)
				t.Logf("%s %s rep %d: %d execs, %d corpus entries (%d ran without error), %d of %d functions",
					name, target, rep, r.Execs, r.Corpus, r.Valid, len(r.Covered), r.Functions)
				runs = append(runs, r)
				b, _ := json.MarshalIndent(runs, "", "  ")
				writeFile(t, filepath.Join(out, "runs.json"), b)
			}
		}
	}
	report := measureReport(runs, subjects)
	writeFile(t, filepath.Join(out, "report.md"), []byte(report))
	t.Logf("results in %s\n%s", out, report)
}

// fuzzOnce runs go test -fuzz on one target, then records the subject on
// the inputs of its final corpus: the entries themselves for raw, the
// inputs the generator makes of them for grammar.
func fuzzOnce(t *testing.T, ctx context.Context, work, fuzzCache, modPath, out, subject, target string, rep int) fuzzRun {
	t.Helper()
	fn := map[string]string{"raw": "FuzzRaw", "grammar": "FuzzGrammar"}[target]
	cache := filepath.Join(fuzzCache, subject, fn)
	os.RemoveAll(cache)
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-fuzz", "^"+fn+"$", "-fuzztime", measureTime.String(),
		"-fuzzminimizetime", *measureMinimize, "-parallel", strconv.Itoa(*measureParallel), "./"+subject)
	cmd.Dir = filepath.Join(work, "fz")
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(work, "go.work"))
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: go test -fuzz: %v\n%s", subject, target, err, log)
	}
	r := fuzzRun{Subject: subject, Target: target, Rep: rep}
	if m := regexp.MustCompile(`execs: (\d+)`).FindAllSubmatch(log, -1); len(m) > 0 {
		r.Execs, _ = strconv.ParseInt(string(m[len(m)-1][1]), 10, 64)
	}
	dir := filepath.Join(out, subject, fmt.Sprintf("%s-%d", target, rep))
	writeFile(t, filepath.Join(dir, "fuzz.log"), log)
	saved := filepath.Join(dir, "corpus") // the fuzzer's entries, in Go's format
	if err := os.CopyFS(saved, os.DirFS(cache)); err != nil {
		t.Fatalf("%s %s: the fuzzer's corpus: %v", subject, target, err)
	}
	writeFile(t, filepath.Join(saved, "seed"), corpus.EncodeGoFuzz(nil)) // f.Add([]byte{})
	inputs := saved
	if target == "grammar" {
		g, err := datasets.Grammar(mustSubject(t, subject).Grammar)
		if err != nil {
			t.Fatal(err)
		}
		gen := synth.NewByteGenerator(g)
		inputs = filepath.Join(dir, "inputs")
		files, err := corpus.List(saved)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := corpus.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(inputs, filepath.Base(f)), gen.FromBytes(data))
		}
	}
	files, _ := corpus.List(saved)
	r.Corpus = len(files)
	covFile := filepath.Join(dir, "cov.jsonl")
	if _, errOut, code := runArbor(t, "", "record", "--subject", subject, "--inputs", inputs, "--out", covFile); code != 0 {
		t.Fatalf("%s %s: record: %s", subject, target, errOut)
	}
	f, err := coverage.ReadFile(covFile)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[int]bool{}
	for _, rec := range f.Records {
		for _, id := range rec.Covered {
			covered[id] = true
		}
		if rec.Outcome == coverage.OK {
			r.Valid++
		}
	}
	for id := range covered {
		r.Covered = append(r.Covered, f.Functions[id])
	}
	slices.Sort(r.Covered)
	r.Functions = len(f.Functions)
	return r
}

// measureReport is the table of docs/gofuzz.md: per subject, the median
// (min-max) functions, executions and corpus sizes of each target, and
// the functions one target reached in some repetition and the other in
// none.
func measureReport(runs []fuzzRun, subjects []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| subject | target | functions, median (min-max) | executions, median | corpus entries, median | ran without error, median |\n|---|---|---|---|---|---|\n")
	type key struct{ subject, target string }
	reached := map[key]map[string]int{}
	for _, s := range subjects {
		for _, target := range []string{"raw", "grammar"} {
			var fns, execs, sizes, valid []int
			k := key{s, target}
			reached[k] = map[string]int{}
			total := 0
			for _, r := range runs {
				if r.Subject == s && r.Target == target {
					fns = append(fns, len(r.Covered))
					execs = append(execs, int(r.Execs))
					sizes = append(sizes, r.Corpus)
					valid = append(valid, r.Valid)
					total = r.Functions
					for _, fn := range r.Covered {
						reached[k][fn]++
					}
				}
			}
			if len(fns) == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %d (%d-%d) of %d | %d | %d | %d |\n", s, target, medianInt(fns), slices.Min(fns), slices.Max(fns), total,
				medianInt(execs), medianInt(sizes), medianInt(valid))
		}
	}
	for _, s := range subjects {
		for _, pair := range [][2]string{{"grammar", "raw"}, {"raw", "grammar"}} {
			var only []string
			for fn, n := range reached[key{s, pair[0]}] {
				if reached[key{s, pair[1]}][fn] == 0 {
					only = append(only, fmt.Sprintf("%s (%d)", fn, n))
				}
			}
			slices.SortFunc(only, func(a, b string) int { return cmp.Compare(a, b) })
			fmt.Fprintf(&b, "\n%s: %d functions reached by %s in some repetition and by %s in none (in how many repetitions):\n", s, len(only), pair[0], pair[1])
			for _, o := range only {
				fmt.Fprintf(&b, "- %s\n", o)
			}
		}
	}
	return b.String()
}

func medianInt(xs []int) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func mustSubject(t *testing.T, name string) datasets.Subject {
	t.Helper()
	s, err := datasets.LookupSubject(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func goOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(b))
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
