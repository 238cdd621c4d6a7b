package subject

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Setup is a program under test made ready: its name, the grammar of
// its inputs and the target coverage runs.
type Setup struct {
	Name, GrammarName string
	Grammar           *grammar.Graph
	Target            coverage.Target
}

// Spec names a program under test the way every command does: a
// bundled subject, any Go function func([]byte) error or func([]byte), a
// function of another language run by its harness, or a command run once
// per input; with the grammar of its inputs.
type Spec struct {
	Name      string   // a bundled subject
	Go        string   // or a function, as importpath.Func
	Dir       string   // with Go: a directory of a module that can import it; default the current one
	CoverPkgs []string // with Go: packages to record; default coverage.DefaultCoverPkgs
	// Or a function of another language (C, Java, Python), or a command.
	Harness *coverage.HarnessTarget
	Command *coverage.CommandTarget
	Grammar string // a grammar file or bundled grammar; default the bundled subject's
}

// kinds counts the kinds of subject the spec names.
func (s Spec) kinds() int {
	n := 0
	for _, set := range []bool{s.Name != "", s.Go != "", s.Harness != nil, s.Command != nil} {
		if set {
			n++
		}
	}
	return n
}

// Target resolves the spec to a coverage target without its grammar, and
// returns the subject's name: the bundled name or importpath.Func.
func (s Spec) Target(ctx context.Context) (coverage.Target, string, error) {
	switch {
	case s.kinds() > 1:
		return coverage.Target{}, "", errors.New("give one subject: a bundled one, a Go function, a function of another language or a command")
	case s.Harness != nil:
		return coverage.Target{Harness: s.Harness}, s.Harness.Name(), nil
	case s.Command != nil:
		if len(s.Command.Argv) == 0 {
			return coverage.Target{}, "", errors.New("the command is empty")
		}
		return coverage.Target{Command: s.Command}, filepath.Base(s.Command.Argv[0]), nil
	case s.Name != "":
		if s.Dir != "" || len(s.CoverPkgs) > 0 {
			return coverage.Target{}, "", errors.New("the module directory and recorded packages are chosen by a Go function's subject, not a bundled one")
		}
		b, err := datasets.LookupSubject(s.Name)
		if err != nil {
			return coverage.Target{}, "", err
		}
		t, err := b.TargetContext(ctx)
		return t, b.Name, err
	case s.Go != "":
		t, err := coverage.ParseTarget(s.Go)
		if err != nil {
			return coverage.Target{}, "", err
		}
		dir := s.Dir
		if dir == "" {
			dir = "."
		}
		// Absolute, so that a model remembers where its subject lives.
		if t.Dir, err = filepath.Abs(dir); err != nil {
			return coverage.Target{}, "", err
		}
		t.CoverPkgs = s.CoverPkgs
		return t, s.Go, nil
	}
	return coverage.Target{}, "", errors.New("no subject: name a bundled subject or a Go function")
}

// Resolve resolves a spec with its grammar: the spec's Grammar if
// set, else the bundled subject's; a Go function needs one.
func Resolve(ctx context.Context, s Spec) (Setup, error) {
	t, name, err := s.Target(ctx)
	if err != nil {
		return Setup{}, err
	}
	grammarArg := s.Grammar
	if grammarArg == "" {
		if s.Name == "" || s.kinds() > 1 {
			return Setup{}, fmt.Errorf("subject %s: a grammar of its inputs is required", name)
		}
		b, _ := datasets.LookupSubject(s.Name)
		grammarArg = b.Grammar
	}
	g, err := datasets.LoadGrammar(grammarArg)
	if err != nil {
		return Setup{}, err
	}
	return Setup{Name: name, GrammarName: GrammarName(grammarArg), Grammar: g, Target: t}, nil
}

// GrammarName is how a grammar argument is named in results: a bundled
// grammar's name, or a file's base name without ".grammar".
func GrammarName(arg string) string {
	base := arg[strings.LastIndexAny(arg, `/\`)+1:]
	return strings.TrimSuffix(base, ".grammar")
}

// Load resolves a bundled subject: its grammar and its coverage target.
func Load(ctx context.Context, name string) (Setup, error) {
	return Resolve(ctx, Spec{Name: name})
}
