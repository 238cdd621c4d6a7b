package main

import (
	"context"
	"errors"
	"fmt"

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
	fl.StringVar(&f.reportFormat, "report", "", "with --cmd: the coverage report `format` (arbor runs gcov, coverage.py or JaCoCo itself for a program built with gcc --coverage, a python3 or a java command line; any other command leaves the report in {dir}): "+subject.ReportFormatList())
	fl.StringVar(&f.reject, "reject", "", "what means the input was rejected (outcome error) rather than a crash: with --cmd exit `statuses` like 1,2 (default: every nonzero status); with --java or --python exception classes (default java.lang.Exception, ValueError)")
	fl.StringVar(&f.crash, "crash", "", "with --cmd: a `regexp` that, found on stderr, makes a run a crash")
	fl.StringVar(&f.root, "source-root", ".", "with --cmd or --c: source paths below this folder are named relative to it")
	fl.StringVar(&f.dir, "dir", "", "with --go: a directory of a module that can import the function's package; otherwise where the program runs (default: the current directory)")
	fl.StringSliceVar(&f.coverPkgs, "coverpkg", nil, "what is recorded: with --go packages (patterns like a/b/... allowed; default: the function's package, the non-standard packages it depends on and the standard-library packages it imports directly, but for plumbing such as fmt and bytes); with --c source files or folders (default: every source); with --java packages or classes, pkg.* for a prefix (default: the method's package); with --python modules or packages (default: the function's module)")
	if withGrammar {
		fl.StringVar(&f.grammar, "grammar", "", "grammar of the subject's inputs: a grammar file or a bundled grammar (required but for a bundled subject, whose grammar is the default)")
	}
}

// flags are the flags' values, for package subject to check and read.
func (f *subjectFlags) flags() *subject.Flags {
	return &subject.Flags{Name: f.subject, Go: f.goFunc, C: f.cSources, CFlags: f.cflags, Java: f.java, ClassPath: f.classPath,
		Python: f.python, PythonPath: f.pythonPath, Command: f.command, Report: f.reportFormat, Reject: f.reject, Crash: f.crash,
		SourceRoot: f.root, Dir: f.dir, CoverPkgs: f.coverPkgs, Grammar: f.grammar}
}

// hasSubject reports whether any subject flag is given.
func (f *subjectFlags) hasSubject() bool { return len(f.flags().Kinds()) > 0 }

// check reports misuse of the flags as a usage error.
func (f *subjectFlags) check() error {
	if err := f.flags().Check(); err != nil {
		return usageError{err}
	}
	return nil
}

// spec is the program the flags name; check them first. A value that
// cannot be read is a usage error.
func (f *subjectFlags) spec() (subject.Spec, error) {
	s, err := f.flags().Spec()
	var fe *subject.FlagError
	if errors.As(err, &fe) {
		return s, usageError{err}
	}
	return s, err
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
		return subject.Setup{}, usageError{fmt.Errorf("--grammar is required with %s", f.flags().Kinds()[0])}
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
func subjectFlagsFor(t coverage.Target, bundled string) string { return subject.FlagsFor(t, bundled) }
