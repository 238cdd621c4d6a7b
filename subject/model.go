package subject

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/learn"
)

// ModelTarget is the subject a model was trained on, as a coverage
// target: the one its coverage file recorded, or, for models without
// one, the bundled subject of that name. A model is data that anyone may
// have written, so what this returns must not be built or run unless the
// user asked for it: commands go through ModelProgram.
func ModelTarget(ctx context.Context, m *learn.Model) (coverage.Target, error) {
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
	return b.TargetContext(ctx)
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
func ModelProgram(ctx context.Context, m *learn.Model, named *coverage.Target, trust bool) (t coverage.Target, fromModel bool, err error) {
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
		_, err := ModelTarget(ctx, m) // says why the model names no program
		return coverage.Target{}, false, err
	}
	if !trust {
		return coverage.Target{}, false, &UntrustedModelError{Recorded: recorded, Bundled: bundled}
	}
	t, err = ModelTarget(ctx, m)
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
	if n := t.Kinds(); n != 1 {
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
