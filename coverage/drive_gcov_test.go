//go:build linux

package coverage

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// driveCalc is a small C program: it evaluates the arithmetic
// expression in the file argv[1], exits 2 on a syntax error, aborts on
// "!" (a crash: libgcov writes no data), and 4 on a division by zero.
// lib/num.c has functions of its own, one never called.
var driveCalc = map[string]string{
	"calc.c": `#include <stdio.h>
#include <stdlib.h>
#include "lib/num.h"
static const char *p;
static long expr(void);
static void skip(void) { while (*p == ' ') p++; }
static void fail(void) { exit(2); }
static long factor(void) {
	skip();
	if (*p == '(') { p++; long v = expr(); skip(); if (*p++ != ')') fail(); return v; }
	if (*p == '-') { p++; return -factor(); }
	if (*p == '!') abort();
	if (!is_digit(*p)) fail();
	return number(&p);
}
static long term(void) {
	long v = factor();
	for (;;) {
		skip();
		if (*p == '*') { p++; v *= factor(); }
		else if (*p == '/') { p++; long d = factor(); if (d == 0) exit(4); v /= d; }
		else return v;
	}
}
static long expr(void) {
	long v = term();
	for (;;) {
		skip();
		if (*p == '+') { p++; v += term(); }
		else if (*p == '-') { p++; v -= term(); }
		else return v;
	}
}
int main(int argc, char **argv) {
	static char buf[4096];
	FILE *f = fopen(argv[1], "rb");
	if (f == NULL) return 3;
	buf[fread(buf, 1, sizeof buf - 1, f)] = 0;
	fclose(f);
	p = buf;
	long v = expr();
	skip();
	if (*p != 0 && *p != '\n') fail();
	printf("%ld\n", v);
	return 0;
}
`,
	"lib/num.h": "int is_digit(char c);\nlong number(const char **p);\nint unused(int x);\n",
	"lib/num.c": `#include "num.h"
int is_digit(char c) { return c >= '0' && c <= '9'; }
long number(const char **p) {
	long v = 0;
	while (is_digit(**p)) v = v * 10 + *(*p)++ - '0';
	return v;
}
int unused(int x) { return x * 2; }
`,
}

