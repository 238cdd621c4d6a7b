package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/subject"
)

// subjectFlags name a program under test. Every command that runs one
// takes them, with the same meaning: --subject NAME (bundled); --go
// importpath.Func with --dir and --coverpkg; a function of another
// language run in-process by arbor's harness for it (--c, --java,
// --python); or a command run once per input (--cmd with --report); and
// --grammar.
type subjectFlags struct {
	subject, goFunc, dir, grammar string
	coverPkgs                     []string

	cSources, classPath, pythonPath []string
	java, python, cflags            string

	command, reportFormat, crash, root, reject string
}

// register adds the flags; withGrammar also adds --grammar (commands
// that only run inputs have no use for it).
func (f *subjectFlags) register(fl *pflag.FlagSet, withGrammar bool) {
	fl.StringVar(&f.subject, "subject", "", "bundled subject `NAME` (see 'arbor subjects')")
	fl.StringVar(&f.goFunc, "go", "", "or any Go function func([]byte) error, as `importpath.Func`")
	fl.StringSliceVar(&f.cSources, "c", nil, "or C `sources` (comma-separated .c files), one defining the libFuzzer entry point LLVMFuzzerTestOneInput; a nonzero return is a rejection")
	fl.StringVar(&f.cflags, "cflags", "", "with --c: compiler `flags`, like '-Iinclude -DNDEBUG'")
	fl.StringVar(&f.java, "java", "", "or a static Java method taking byte[] or String, as `pkg.Class.method` (JaCoCo records it)")
	fl.StringSliceVar(&f.classPath, "classpath", nil, "with --java: class path `entries` (folders of classes, jars)")
	fl.StringVar(&f.python, "python", "", "or a Python function taking bytes, as `module:function` (coverage.py records it)")
	fl.StringSliceVar(&f.pythonPath, "pythonpath", nil, "with --python: `folders` added to the module search path")
	fl.StringVar(&f.command, "cmd", "", "or any program, as a command `line` run once per input: {} is the input's file (else the input goes to stdin), {dir} the run's folder for coverage reports; no shell")
	fl.StringVar(&f.reportFormat, "report", "", "with --cmd: the coverage report `format` (arbor runs gcov, coverage.py or JaCoCo itself for a program built with gcc --coverage, a python3 or a java command line; any other command leaves the report in {dir}): "+formatList())
	fl.StringVar(&f.reject, "reject", "", "what means the input was rejected (outcome error) rather than a crash: with --cmd exit `statuses` like 1,2 (default: every nonzero status); with --java or --python exception classes (default java.lang.Exception, ValueError)")
	fl.StringVar(&f.crash, "crash", "", "with --cmd: a `regexp` that, found on stderr, makes a run a crash")
	fl.StringVar(&f.root, "source-root", ".", "with --cmd or --c: source paths below this folder are named relative to it")
	fl.StringVar(&f.dir, "dir", "", "with --go: a directory of a module that can import the function's package; otherwise where the program runs (default: the current directory)")
	fl.StringSliceVar(&f.coverPkgs, "coverpkg", nil, "what is recorded: with --go packages (patterns like a/b/... allowed; default: the function's package, the non-standard packages it depends on and the standard-library packages it imports directly, but for plumbing such as fmt and bytes); with --c source files or folders (default: every source); with --java packages or classes, pkg.* for a prefix (default: the method's package); with --python modules or packages (default: the function's module)")
	if withGrammar {
		fl.StringVar(&f.grammar, "grammar", "", "grammar of the subject's inputs: a grammar file or a bundled grammar (required but for a bundled subject, whose grammar is the default)")
	}
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

// kinds names the kinds of subject the flags give.
func (f *subjectFlags) kinds() []string {
	var given []string
	for _, k := range []struct {
		flag string
		set  bool
	}{{"--subject", f.subject != ""}, {"--go", f.goFunc != ""}, {"--c", len(f.cSources) > 0}, {"--java", f.java != ""}, {"--python", f.python != ""}, {"--cmd", f.command != ""}} {
		if k.set {
			given = append(given, k.flag)
		}
	}
	return given
}

// hasSubject reports whether any subject flag is given.
func (f *subjectFlags) hasSubject() bool { return len(f.kinds()) > 0 }

// check reports misuse of the flags as a usage error.
func (f *subjectFlags) check() error {
	kinds := f.kinds()
	if len(kinds) != 1 {
		msg := "give exactly one of --subject NAME, --go IMPORTPATH.Func, --c SOURCES, --java pkg.Class.method, --python module:function and --cmd LINE"
		if len(kinds) > 1 {
			msg += " (given: " + strings.Join(kinds, ", ") + ")"
		}
		return usageError{errors.New(msg)}
	}
	kind := kinds[0]
	// Flags that belong to another kind of subject are mistakes, not
	// options to ignore.
	for _, o := range []struct {
		flag  string
		set   bool
		kinds []string
	}{
		{"--dir", f.dir != "", []string{"--go", "--c", "--java", "--python", "--cmd"}},
		{"--coverpkg", len(f.coverPkgs) > 0, []string{"--go", "--c", "--java", "--python"}},
		{"--cflags", f.cflags != "", []string{"--c"}},
		{"--classpath", len(f.classPath) > 0, []string{"--java"}},
		{"--pythonpath", len(f.pythonPath) > 0, []string{"--python"}},
		{"--report", f.reportFormat != "", []string{"--cmd"}},
		{"--reject", f.reject != "", []string{"--cmd", "--java", "--python"}},
		{"--crash", f.crash != "", []string{"--cmd"}},
		{"--source-root", f.root != "." && f.root != "", []string{"--cmd", "--c"}},
	} {
		if o.set && !slices.Contains(o.kinds, kind) {
			return usageError{fmt.Errorf("%s goes with %s, not with %s", o.flag, strings.Join(o.kinds, ", "), kind)}
		}
	}
	switch kind {
	case "--go":
		if _, err := coverage.ParseTarget(f.goFunc); err != nil {
			return usageError{errors.New("--go: " + err.Error())}
		}
	case "--cmd":
		if f.reportFormat == "" {
			return usageError{errors.New("--cmd needs --report FORMAT: the coverage report arbor reads (and, for a gcc --coverage, python3 or java program, makes itself): " + formatList())}
		}
	case "--java":
		if i := strings.LastIndex(f.java, "."); i <= 0 || i == len(f.java)-1 {
			return usageError{fmt.Errorf("--java wants pkg.Class.method, not %q", f.java)}
		}
	case "--python":
		if mod, fn, ok := strings.Cut(f.python, ":"); !ok || mod == "" || fn == "" {
			return usageError{fmt.Errorf("--python wants module:function, not %q", f.python)}
		}
	}
	return nil
}

func (f *subjectFlags) spec() (subject.Spec, error) {
	s := subject.Spec{Name: f.subject, Go: f.goFunc, Dir: f.dir, CoverPkgs: f.coverPkgs, Grammar: f.grammar}
	var err error
	switch {
	case f.command != "":
		s.Dir, s.CoverPkgs = "", nil
		s.Command, err = f.commandTarget()
	case len(f.cSources) > 0 || f.java != "" || f.python != "":
		s.Dir, s.CoverPkgs = "", nil
		s.Harness, err = f.harnessTarget()
	}
	return s, err
}

// abs makes paths absolute, so that a coverage file or model remembers
// where its subject is wherever it is used from.
func abs(paths []string) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// harnessTarget is the --c, --java or --python subject.
func (f *subjectFlags) harnessTarget() (*coverage.HarnessTarget, error) {
	h := &coverage.HarnessTarget{Cover: f.coverPkgs}
	var err error
	if f.dir != "" {
		if h.Dir, err = filepath.Abs(f.dir); err != nil {
			return nil, err
		}
	}
	switch {
	case len(f.cSources) > 0:
		h.Lang = "c"
		if h.Sources, err = abs(f.cSources); err != nil {
			return nil, err
		}
		if len(h.Cover) > 0 {
			if h.Cover, err = abs(h.Cover); err != nil {
				return nil, err
			}
		}
		if f.cflags != "" {
			if h.Flags, err = coverage.ParseCommand(f.cflags); err != nil {
				return nil, usageError{fmt.Errorf("--cflags: %w", err)}
			}
		}
		if f.root != "" && f.root != "." {
			if h.Root, err = filepath.Abs(f.root); err != nil {
				return nil, err
			}
		}
	case f.java != "":
		h.Lang, h.Entry = "java", f.java
		for _, e := range f.classPath {
			// A bare jar name that is not here is looked up among the
			// system's jars (ARBOR_JAVA_LIBS, Debian's /usr/share/java).
			if !strings.ContainsRune(e, filepath.Separator) {
				if _, err := os.Stat(e); err != nil {
					h.Sources = append(h.Sources, e)
					continue
				}
			}
			a, err := filepath.Abs(e)
			if err != nil {
				return nil, err
			}
			h.Sources = append(h.Sources, a)
		}
	case f.python != "":
		h.Lang, h.Entry = "python", f.python
		if h.Sources, err = abs(f.pythonPath); err != nil {
			return nil, err
		}
	}
	if f.reject != "" {
		for _, name := range strings.Split(f.reject, ",") {
			h.Reject = append(h.Reject, strings.TrimSpace(name))
		}
	}
	return h, nil
}

// commandTarget is the --cmd subject.
func (f *subjectFlags) commandTarget() (*coverage.CommandTarget, error) {
	argv, err := coverage.ParseCommand(f.command)
	if err != nil {
		return nil, usageError{fmt.Errorf("--cmd: %w", err)}
	}
	if _, ok := coverage.ReportFormats()[f.reportFormat]; !ok {
		return nil, usageError{fmt.Errorf("--report: unknown format %q (there are: %s)", f.reportFormat, formatList())}
	}
	dir := f.dir
	if dir != "" {
		if dir, err = filepath.Abs(dir); err != nil {
			return nil, err
		}
	}
	root := f.root
	if !filepath.IsAbs(root) && dir != "" {
		root = filepath.Join(dir, root)
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	t := &coverage.CommandTarget{Argv: argv, Dir: dir, Coverage: f.reportFormat, Root: root}
	if f.reject != "" {
		for _, s := range strings.Split(f.reject, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > 255 {
				return nil, usageError{fmt.Errorf("--reject wants exit statuses 1-255, separated by commas, not %q", f.reject)}
			}
			t.Reject = append(t.Reject, n)
		}
	}
	if f.crash != "" {
		if _, err := regexp.Compile(f.crash); err != nil {
			return nil, usageError{fmt.Errorf("--crash: %w", err)}
		}
		t.Crash = f.crash
	}
	return t, nil
}

// target resolves the subject without its grammar.
func (f *subjectFlags) target(ctx context.Context) (coverage.Target, string, error) {
	if err := f.check(); err != nil {
		return coverage.Target{}, "", err
	}
	s, err := f.spec()
	if err != nil {
		return coverage.Target{}, "", err
	}
	return s.Target(ctx)
}

// setup resolves the subject with its grammar.
func (f *subjectFlags) setup(ctx context.Context) (subject.Setup, error) {
	if err := f.check(); err != nil {
		return subject.Setup{}, err
	}
	if f.subject == "" && f.grammar == "" {
		return subject.Setup{}, usageError{fmt.Errorf("--grammar is required with %s", f.kinds()[0])}
	}
	s, err := f.spec()
	if err != nil {
		return subject.Setup{}, err
	}
	return subject.Resolve(ctx, s)
}

// memoryFlag is --memory: the memory limit of the program under test,
// with the same meaning in every command that runs a user's program
// (record, target, rlcheck).
type memoryFlag struct{ size string }

func (m *memoryFlag) register(fl *pflag.FlagSet) {
	fl.StringVar(&m.size, "memory", "2GiB", "memory limit of the program under test (like 512MiB, 4GB; 0: none); an input needing more ends as a panic (docs/recording.md says what each kind of program counts)")
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

// trustModelFlag is --trust-model, which lets a command run the program
// a model records when the user names none.
func trustModelFlag(fl *pflag.FlagSet, trust *bool) {
	fl.BoolVar(trust, "trust-model", false, "run the program the model records (shown on stderr first) when no program is named; without it, name the program with the subject flags")
}

// modelProgram resolves the program a command runs for model m: the
// one the subject flags name, which must be the model's, or with trust
// the model's own, shown on stderr before anything is built
// (subject.ModelProgram decides). Refusals are usage errors that say what
// the model would run and the ways forward; extra is added to them.
func modelProgram(cmd *cobra.Command, m *learn.Model, f *subjectFlags, trust bool, extra string) (coverage.Target, string, error) {
	var named *coverage.Target
	name := m.Subject
	if f.hasSubject() {
		t, n, err := f.target(contextOf(cmd))
		if err != nil {
			return coverage.Target{}, "", err
		}
		named, name = &t, n
	}
	t, fromModel, err := subject.ModelProgram(contextOf(cmd), m, named, trust)
	var untrusted *subject.UntrustedModelError
	var mismatch *subject.ProgramMismatchError
	switch {
	case errors.As(err, &untrusted):
		msg := fmt.Sprintf("%s runs the program the model was trained on, and a model file does not decide what runs. The model records:\n%s"+
			"Name the program, as when recording it (another program is refused):\n  %s\n"+
			"or, having read the above, add --trust-model to run what the model records.", cmd.CommandPath(), subject.DescribeTarget(untrusted.Recorded),
			subjectFlagsFor(untrusted.Recorded, untrusted.Bundled))
		return coverage.Target{}, "", usageError{errors.New(msg + extra)}
	case errors.As(err, &mismatch):
		return coverage.Target{}, "", usageError{err}
	case err != nil:
		return coverage.Target{}, "", err
	}
	if fromModel {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: --trust-model: running the program the model records:\n%s", cmd.CommandPath(), subject.DescribeTarget(t))
	}
	return t, name, nil
}

// subjectFlagsFor is how the subject flags name target t (or, with
// bundled, that bundled subject): what a user adds to run a model's
// program, having checked it.
func subjectFlagsFor(t coverage.Target, bundled string) string {
	q := subject.ShellQuote
	if bundled != "" {
		return "--subject " + q(bundled)
	}
	var w []string
	dir := func(d string) {
		if d != "" {
			w = append(w, "--dir", q(d))
		}
	}
	switch {
	case t.Harness != nil:
		h := t.Harness
		switch h.Lang {
		case "c":
			w = append(w, "--c", q(strings.Join(h.Sources, ",")))
			if len(h.Flags) > 0 {
				flags := make([]string, len(h.Flags))
				for i, s := range h.Flags {
					flags[i] = q(s)
				}
				w = append(w, "--cflags", q(strings.Join(flags, " ")))
			}
		case "java":
			w = append(w, "--java", q(h.Entry))
			if len(h.Sources) > 0 {
				w = append(w, "--classpath", q(strings.Join(h.Sources, ",")))
			}
		default:
			w = append(w, "--"+q(h.Lang), q(h.Entry))
			if len(h.Sources) > 0 {
				w = append(w, "--pythonpath", q(strings.Join(h.Sources, ",")))
			}
		}
		dir(h.Dir)
	case t.Command != nil:
		c := t.Command
		argv := make([]string, len(c.Argv))
		for i, s := range c.Argv {
			argv[i] = q(s)
		}
		w = append(w, "--cmd", q(strings.Join(argv, " ")), "--report", q(c.Coverage))
		dir(c.Dir)
	default:
		w = append(w, "--go", q(t.ImportPath+"."+t.Func))
		dir(t.Dir)
	}
	return strings.Join(w, " ")
}
