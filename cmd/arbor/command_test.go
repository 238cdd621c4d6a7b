//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// TestRecordCmdGcov (issue 16): a C program built with gcc --coverage,
// recorded with record --cmd and --report gcov, through the real gcc and
// gcov. Each run's .gcda goes to its own folder (GCOV_PREFIX), where gcov
// --json-format turns it into the report arbor reads.
func TestRecordCmdGcov(t *testing.T) {
	dir, line := gcovProgram(t)
	inputs := filepath.Join(dir, "inputs")
	for name, text := range map[string]string{"a": "123", "b": "abc", "c": "+", "d": "xyz", "e": "42"} {
		writeInput(t, inputs, name, []byte(text))
	}
	out := filepath.Join(dir, "cov.jsonl")
	stdout, errOut, code := runArbor(t, "", "record", "--cmd", line, "--report", "gcov", "--source-root", dir, "--inputs", inputs, "--out", out, "--json", "--timeout", "20s")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var sum map[string]any
	json.Unmarshal([]byte(stdout), &sum)
	if sum["recorded"] != 5.0 {
		t.Errorf("summary %v", sum)
	}
	f, err := coverage.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "ok main,number", "b": "ok main,word", "c": "ok main,other", "d": "error main", "e": "ok main,number"}
	for _, r := range f.Records {
		var names []string
		for _, id := range r.Covered {
			names = append(names, strings.TrimPrefix(f.Functions[id], "prog.c:"))
		}
		got := string(r.Outcome) + " " + strings.Join(names, ",")
		if name := filepath.Base(r.Input); got != want[name] {
			t.Errorf("input %s: %q, want %q", name, got, want[name])
		}
	}
	if strings.Join(f.Functions, " ") != "prog.c:main prog.c:number prog.c:other prog.c:word" {
		t.Errorf("functions %q", f.Functions)
	}
	runCases(t, []cliCase{
		{name: "cmd without report", args: []string{"record", "--cmd", "true", "--inputs", inputs}, code: exitUsage, stderr: []string{"--cmd needs --report FORMAT"}},
		{name: "cmd with subject", args: []string{"record", "--cmd", "true", "--subject", "json", "--inputs", inputs}, code: exitUsage, stderr: []string{"(given: --subject, --cmd)"}},
		{name: "cmd with a pipe", args: []string{"record", "--cmd", "prog | tee", "--report", "lcov", "--inputs", inputs}, code: exitUsage, stderr: []string{"shell syntax"}},
		{name: "unknown report", args: []string{"record", "--cmd", "true", "--report", "cobertura", "--inputs", inputs}, code: exitUsage, stderr: []string{`--report: unknown format "cobertura"`}},
		{name: "bad reject", args: []string{"record", "--cmd", "true", "--report", "lcov", "--reject", "0", "--inputs", inputs}, code: exitUsage, stderr: []string{"--reject wants exit statuses"}},
		{name: "cflags with go", args: []string{"record", "--go", "encoding/json.Valid", "--cflags", "-O2", "--inputs", inputs}, code: exitUsage, stderr: []string{"--cflags goes with --c, not with --go"}},
		{name: "reject with c", args: []string{"record", "--c", "a.c", "--reject", "1", "--inputs", inputs}, code: exitUsage, stderr: []string{"--reject goes with --cmd, --java, --python, not with --c"}},
		{name: "java without method", args: []string{"record", "--java", "Parser", "--inputs", inputs}, code: exitUsage, stderr: []string{"--java wants pkg.Class.method"}},
		{name: "python without function", args: []string{"record", "--python", "json", "--inputs", inputs}, code: exitUsage, stderr: []string{"--python wants module:function"}},
		{name: "two languages", args: []string{"record", "--java", "a.B.c", "--python", "m:f", "--inputs", inputs}, code: exitUsage, stderr: []string{"(given: --java, --python)"}},
		{name: "classpath with python", args: []string{"record", "--python", "m:f", "--classpath", "x.jar", "--inputs", inputs}, code: exitUsage, stderr: []string{"--classpath goes with --java, not with --python"}},
		{name: "eval without grammar", args: []string{"eval", "E3", "--python", "m:f"}, code: exitUsage, stderr: []string{"--grammar is required with --python"}},
	})
}

