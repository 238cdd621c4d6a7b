package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/arbor-fuzz/arbor/coverage"
)

// commandFlags name a program under test given as a command line
// (--cmd), with the coverage report it leaves behind (--report; not
// --coverage, which names a coverage file in train).
type commandFlags struct {
	command, coverageFormat, crash, root, reject string
}

func (f *commandFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.command, "cmd", "", "or any program, as a command `line`: {} is the input's file (else the input goes to stdin), {dir} the run's folder for coverage reports; no shell")
	fl.StringVar(&f.coverageFormat, "report", "", "with --cmd: the report `format` the run leaves in {dir}: "+formatList())
	fl.StringVar(&f.reject, "reject", "", "with --cmd: exit `statuses` that mean the input was rejected (outcome error), like 1,2; default: every nonzero status; other statuses are crashes")
	fl.StringVar(&f.crash, "crash", "", "with --cmd: a `regexp` that, found on stderr, makes a run a crash")
	fl.StringVar(&f.root, "source-root", ".", "with --cmd: source paths below this folder are named relative to it")
}

func formatList() string {
	formats := coverage.ReportFormats()
	var names []string
	for name, files := range formats {
		names = append(names, name+" ("+files+")")
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// commandSubject builds the command, its report reader and its name.
func (f *commandFlags) commandSubject(dir string) (*coverage.Command, *coverage.ReportReader, string, error) {
	argv, err := coverage.ParseCommand(f.command)
	if err != nil {
		return nil, nil, "", usageError{fmt.Errorf("--cmd: %w", err)}
	}
	if f.coverageFormat == "" {
		return nil, nil, "", usageError{errors.New("--cmd needs --report FORMAT: the coverage report the run leaves in {dir}: " + formatList())}
	}
	root := f.root
	if !filepath.IsAbs(root) && dir != "" {
		root = filepath.Join(dir, root)
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return nil, nil, "", err
	}
	rr, err := coverage.NewReportReader(f.coverageFormat, root)
	if err != nil {
		return nil, nil, "", usageError{fmt.Errorf("--report: %w", err)}
	}
	c := &coverage.Command{Argv: argv, Dir: dir}
	if f.reject != "" {
		for _, s := range strings.Split(f.reject, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > 255 {
				return nil, nil, "", usageError{fmt.Errorf("--reject wants exit statuses 1-255, separated by commas, not %q", f.reject)}
			}
			c.Reject = append(c.Reject, n)
		}
	}
	if f.crash != "" {
		if c.Crash, err = regexp.Compile(f.crash); err != nil {
			return nil, nil, "", usageError{fmt.Errorf("--crash: %w", err)}
		}
	}
	return c, rr, filepath.Base(argv[0]), nil
}