// buildDriveCalc compiles driveCalc with gcc --coverage in a folder of
// its own, each source to an object first (so that the notes files sit
// in two folders, as in a real build), and returns the folder.
func buildDriveCalc(t testing.TB, coverage bool) string {
	t.Helper()
	testenv.NeedTool(t, "gcc", "apt-get install gcc")
	dir := t.TempDir()
	for name, src := range driveCalc {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	flags := []string{"-O0"}
	if coverage {
		flags = append(flags, "--coverage")
	}
	for _, step := range [][]string{
		append(slices.Clone(flags), "-c", "-o", "calc.o", "calc.c"),
		append(slices.Clone(flags), "-c", "-o", "lib/num.o", "lib/num.c"),
		append(slices.Clone(flags), "-o", "calc", "calc.o", "lib/num.o"),
	} {
		gcc := exec.Command("gcc", step...)
		gcc.Dir = dir
		if out, err := gcc.CombinedOutput(); err != nil {
			t.Fatalf("gcc %s: %v\n%s", strings.Join(step, " "), err, out)
		}
	}
	return dir
}

// gcovRecipe is the hand-written command line of docs/recording.md for
// driveCalc, in a shell: the data of both objects lands in the run's
// folder with the build folder's path stripped, beside copies of the
// notes, where gcov runs.
func gcovRecipe(build string) []string {
	strip := strconv.Itoa(strings.Count(filepath.Clean(build), string(filepath.Separator)))
	script := `GCOV_PREFIX="$ARBOR_RUN_DIR" GCOV_PREFIX_STRIP=` + strip + ` "$0/calc" "$1"; s=$?
cp "$0"/*.gcno "$ARBOR_RUN_DIR"/ && cp "$0"/lib/*.gcno "$ARBOR_RUN_DIR"/lib/ 2>/dev/null
cd "$ARBOR_RUN_DIR" && gcov --json-format *.gcda lib/*.gcda >/dev/null 2>&1
exit $s`
	return []string{"sh", "-c", script, build, "{}"}
}

// lcovRecipe makes lcov's own tracefile of a run, with geninfo.
func lcovRecipe(build string) []string {
	strip := strconv.Itoa(strings.Count(filepath.Clean(build), string(filepath.Separator)))
	script := `GCOV_PREFIX="$ARBOR_RUN_DIR/d" GCOV_PREFIX_STRIP=` + strip + ` "$0/calc" "$1"; s=$?
cp "$0"/*.gcno "$ARBOR_RUN_DIR"/d/ && cp "$0"/lib/*.gcno "$ARBOR_RUN_DIR"/d/lib/ 2>/dev/null
lcov --quiet --capture --directory "$ARBOR_RUN_DIR/d" --base-directory "$0" --output-file "$ARBOR_RUN_DIR/run.info" >/dev/null 2>&1
exit $s`
	return []string{"sh", "-c", script, build, "{}"}
}

var driveCalcInputs = []string{"1+2", "  7 ", "(1+2)*3", "-4/2", "8/0", "1+", "x", "!", "((2))", "3*(4-5)/-1", "", "12 34"}

// label is what a recording says of one input, by function name.
type driveLabel struct {
	outcome Outcome
	funcs   string // covered functions with their counts
}

func (l driveLabel) String() string { return string(l.outcome) + " " + l.funcs }

// driveRun runs one input and labels it with the run's report.
func driveRun(t testing.TB, c *Command, rr *ReportReader, input string) driveLabel {
	t.Helper()
	run, cov, err := runAndRead(context.Background(), c, rr, []byte(input))
	if err != nil {
		t.Fatalf("%q: %v", input, err)
	}
	defer run.Close()
	var fs []string
	for _, f := range cov.Covered() {
		fs = append(fs, fmt.Sprintf("%s=%d", f.Name, f.Hits))
	}
	return driveLabel{run.Outcome, strings.Join(fs, " ")}
}

// TestGcovDriven: a program built with gcc --coverage, given as the
// program and its input alone, is recorded with arbor running gcov
// (and, for --report lcov, making lcov's tracefile from its output),
// and every input gets the labels of the hand-written recipe: the same
// outcome, the same functions, the same counts.
func TestGcovDriven(t *testing.T) {
	testenv.NeedTool(t, "gcov", "apt-get install gcc")
	build := buildDriveCalc(t, true)
	for _, tt := range []struct {
		format string
		recipe []string
		tool   string
	}{
		{"gcov", gcovRecipe(build), ""},
		{"lcov", lcovRecipe(build), "lcov"},
	} {
		t.Run(tt.format, func(t *testing.T) {
			if tt.tool != "" {
				testenv.NeedTool(t, tt.tool, "apt-get install "+tt.tool)
			}
			rr, err := NewReportReader(tt.format, build)
			if err != nil {
				t.Fatal(err)
			}
			rr.Dir = build
			recipe := &Command{Argv: tt.recipe, Dir: build, Reject: []int{2, 4}, Timeout: 20 * time.Second}
			driven := &Command{Argv: []string{"./calc", "{}"}, Dir: build, Reject: []int{2, 4}, Timeout: 20 * time.Second}
			for _, c := range []*Command{recipe, driven} {
				if err := c.drive(context.Background(), tt.format); err != nil {
					t.Fatal(err)
				}
			}
			if recipe.driver != nil || driven.driver == nil {
				t.Fatalf("driven: recipe %v, program %v; want the program alone driven", recipe.driver != nil, driven.driver != nil)
			}
			want := map[string]string{
				"1+2": "ok calc.c:expr=1 calc.c:factor=2 calc.c:main=1 calc.c:skip=7 calc.c:term=2 lib/num.c:is_digit=6 lib/num.c:number=2",
				"x":   "error calc.c:expr=1 calc.c:factor=1 calc.c:fail=1 calc.c:main=1 calc.c:skip=1 calc.c:term=1 lib/num.c:is_digit=1",
			}
			for _, in := range driveCalcInputs {
				a, b := driveRun(t, recipe, rr, in), driveRun(t, driven, rr, in)
				if a != b {
					t.Errorf("%q: recipe %s\n\tdriven %s", in, a, b)
				}
				if w, ok := want[in]; ok && b.String() != w {
					t.Errorf("%q: %s, want %s", in, b, w)
				}
				if in == "!" && (b.outcome != Panic || b.funcs != "") {
					t.Errorf("%q: %s, want a crash with no coverage", in, b)
				}
			}
		})
	}
}

// TestGcovDrivenSession: a command target is driven in a Session too,
// as target --verify, eval and rlcheck run it.
func TestGcovDrivenSession(t *testing.T) {
	testenv.NeedTool(t, "gcov", "apt-get install gcc")
	build := buildDriveCalc(t, true)
	bin, err := Build(context.Background(), Target{Command: &CommandTarget{Argv: []string{"./calc", "{}"}, Dir: build, Coverage: "gcov", Root: build, Reject: []int{2, 4}}}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(bin, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := []string{"calc.c:expr", "calc.c:factor", "calc.c:fail", "calc.c:main", "calc.c:skip", "calc.c:term", "lib/num.c:is_digit", "lib/num.c:number", "lib/num.c:unused"}
	if !slices.Equal(s.Funcs.Names, want) {
		t.Fatalf("functions %q, want %q", s.Funcs.Names, want)
	}
	r, err := s.Record([]byte("x"), 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range r.Covered {
		got = append(got, s.Funcs.Names[id])
	}
	if r.Outcome != Error || !slices.Equal(got, []string{"calc.c:expr", "calc.c:factor", "calc.c:fail", "calc.c:main", "calc.c:skip", "calc.c:term", "lib/num.c:is_digit"}) {
		t.Errorf("x: %s %q", r.Outcome, got)
	}
}

// TestGcovDrivenErrors: what arbor cannot drive is said at once, naming
// what is missing.
func TestGcovDrivenErrors(t *testing.T) {
	testenv.NeedTool(t, "gcov", "apt-get install gcc")
	covered := buildDriveCalc(t, true)
	plain := buildDriveCalc(t, false)
	noNotes := buildDriveCalc(t, true)
	os.Remove(filepath.Join(noNotes, "lib", "num.gcno"))
	empty := t.TempDir()
	for _, tt := range []struct {
		name  string
		dir   string
		path  string // PATH while the driver is set up ("" keeps it)
		setup string // the error of setting up, or ""
		run   string // the error of the first run, or ""
	}{
		{"not built with --coverage", plain, "", "", "calc names no .gcda file: it is not built with gcc --coverage"},
		{"notes missing", noNotes, "", "notes file " + filepath.Join(noNotes, "lib", "num.gcno") + " is missing", ""},
		{"no gcov", covered, empty, "--report gcov: gcov not found on PATH (Debian: apt-get install gcc)", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path != "" {
				t.Setenv("PATH", tt.path)
			}
			rr, _ := NewReportReader("gcov", tt.dir)
			c := &Command{Argv: []string{filepath.Join(tt.dir, "calc"), "{}"}, Timeout: 20 * time.Second}
			_, files := writeInputs(t, map[string]string{"1": "1+2"})
			_, err := RecordCommand(context.Background(), c, rr, files, filepath.Join(t.TempDir(), "c.jsonl"), Options{})
			want := tt.setup + tt.run
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("got %v, want an error with %q", err, want)
			}
		})
	}
}

var gcovMeasure = flag.Bool("gcov.measure", false, "measure TestGcovMeasure: time per input of a gcov-recorded C program, recipe against driven")

// TestGcovMeasure measures the time per input of recording driveCalc
// through gcov, with the hand-written recipe and with arbor running gcov
// itself, interleaved in one session over the same corpus: the median
// per input of each of -gcov.passes passes, and the median over passes.
// It checks that both label every input alike. Run with
// go test ./coverage -run TestGcovMeasure -v -args -gcov.measure.
func TestGcovMeasure(t *testing.T) {
	if !*gcovMeasure {
		t.Skip("a measurement: run with -args -gcov.measure")
	}
	testenv.NeedTool(t, "gcov", "apt-get install gcc")
	build := buildDriveCalc(t, true)
	rng := rand.New(rand.NewSource(1))
	var corpus []string
	for range 200 {
		corpus = append(corpus, randomExpr(rng, 3))
	}
	rr, _ := NewReportReader("gcov", build)
	rr.Dir = build
	recipe := &Command{Argv: gcovRecipe(build), Dir: build, Reject: []int{2, 4}, Timeout: 20 * time.Second}
	driven := &Command{Argv: []string{"./calc", "{}"}, Dir: build, Reject: []int{2, 4}, Timeout: 20 * time.Second}
	if err := driven.drive(context.Background(), "gcov"); err != nil {
		t.Fatal(err)
	}
	const passes = 5
	var medians [2][]time.Duration
	labels := [2][]driveLabel{}
	for pass := range passes {
		// Each input runs both ways, one after the other, the first way
		// alternating, so that the machine's load falls on both alike.
		var times [2][]time.Duration
		for j, in := range corpus {
			for k := range 2 {
				i := (j + pass + k) % 2
				c := []*Command{recipe, driven}[i]
				start := time.Now()
				l := driveRun(t, c, rr, in)
				times[i] = append(times[i], time.Since(start))
				if pass == 0 {
					labels[i] = append(labels[i], l)
				}
			}
		}
		for i := range 2 {
			medians[i] = append(medians[i], medianTime(times[i]))
		}
	}
	same := 0
	for i := range corpus {
		if labels[0][i] == labels[1][i] {
			same++
		} else {
			t.Errorf("%q: recipe %s, driven %s", corpus[i], labels[0][i], labels[1][i])
		}
	}
	t.Logf("%d inputs, %d passes, interleaved; medians per input by pass:", len(corpus), passes)
	t.Logf("recipe (sh -c, gcov writes .gcov.json.gz): %v; median %v", medians[0], medianTime(medians[0]))
	t.Logf("driven (arbor runs gcov --stdout):          %v; median %v", medians[1], medianTime(medians[1]))
	t.Logf("labels identical: %d of %d", same, len(corpus))
}

// medianTime is the median of ds (the upper one of an even count).
func medianTime(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// randomExpr is a random arithmetic expression of driveCalc's language,
// now and then broken.
func randomExpr(rng *rand.Rand, depth int) string {
	switch r := rng.Intn(10); {
	case depth == 0 || r < 3:
		return strconv.Itoa(rng.Intn(100))
	case r < 5:
		return "(" + randomExpr(rng, depth-1) + ")"
	case r == 5:
		return "-" + randomExpr(rng, depth-1)
	case r == 6 && rng.Intn(4) == 0:
		return randomExpr(rng, depth-1) + string("+x!"[rng.Intn(3)])
	default:
		return randomExpr(rng, depth-1) + " " + string("+-*/"[rng.Intn(4)]) + " " + randomExpr(rng, depth-1)
	}
}
