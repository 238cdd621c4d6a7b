package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// SubjectSetup is what the experiments need to know of a subject.
type SubjectSetup struct {
	Name, GrammarName string
	Grammar           *grammar.Graph
	Target            coverage.Target
}

// SubjectSpec names a program under test the way every command does: a
// bundled subject, any Go function func([]byte) error or func([]byte), a
// function of another language run by its harness, or a command run once
// per input; with the grammar of its inputs.
type SubjectSpec struct {
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
func (s SubjectSpec) kinds() int {
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
func (s SubjectSpec) Target() (coverage.Target, string, error) {
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
		t, err := b.Target()
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

// ResolveSubject resolves a spec with its grammar: the spec's Grammar if
// set, else the bundled subject's; a Go function needs one.
func ResolveSubject(s SubjectSpec) (SubjectSetup, error) {
	t, name, err := s.Target()
	if err != nil {
		return SubjectSetup{}, err
	}
	grammarArg := s.Grammar
	if grammarArg == "" {
		if s.Name == "" || s.kinds() > 1 {
			return SubjectSetup{}, fmt.Errorf("subject %s: a grammar of its inputs is required", name)
		}
		b, _ := datasets.LookupSubject(s.Name)
		grammarArg = b.Grammar
	}
	g, err := datasets.LoadGrammar(grammarArg)
	if err != nil {
		return SubjectSetup{}, err
	}
	return SubjectSetup{Name: name, GrammarName: GrammarName(grammarArg), Grammar: g, Target: t}, nil
}

// GrammarName is how a grammar argument is named in results: a bundled
// grammar's name, or a file's base name without ".grammar".
func GrammarName(arg string) string {
	base := arg[strings.LastIndexAny(arg, `/\`)+1:]
	return strings.TrimSuffix(base, ".grammar")
}

// LoadSubject resolves a bundled subject: its grammar and its coverage target.
func LoadSubject(name string) (SubjectSetup, error) {
	return ResolveSubject(SubjectSpec{Name: name})
}

// ModelTarget is the subject a model was trained on, as a coverage
// target: the one its coverage file recorded, or, for models without
// one, the bundled subject of that name.
func ModelTarget(m *learn.Model) (coverage.Target, error) {
	if m.Target != nil {
		return *m.Target, nil
	}
	b, err := datasets.LookupSubject(m.Subject)
	if err != nil {
		return coverage.Target{}, fmt.Errorf("the model does not say how to run its subject %q (it was trained on a coverage file "+
			"of an older arbor), and no bundled subject has that name: train it again from a newly recorded file", m.Subject)
	}
	return b.Target()
}

// E6Benchmarks builds E6's three benchmarks: the binary-search-tree
// example (bstTrials), JSON documents that must pass NumberRecord, and
// XML documents the xml subject must accept (trials each). closeFn stops
// the xml subject's harness, which the xml oracle runs.
func E6Benchmarks(ctx context.Context, seed uint64, bstTrials, trials int, cacheDir string) (_ []Benchmark, closeFn func(), _ error) {
	jsonG, err := datasets.Grammar("json")
	if err != nil {
		return nil, nil, err
	}
	xml, err := LoadSubject("xml")
	if err != nil {
		return nil, nil, err
	}
	sess, err := coverage.Open(ctx, xml.Target, cacheDir, coverage.RunOptions{})
	if err != nil {
		return nil, nil, err
	}
	benchmarks := []Benchmark{
		{Name: "bst", Trials: bstTrials, Make: func(g *synth.Guide) (func() []byte, synth.Oracle, error) {
			gen, o := synth.BSTGenerator(g, synth.TreeState, seed)
			return gen, o, nil
		}},
		{Name: "json-schema", Trials: trials, Make: func(g *synth.Guide) (func() []byte, synth.Oracle, error) {
			return synth.GrammarGenerator(jsonG, g, synth.TreeState, seed, 12), synth.FuncOracle(NumberRecord), nil
		}},
		{Name: "xml", Trials: trials, Make: func(g *synth.Guide) (func() []byte, synth.Oracle, error) {
			return synth.GrammarGenerator(xml.Grammar, g, synth.TreeState, seed, 12), &synth.SubjectOracle{Session: sess, Timeout: time.Second}, nil
		}},
	}
	return benchmarks, func() { sess.Close() }, nil
}

// NumberRecord is E6's schema-like rule for JSON: an object of at least
// two members whose values are all numbers, keys distinct.
func NumberRecord(in []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(in))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return false
	}
	keys := map[string]bool{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := k.(string)
		if keys[key] {
			return false
		}
		keys[key] = true
		v, err := dec.Token()
		if _, isNumber := v.(float64); err != nil || !isNumber {
			return false
		}
	}
	if end, err := dec.Token(); err != nil || end != json.Delim('}') {
		return false
	}
	_, err = dec.Token()
	return err != nil && len(keys) >= 2 // nothing may follow the object
}
