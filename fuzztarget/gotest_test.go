package fuzztarget_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/fuzztarget"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestGoTest: the package Write makes builds and runs under go test, its
// seeds as subtests and under -fuzz, and its ossfuzz.sh, run as
// ClusterFuzzLite's build.sh runs it (from the module's root, with
// OSS-Fuzz's compile_native_go_fuzzer and zip stood in for by scripts
// that build the package's test binary and copy the folder), packs the
// seeds as raw bytes that make the seed inputs again.
func TestGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and fuzzes a Go module")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("ossfuzz.sh needs bash")
	}
	mod := module(t)
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// The module imports this checkout of arbor through a workspace.
	work := filepath.Join(filepath.Dir(mod), "go.work")
	write(t, work, fmt.Sprintf("go %s\n\nuse (\n\t./m\n\t%q\n)\n", goVersion(t), repo))
	dir := filepath.Join(mod, "fuzz", "decode")
	res, err := fuzztarget.Write(context.Background(), fuzztarget.Config{Dir: dir, Func: "example.com/m/decoder.Decode",
		Target: "FuzzDecode", Grammar: jsonGrammar(t), GrammarName: "json", Seeds: seeds})
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOWORK="+work)
	run := func(dir string, extra []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(slices.Clone(env), extra...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	out := run(dir, nil, "go", "test", "-run", "^FuzzDecode$", "-v", ".")
	if n := len(regexp.MustCompile(`--- PASS: FuzzDecode/\w+`).FindAllString(out, -1)); n != res.Seeds {
		t.Errorf("go test ran %d seeds, want %d:\n%s", n, res.Seeds, out)
	}
	out = run(dir, nil, "go", "test", "-run", "^$", "-fuzz", "^FuzzDecode$", "-fuzztime", "300x", "-parallel", "1", ".")
	if !strings.Contains(out, "fuzz: elapsed") || !strings.Contains(out, "ok ") {
		t.Errorf("go test -fuzz did not fuzz:\n%s", out)
	}

	// A target of a grammar with where clauses builds, fuzzes, and its
	// generator keeps them: a test of our own, put into the package,
	// checks the inputs it makes of random bytes.
	cron := filepath.Join(mod, "fuzz", "cron")
	ast, _, err := datasets.ImportGrammar("cron", datasets.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cres, err := fuzztarget.Write(context.Background(), fuzztarget.Config{Dir: cron, Func: "example.com/m/decoder.Decode",
		Target: "FuzzCron", Grammar: ast, GrammarName: "cron"})
	if err != nil || !cres.Applied || cres.Clauses != 6 {
		t.Fatalf("cron target: %v, %+v", err, cres)
	}
	write(t, filepath.Join(cron, "keeps_test.go"), `package cron

import (
	"math/rand/v2"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar/load"
)

func TestKeepsClauses(t *testing.T) {
	ast, warnings, err := load.Source("cron.grammar", grammarSource, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := load.Build(ast, warnings)
	if err != nil {
		t.Fatal(err)
	}
	set, err := constraint.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	check := constraint.NewChecker(set)
	gen := newGenerator()
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 100; i++ {
		data := make([]byte, r.IntN(64))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		in := gen.FromBytes(data)
		tree, err := g.Parse(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if vs := check.Check(tree); len(vs) > 0 {
			t.Errorf("%q breaks %v", in, vs[0])
		}
	}
}
`)
	run(cron, nil, "go", "test", "-run", "^TestKeepsClauses$", ".")
	run(cron, nil, "go", "test", "-run", "^$", "-fuzz", "^FuzzCron$", "-fuzztime", "100x", "-parallel", "1", ".")

	// ossfuzz.sh, with stand-ins for the tools of OSS-Fuzz's builder.
	bin, outDir, workDir := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(bin, "compile_native_go_fuzzer"), `#!/bin/bash -eu
echo "$@" >> "$OUT/compile.args"
go test -c -o "$OUT/$3" "$1"
`)
	write(t, filepath.Join(bin, "zip"), `#!/bin/bash -eu
# zip -q -r ARCHIVE . : copy the folder instead
mkdir -p "$3.d" && cp -r . "$3.d"
`)
	for _, f := range []string{"compile_native_go_fuzzer", "zip"} {
		os.Chmod(filepath.Join(bin, f), 0o755)
	}
	run(mod, []string{"OUT=" + outDir, "WORK=" + workDir, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")},
		bash, "-eu", ".clusterfuzzlite/build.sh")
	args, _ := os.ReadFile(filepath.Join(outDir, "compile.args"))
	if got, want := strings.TrimSpace(string(args)), "example.com/m/fuzz/decode FuzzDecode "+res.Fuzzer+"\nexample.com/m/fuzz/cron FuzzCron "+cres.Fuzzer; got != want {
		t.Errorf("compile_native_go_fuzzer called with\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(outDir, res.Fuzzer)); err != nil {
		t.Errorf("no fuzzer binary: %v", err)
	}
	raw, err := os.ReadDir(filepath.Join(outDir, res.Fuzzer+"_seed_corpus.zip.d"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := datasets.Grammar("json")
	if err != nil {
		t.Fatal(err)
	}
	gen := synth.NewByteGenerator(g)
	var got []string
	for _, e := range raw {
		b, err := os.ReadFile(filepath.Join(outDir, res.Fuzzer+"_seed_corpus.zip.d", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(gen.FromBytes(b)))
	}
	slices.Sort(got)
	if want := []string{`[true,false]`, `{"a":[1,2,{"b":null}]}`}; !slices.Equal(got, want) {
		t.Errorf("the packed seeds make %q, want %q", got, want)
	}
}