// TestRecordCmdCoveragePy (issue 16): a Python program under
// coverage.py (Debian's python3-coverage), recorded with --report
// coveragepy; its JSON report has lines only (coverage.py before 7.5), so
// functions come from the source's own ranges.
func TestRecordCmdCoveragePy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python")
	}
	coverageTool := ""
	for _, name := range []string{"python3-coverage", "coverage"} {
		if p, err := exec.LookPath(name); err == nil {
			coverageTool = p
			break
		}
	}
	if coverageTool == "" {
		testenv.Missing(t, "coverage.py (python3-coverage or coverage on PATH)", "apt-get install python3-coverage")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "subject.py"), []byte(`import sys

def number(s):
    return int(s)

class Words:
    def count(self, s):
        return len(s.split())

def main(path):
    with open(path) as f:
        text = f.read()
    if text.startswith("x"):
        sys.exit(2)
    if text[:1].isdigit():
        print(number(text))
    else:
        print(Words().count(text))

main(sys.argv[1])
`), 0o644)
	inputs := filepath.Join(dir, "inputs")
	for name, text := range map[string]string{"a": "12", "b": "two words", "c": "x"} {
		writeInput(t, inputs, name, []byte(text))
	}
	script := `"$0" run --data-file="$ARBOR_RUN_DIR/.coverage" subject.py "$1"; s=$?
"$0" json -q --data-file="$ARBOR_RUN_DIR/.coverage" -o "$ARBOR_RUN_DIR/cov.json"
exit $s`
	out := filepath.Join(dir, "cov.jsonl")
	_, errOut, code := runArbor(t, "", "record", "--cmd", "sh -c '"+script+"' "+coverageTool+" {}", "--report", "coveragepy",
		"--dir", dir, "--inputs", inputs, "--out", out, "--timeout", "20s")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	f, err := coverage.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "ok subject.main,subject.number", "b": "ok subject.Words.count,subject.main", "c": "error subject.main"}
	for _, r := range f.Records {
		var names []string
		for _, id := range r.Covered {
			names = append(names, f.Functions[id])
		}
		got := string(r.Outcome) + " " + strings.Join(names, ",")
		if name := filepath.Base(r.Input); got != want[name] {
			t.Errorf("input %s: %q, want %q (functions %q)", name, got, want[name], f.Functions)
		}
	}
}

// gcovProgram builds a small C program with gcc --coverage and returns
// its folder and the --cmd line that runs it on an input and leaves a
// gcov JSON report in the run's folder: each run's .gcda goes to its own
// folder (GCOV_PREFIX), where gcov --json-format reads it. Input "x..."
// is rejected (status 2); a digit runs number, a letter word, anything
// else other.
func gcovProgram(t *testing.T) (dir, line string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a C program")
	}
	for _, tool := range []string{"gcc", "gcov", "sh"} {
		pkg := map[string]string{"gcc": "gcc", "gcov": "gcc", "sh": "dash"}[tool]
		testenv.NeedTool(t, tool, "apt-get install "+pkg)
	}
	dir = t.TempDir()
	build := filepath.Join(dir, "build")
	os.MkdirAll(build, 0o755)
	src := filepath.Join(dir, "prog.c")
	os.WriteFile(src, []byte(`#include <stdio.h>
#include <ctype.h>

static int number(const char *s) { int n = 0; while (isdigit((unsigned char)*s)) n = n*10 + *s++ - '0'; return n; }
static int word(const char *s) { int n = 0; while (isalpha((unsigned char)*s)) s++, n++; return n; }
static int other(void) { return -1; }

int main(int argc, char **argv) {
	char buf[256] = {0};
	FILE *f = fopen(argv[1], "r");
	if (!f) return 3;
	fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	if (buf[0] == 'x') return 2;
	if (isdigit((unsigned char)buf[0])) printf("%d\n", number(buf));
	else if (isalpha((unsigned char)buf[0])) printf("%d\n", word(buf));
	else printf("%d\n", other());
	return 0;
}
`), 0o644)
	return dir, gcovCommand(t, build, src)
}

