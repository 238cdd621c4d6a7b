package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

// subjectFlags name a program under test. Every command that runs one
// takes them, with the same meaning: --subject NAME (bundled) or --go
// importpath.Func with --dir and --coverpkg, and --grammar.
type subjectFlags struct {
	subject, goFunc, dir, grammar string
	coverPkgs                     []string
}

// register adds the flags; withGrammar also adds --grammar (commands
// that only run inputs have no use for it).
func (f *subjectFlags) register(fl *pflag.FlagSet, withGrammar bool) {
	fl.StringVar(&f.subject, "subject", "", "bundled subject `NAME` (see 'arbor subjects')")
	fl.StringVar(&f.goFunc, "go", "", "or any Go function func([]byte) error, as `importpath.Func`")
	fl.StringVar(&f.dir, "dir", "", "with --go: a directory of a module that can import the function's package; with --cmd: where the command runs (default: the current directory)")
	fl.StringSliceVar(&f.coverPkgs, "coverpkg", nil, "with --go: packages to record (patterns like a/b/... allowed; default: the function's package, the non-standard packages it depends on and the standard-library packages it imports directly, but for plumbing such as fmt and bytes)")
	if withGrammar {
		fl.StringVar(&f.grammar, "grammar", "", "grammar of the subject's inputs: a .grammar file or a bundled grammar (required with --go; default: the bundled subject's)")
	}
}

func (f *subjectFlags) spec() eval.SubjectSpec {
	return eval.SubjectSpec{Name: f.subject, Go: f.goFunc, Dir: f.dir, CoverPkgs: f.coverPkgs, Grammar: f.grammar}
}

// check reports misuse of the flags as a usage error.
func (f *subjectFlags) check() error {
	switch {
	case (f.subject == "") == (f.goFunc == ""):
		return usageError{errors.New("give exactly one of --subject NAME and --go IMPORTPATH.Func")}
	case f.subject != "" && (f.dir != "" || len(f.coverPkgs) > 0):
		return usageError{errors.New("--dir and --coverpkg go with --go, not with a bundled --subject")}
	}
	if f.goFunc != "" {
		if _, err := coverage.ParseTarget(f.goFunc); err != nil {
			return usageError{errors.New("--go: " + err.Error())}
		}
	}
	return nil
}

// target resolves the subject without its grammar.
func (f *subjectFlags) target() (coverage.Target, string, error) {
	if err := f.check(); err != nil {
		return coverage.Target{}, "", err
	}
	return f.spec().Target()
}

// setup resolves the subject with its grammar.
func (f *subjectFlags) setup() (eval.SubjectSetup, error) {
	if err := f.check(); err != nil {
		return eval.SubjectSetup{}, err
	}
	if f.goFunc != "" && f.grammar == "" {
		return eval.SubjectSetup{}, usageError{errors.New("--grammar is required with --go")}
	}
	return eval.ResolveSubject(f.spec())
}

// memoryFlag is --memory: the memory limit of the program under test,
// with the same meaning in every command that runs a user's program
// (record, target, rlcheck).
type memoryFlag struct{ size string }

func (m *memoryFlag) register(fl *pflag.FlagSet) {
	fl.StringVar(&m.size, "memory", "2GiB", "memory limit of the program under test (like 512MiB, 4GB; 0: none); an input needing more ends as a panic")
}

// runOptions turns the flag into the session's options.
func (m *memoryFlag) runOptions() (coverage.RunOptions, error) {
	n, err := parseSize(m.size)
	if err != nil {
		return coverage.RunOptions{}, usageError{fmt.Errorf("--memory: %w", err)}
	}
	if n == 0 {
		return coverage.RunOptions{Memory: -1}, nil
	}
	return coverage.RunOptions{Memory: n}, nil
}
