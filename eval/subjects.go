package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
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
// one, the bundled subject of that name. A model is data that anyone may
// have written, so what this returns must not be built or run unless the
// user asked for it: commands go through ModelProgram.
func ModelTarget(m *learn.Model) (coverage.Target, error) {
	if m.Target != nil {
		if err := checkKinds(*m.Target); err != nil {
			return coverage.Target{}, err
		}
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

// ModelProgram decides which program a command that runs a model's
// subject (targeting's loop, its verification, E4 and E5 on a model) may
// build and run. Models are shared as files, like data, and one can
// record any command line, Go module folder or harness sources; so what
// a model records runs only when the user said so:
//
//   - named, the program the user named on the command line, is run if
//     it is the model's (SameProgram; a model that records none, from an
//     older arbor, takes any), else the answer is a *ProgramMismatchError;
//   - with nothing named and trust set (the user read what the model
//     records and accepts it), the model's own program is run, and
//     fromModel is true so that the caller can show it first;
//   - with neither, the answer is an *UntrustedModelError saying what the
//     model would run.
//
// Nothing is built, fetched or run here.
func ModelProgram(m *learn.Model, named *coverage.Target, trust bool) (t coverage.Target, fromModel bool, err error) {
	recorded, bundled, known := recordedProgram(m)
	if known {
		if err := checkKinds(recorded); err != nil {
			return coverage.Target{}, false, err
		}
	}
	if named != nil {
		if known && !SameProgram(*named, recorded) {
			return coverage.Target{}, false, &ProgramMismatchError{Named: *named, Recorded: recorded}
		}
		return *named, false, nil
	}
	if !known {
		_, err := ModelTarget(m) // says why the model names no program
		return coverage.Target{}, false, err
	}
	if !trust {
		return coverage.Target{}, false, &UntrustedModelError{Recorded: recorded, Bundled: bundled}
	}
	t, err = ModelTarget(m)
	return t, err == nil, err
}

// recordedProgram is the program a model records, without resolving
// anything: its target, or, for a model of an older arbor, the program
// of the bundled subject it names; bundled is that subject's name if the
// program is a bundled subject's. known is false when the model names no
// program arbor knows.
func recordedProgram(m *learn.Model) (t coverage.Target, bundled string, known bool) {
	if m.Target != nil {
		for _, b := range datasets.Subjects() {
			if SameProgram(*m.Target, b.Program()) {
				return *m.Target, b.Name, true
			}
		}
		return *m.Target, "", true
	}
	if b, err := datasets.LookupSubject(m.Subject); err == nil {
		return b.Program(), b.Name, true
	}
	return coverage.Target{}, "", false
}

// checkKinds refuses a target that names more than one kind of program:
// the build and the session would each pick a different one, so that
// what is shown would not be what runs.
func checkKinds(t coverage.Target) error {
	n := 0
	for _, set := range []bool{t.ImportPath != "" || t.Func != "", t.Harness != nil, t.Command != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("the model's target names %d kinds of program (a Go function, a harness, a command), not one", n)
	}
	return nil
}

// SameProgram reports whether two targets name the same program, as far
// as a model's record can tell it across machines: the same Go function
// (import path and name), the same harness (language and entry, or for C
// the first source's name), or the same command (as many words, each
// with the same last path element, and the same report format). Folders,
// recorded packages and options may differ, since a model made on one
// machine is used on another, where the module or the sources live
// elsewhere; what runs is the program the user named, never the model's.
func SameProgram(a, b coverage.Target) bool {
	switch {
	case a.Harness != nil || b.Harness != nil:
		return a.Harness != nil && b.Harness != nil && a.Harness.Lang == b.Harness.Lang && a.Harness.Name() == b.Harness.Name()
	case a.Command != nil || b.Command != nil:
		if a.Command == nil || b.Command == nil || len(a.Command.Argv) != len(b.Command.Argv) || a.Command.Coverage != b.Command.Coverage {
			return false
		}
		for i, w := range a.Command.Argv {
			if filepath.Base(w) != filepath.Base(b.Command.Argv[i]) {
				return false
			}
		}
		return true
	}
	return a.ImportPath == b.ImportPath && a.Func == b.Func
}

// UntrustedModelError is ModelProgram's answer when a command would have
// to run the program a model records, but the user neither named a
// program nor trusted the model.
type UntrustedModelError struct {
	Recorded coverage.Target // what the model would run
	Bundled  string          // the bundled subject whose program it is, if any
}

func (e *UntrustedModelError) Error() string {
	return "a model does not decide what runs: name the program it was trained on, or trust the model; it records\n" + strings.TrimSuffix(DescribeTarget(e.Recorded), "\n")
}

// ProgramMismatchError is ModelProgram's answer when the program the
// user named is not the one the model was trained on.
type ProgramMismatchError struct {
	Named, Recorded coverage.Target
}

func (e *ProgramMismatchError) Error() string {
	return "the program named is not the one the model was trained on\nnamed:\n" + DescribeTarget(e.Named) + "the model's:\n" + strings.TrimSuffix(DescribeTarget(e.Recorded), "\n")
}

// DescribeTarget writes a target in full, a field a line, each line
// indented by two spaces and ended by a newline: what would be built and
// run, and where. Every value is quoted where it holds anything but
// plain printable text, so that a crafted model cannot hide a word or
// write control characters to the terminal.
func DescribeTarget(t coverage.Target) string {
	var b strings.Builder
	line := func(label string, values ...string) {
		if len(values) == 0 || len(values) == 1 && values[0] == "" {
			return
		}
		q := make([]string, len(values))
		for i, v := range values {
			q[i] = ShellQuote(v)
		}
		fmt.Fprintf(&b, "  %-16s %s\n", label+":", strings.Join(q, " "))
	}
	if t.Harness != nil {
		h := t.Harness
		line("harness", h.Lang)
		line("entry", h.Entry)
		line("sources", h.Sources...)
		line("compiler flags", h.Flags...)
		line("recorded", h.Cover...)
		line("folder", h.Dir)
		line("source root", h.Root)
		line("rejections", h.Reject...)
	}
	if t.Command != nil {
		c := t.Command
		line("command", c.Argv...)
		line("folder", c.Dir)
		line("report", c.Coverage)
		line("source root", c.Root)
		if len(c.Reject) > 0 {
			line("rejections", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(c.Reject)), ","), "[]"))
		}
		line("crash", c.Crash)
	}
	if t.ImportPath != "" || t.Func != "" {
		line("Go function", t.ImportPath+"."+t.Func)
		dir := t.Dir
		if dir == "" {
			dir = "(the current folder)"
		}
		line("built in", dir)
		line("recorded", t.CoverPkgs...)
	}
	if b.Len() == 0 {
		return "  (nothing)\n"
	}
	return b.String()
}

// ShellQuote quotes a word so that a POSIX shell, and --cmd
// (coverage.ParseCommand), read it back as it is: as it is when it needs
// no quotes, in single quotes when it is printable text, and in Go's
// double-quoted form, escapes visible, when it holds control or
// non-printable characters.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%{}^") == "" {
		return s
	}
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
