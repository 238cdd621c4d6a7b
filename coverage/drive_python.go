package coverage

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
)

// pythonDriver runs a Python program under coverage.py: the command's
// python [options] prog.py args becomes python [options] -m coverage run
// --data-file=DIR/.coverage prog.py args, and after the run coverage
// json writes the report.
type pythonDriver struct {
	python string // an interpreter that can import coverage.py
	// program is where the program begins in the command line (the
	// script, or -m and the module), after the interpreter's options.
	program int
	dir     string // the command's folder, where coverage json runs
}

// pythonDataFile is the coverage.py data file of a driven run.
const pythonDataFile = ".coverage"

// newPythonDriver drives a command whose program is a Python
// interpreter (python, python3, python3.11, ...) that runs a script or
// a module (-m), unless the command runs coverage.py itself (-m
// coverage).
func newPythonDriver(ctx context.Context, c *Command) (driver, string, error) {
	if !regexp.MustCompile(`^python[0-9.]*$`).MatchString(filepath.Base(c.Argv[0])) {
		return nil, "", nil
	}
	program, err := pythonProgram(c.Argv)
	if err != nil {
		return nil, "", fmt.Errorf("--report coveragepy: %w", err)
	}
	if c.Argv[program] == "-m" && c.Argv[program+1] == "coverage" {
		return nil, "", nil
	}
	prog := c.programPath()
	if prog == "" {
		return nil, "", nil
	}
	python := prog
	if !pythonCanCover(ctx, prog) {
		// Debian's python3-coverage runs in the system's interpreter,
		// which the command's (a virtual environment's, pyenv's) may not
		// be.
		python = ""
		if script, err := exec.LookPath("python3-coverage"); err == nil {
			if p := pythonShebang(script); p != "" && pythonCanCover(ctx, p) {
				python = p
			}
		}
		if python == "" {
			return nil, "", fmt.Errorf("--report coveragepy: %s cannot import coverage.py, and no python3-coverage is on PATH (Debian: apt-get install python3-coverage; or pip install coverage into that interpreter)", prog)
		}
	}
	dir := c.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, "", err
		}
	}
	return &pythonDriver{python: python, program: program, dir: dir}, "", nil
}

// pythonProgram finds where the program begins in a Python command
// line: the first argument after the interpreter's options, or its -m.
// coverage.py runs scripts and modules, not -c or stdin.
func pythonProgram(argv []string) (int, error) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-m":
			if i+1 == len(argv) {
				return 0, fmt.Errorf("%s: -m names no module", argv[0])
			}
			return i, nil
		case a == "-c" || len(a) > 2 && a[:2] == "-c":
			return 0, fmt.Errorf("coverage.py runs a script or a module (-m), not -c; write the program to a file")
		case a == "-" || a == "--":
			return 0, fmt.Errorf("coverage.py runs a script or a module (-m), not a program on stdin")
		case a == "-W" || a == "-X":
			i++ // takes a value
		case len(a) > 1 && a[0] == '-':
		default:
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s: the command line names no script or module (-m) to run", argv[0])
}

func (d *pythonDriver) wrap(argv []string, dir string) ([]string, []string) {
	out := append([]string{d.python}, argv[1:d.program]...)
	out = append(out, "-m", "coverage", "run", "--data-file="+filepath.Join(dir, pythonDataFile))
	return append(out, slices.Clone(argv[d.program:])...), nil
}

// report writes coverage json's report of the run, in the command's
// folder, where the report's relative paths point.
func (d *pythonDriver) report(ctx context.Context, dir string) error {
	data := filepath.Join(dir, pythonDataFile)
	if _, err := os.Stat(data); err != nil {
		return nil // a run killed before coverage.py saved its data
	}
	_, err := runTool(ctx, d.dir, d.python, "-m", "coverage", "json", "-q", "--data-file="+data, "-o", filepath.Join(dir, "coverage.json"))
	return err
}
