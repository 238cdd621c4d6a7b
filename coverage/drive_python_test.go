//go:build linux

package coverage

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// drivePy is a Python program: its functions run as the input says; "x"
// is rejected (ValueError, status 2), "!" crashes (status 1).
const drivePy = `import sys

def digits(s):
    return sum(c.isdigit() for c in s)

def letters(s):
    return sum(c.isalpha() for c in s)

def never():
    return 1

class Parser:
    def run(self, s):
        if "x" in s:
            raise ValueError("x")
        if "!" in s:
            raise RuntimeError("boom")
        if digits(s):
            pass
        if letters(s):
            pass

data = open(sys.argv[1]).read()
try:
    Parser().run(data)
except ValueError:
    sys.exit(2)
`

// TestPythonDriven: python3 prog.py {} under --report coveragepy runs
// under coverage.py without a wrapper, and gives the program's own
// functions; a command that cannot be run under coverage.py says why.
func TestPythonDriven(t *testing.T) {
	python := testenv.NeedTool(t, "python3", "apt-get install python3")
	if _, err := exec.LookPath("python3-coverage"); err != nil && !pythonCanCover(context.Background(), python) {
		testenv.Missing(t, "coverage.py", "apt-get install python3-coverage")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "prog.py"), []byte(drivePy), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		argv []string
		in   string
		want string
	}{
		{[]string{"python3", "prog.py", "{}"}, "12ab", "ok prog.Parser.run=1 prog.digits=1 prog.letters=1"},
		{[]string{"python3", "prog.py", "{}"}, "12", "ok prog.Parser.run=1 prog.digits=1 prog.letters=1"},
		{[]string{"python3", "-B", "prog.py", "{}"}, "x", "error prog.Parser.run=1"},
		{[]string{"python3", "prog.py", "{}"}, "!", "panic prog.Parser.run=1"},
		{[]string{"python3", "-m", "prog", "{}"}, "ab", "ok prog.Parser.run=1 prog.digits=1 prog.letters=1"},
	} {
		rr, _ := NewReportReader("coveragepy", dir)
		rr.Dir = dir
		c := &Command{Argv: tt.argv, Dir: dir, Reject: []int{2}, Timeout: 30 * time.Second}
		if err := c.drive(context.Background(), "coveragepy"); err != nil {
			t.Fatal(err)
		}
		// Only the program's functions: coverage.py's -m also measures
		// a site hook of Debian's dist-packages.
		l := driveRun(t, c, rr, tt.in)
		var own []string
		for _, f := range strings.Fields(l.funcs) {
			if strings.HasPrefix(f, "prog.") {
				own = append(own, f)
			}
		}
		l.funcs = strings.Join(own, " ")
		if got := l.String(); got != tt.want {
			t.Errorf("%q on %q: %s, want %s", tt.argv, tt.in, got, tt.want)
		}
	}
	// A report the program writes into its run's folder itself is the
	// one read, not coverage.py's (which would add own.real).
	own := `import os, sys
def real():
    pass
real()
open(os.path.join(os.environ["ARBOR_RUN_DIR"], "own.json"), "w").write(
    '{"meta": {"version": "7.5"}, "files": {"own.py": {"executed_lines": [1], "missing_lines": [],'
    ' "functions": {"mine": {"executed_lines": [1], "missing_lines": []}}}}}')
`
	os.WriteFile(filepath.Join(dir, "own.py"), []byte(own), 0o644)
	rr, _ := NewReportReader("coveragepy", dir)
	c := &Command{Argv: []string{"python3", "own.py", "{}"}, Dir: dir, Timeout: 30 * time.Second}
	if err := c.drive(context.Background(), "coveragepy"); err != nil {
		t.Fatal(err)
	}
	if got := driveRun(t, c, rr, "").String(); got != "ok own.mine=1" {
		t.Errorf("a program writing its own report: %s, want ok own.mine=1", got)
	}
	for _, tt := range []struct {
		argv []string
		err  string
	}{
		{[]string{"python3", "-c", "print(1)", "{}"}, "not -c"},
		{[]string{"python3", "-"}, "not a program on stdin"},
		{[]string{"python3", "-u"}, "names no script"},
	} {
		c := &Command{Argv: tt.argv, Dir: dir}
		if err := c.drive(context.Background(), "coveragepy"); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: %v, want an error with %q", tt.argv, err, tt.err)
		}
	}
}