// gcovCommand compiles a program with gcc --coverage into build/prog and
// returns the --cmd line that runs it on an input and leaves a gcov JSON
// report in the run's folder: each run's .gcda files go to the run's
// folder (GCOV_PREFIX, with the build folder's components stripped), next
// to copies of the .gcno files, where gcov --json-format reads them.
func gcovCommand(t *testing.T, build string, gccArgs ...string) string {
	t.Helper()
	args := append([]string{"--coverage", "-O0", "-o", filepath.Join(build, "prog")}, gccArgs...)
	gcc := exec.Command("gcc", args...)
	gcc.Dir = build
	if out, err := gcc.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	strip := strconv.Itoa(strings.Count(filepath.Clean(build), string(filepath.Separator)))
	script := `GCOV_PREFIX="$ARBOR_RUN_DIR" GCOV_PREFIX_STRIP=` + strip + ` "$0/prog" "$1"; s=$?
cp "$0"/*.gcno "$ARBOR_RUN_DIR"/ && cd "$ARBOR_RUN_DIR" && gcov --json-format *.gcda >/dev/null 2>&1
exit $s`
	return "sh -c '" + script + "' " + build + " {}"
}

// TestCmdEverywhere (issue 16): a command subject is accepted wherever a
// subject is: eval E3 records and trains through it, target --verify
// runs the model's command again (kept in the model from the coverage
// file), and rlcheck takes its outcome as validity.
func TestCmdEverywhere(t *testing.T) {
	dir, line := gcovProgram(t)
	g := filepath.Join(dir, "prog.grammar")
	os.WriteFile(g, []byte("Input := Number | Word | Other | Rejected ;\nNumber := /[0-9]+/ ;\nWord := /[a-w]+/ ;\nOther := \"+\" | \"*\" | \"/\" ;\nRejected := \"x\" /[a-z]*/ ;\n"), 0o644)
	subject := []string{"--cmd", line, "--report", "gcov", "--source-root", dir, "--grammar", g}
	work := filepath.Join(dir, "work")
	stdout, errOut, code := runArbor(t, "", append([]string{"eval", "E3", "--train", "60", "--test", "30", "--work", work, "--json"}, subject...)...)
	if code != 0 {
		t.Fatalf("eval E3: exit %d\n%s", code, errOut)
	}
	var e3 struct {
		Functions int     `json:"functions_trainable"`
		Accuracy  float64 `json:"accuracy"`
		Model     string  `json:"model"`
	}
	if err := json.Unmarshal([]byte(stdout), &e3); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	// number, word and other each run on some inputs only, and which one
	// runs is the input's first symbol: the trees learn it exactly.
	t.Logf("E3: %s", stdout)
	if e3.Functions != 3 || e3.Accuracy < 0.99 {
		t.Errorf("E3 on the command: %s", stdout)
	}
	out := filepath.Join(dir, "targeted")
	stdout, errOut, code = runArbor(t, "", append([]string{"target", "--model", e3.Model, "--function", "prog.c:word", "-n", "3", "--out", out, "--json"}, subject[:6]...)...)
	if code != 0 {
		t.Fatalf("target: exit %d\n%s", code, errOut)
	}
	var tr struct {
		Verified int `json:"verified"`
	}
	json.Unmarshal([]byte(stdout), &tr)
	t.Logf("target: %s", stdout)
	if !strings.Contains(stdout, `"prog.c:word"`) {
		t.Errorf("target: %s", stdout)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(files) < 3 {
		t.Errorf("target wrote %d files, want 3 inputs and a manifest: %s", len(files), stdout)
	}
	stdout, errOut, code = runArbor(t, "", append([]string{"rlcheck", "--trials", "40", "--json"}, subject...)...)
	if code != 0 {
		t.Fatalf("rlcheck: exit %d\n%s", code, errOut)
	}
	var rl struct {
		Valid int `json:"valid"`
	}
	if err := json.Unmarshal([]byte(stdout), &rl); err != nil || rl.Valid == 0 || rl.Valid == 40 {
		t.Errorf("rlcheck on the command (x... is invalid, the rest valid): %s", stdout)
	}
}
