package subject

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
)

// Flags name a program under test as a user writes it on arbor's command
// line, one field per flag: a bundled subject (--subject); a Go function
// (--go, with --dir and --coverpkg); a function of another language that
// arbor's harness for it runs in-process (--c, --java, --python); or a
// command run once per input (--cmd with --report). Check says what is
// wrong with them and Spec makes them a Spec; the errors of both name
// the flags, since they are the user's words.
type Flags struct {
	Name       string   // --subject: a bundled subject
	Go         string   // --go: importpath.Func
	C          []string // --c: C sources, one defining LLVMFuzzerTestOneInput
	CFlags     string   // --cflags: compiler flags of the C sources, as one line
	Java       string   // --java: pkg.Class.method
	ClassPath  []string // --classpath: with Java, folders of classes and jars
	Python     string   // --python: module:function
	PythonPath []string // --pythonpath: with Python, module folders
	Command    string   // --cmd: a command line
	Report     string   // --report: with a command, its coverage report's format
	Reject     string   // --reject: exit statuses, or exception classes, comma-separated
	Crash      string   // --crash: with a command, a regexp that makes a run a crash
	SourceRoot string   // --source-root: with C or a command; "" or "." is the default
	Dir        string   // --dir
	CoverPkgs  []string // --coverpkg
	Grammar    string   // --grammar: a grammar file or bundled grammar
}

// Kinds names the kinds of program the flags give, as the flags that
// give them ("--go"); a well-formed set gives one.
func (f *Flags) Kinds() []string {
	var given []string
	for _, k := range []struct {
		flag string
		set  bool
	}{{"--subject", f.Name != ""}, {"--go", f.Go != ""}, {"--c", len(f.C) > 0}, {"--java", f.Java != ""}, {"--python", f.Python != ""}, {"--cmd", f.Command != ""}} {
		if k.set {
			given = append(given, k.flag)
		}
	}
	return given
}

// FlagError is a mistake in the flags: what Check refuses, or a value
// Spec cannot read. It says which flag, in the user's words.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// flagError is a *FlagError of the message.
func flagError(format string, args ...any) error {
	return &FlagError{fmt.Errorf(format, args...)}
}

// Check reports the misuse of the flags that needs nothing read: not
// exactly one kind of program, a flag that belongs to another kind, or a
// program named in the wrong form. The values that take reading (a
// command line, exit statuses, a regexp) Spec checks. Its errors are
// *FlagErrors.
func (f *Flags) Check() error {
	kinds := f.Kinds()
	if len(kinds) != 1 {
		msg := "give exactly one of --subject NAME, --go IMPORTPATH.Func, --c SOURCES, --java pkg.Class.method, --python module:function and --cmd LINE"
		if len(kinds) > 1 {
			msg += " (given: " + strings.Join(kinds, ", ") + ")"
		}
		return flagError("%s", msg)
	}
	kind := kinds[0]
	// Flags that belong to another kind of program are mistakes, not
	// options to ignore.
	for _, o := range []struct {
		flag  string
		set   bool
		kinds []string
	}{
		{"--dir", f.Dir != "", []string{"--go", "--c", "--java", "--python", "--cmd"}},
		{"--coverpkg", len(f.CoverPkgs) > 0, []string{"--go", "--c", "--java", "--python"}},
		{"--cflags", f.CFlags != "", []string{"--c"}},
		{"--classpath", len(f.ClassPath) > 0, []string{"--java"}},
		{"--pythonpath", len(f.PythonPath) > 0, []string{"--python"}},
		{"--report", f.Report != "", []string{"--cmd"}},
		{"--reject", f.Reject != "", []string{"--cmd", "--java", "--python"}},
		{"--crash", f.Crash != "", []string{"--cmd"}},
		{"--source-root", f.SourceRoot != "." && f.SourceRoot != "", []string{"--cmd", "--c"}},
	} {
		if o.set && !slices.Contains(o.kinds, kind) {
			return flagError("%s goes with %s, not with %s", o.flag, strings.Join(o.kinds, ", "), kind)
		}
	}
	switch kind {
	case "--go":
		if _, err := coverage.ParseTarget(f.Go); err != nil {
			return flagError("--go: %s", err)
		}
	case "--cmd":
		if f.Report == "" {
			return flagError("--cmd needs --report FORMAT: the coverage report arbor reads (and, for a gcc --coverage, python3 or java program, makes itself): %s", ReportFormatList())
		}
	case "--java":
		if i := strings.LastIndex(f.Java, "."); i <= 0 || i == len(f.Java)-1 {
			return flagError("--java wants pkg.Class.method, not %q", f.Java)
		}
	case "--python":
		if mod, fn, ok := strings.Cut(f.Python, ":"); !ok || mod == "" || fn == "" {
			return flagError("--python wants module:function, not %q", f.Python)
		}
	}
	return nil
}

// ReportFormatList is the report formats --report takes, each with the
// files it reads, in one line.
func ReportFormatList() string {
	var names []string
	for name, files := range coverage.ReportFormats() {
		names = append(names, name+" ("+files+")")
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Spec is the program the flags name, its paths made absolute so that
// a coverage file or model remembers where its program is wherever it
// is used from. A value it cannot read is a *FlagError; call Check
// first, since Spec does not repeat it.
func (f *Flags) Spec() (Spec, error) {
	s := Spec{Name: f.Name, Go: f.Go, Dir: f.Dir, CoverPkgs: f.CoverPkgs, Grammar: f.Grammar}
	var err error
	switch {
	case f.Command != "":
		s.Dir, s.CoverPkgs = "", nil
		s.Command, err = f.CommandTarget()
	case len(f.C) > 0 || f.Java != "" || f.Python != "":
		s.Dir, s.CoverPkgs = "", nil
		s.Harness, err = f.HarnessTarget()
	}
	return s, err
}

// HarnessTarget is the --c, --java or --python program.
func (f *Flags) HarnessTarget() (*coverage.HarnessTarget, error) {
	h := &coverage.HarnessTarget{Cover: f.CoverPkgs}
	var err error
	if f.Dir != "" {
		if h.Dir, err = filepath.Abs(f.Dir); err != nil {
			return nil, err
		}
	}
	switch {
	case len(f.C) > 0:
		h.Lang = "c"
		err = f.cHarness(h)
	case f.Java != "":
		h.Lang, h.Entry = "java", f.Java
		h.Sources, err = classPath(f.ClassPath)
	case f.Python != "":
		h.Lang, h.Entry = "python", f.Python
		h.Sources, err = abs(f.PythonPath)
	}
	if err != nil {
		return nil, err
	}
	if f.Reject != "" {
		for _, name := range strings.Split(f.Reject, ",") {
			h.Reject = append(h.Reject, strings.TrimSpace(name))
		}
	}
	return h, nil
}

// cHarness fills in the C harness h: its sources, what it records, its
// compiler flags and its source root.
func (f *Flags) cHarness(h *coverage.HarnessTarget) error {
	var err error
	if h.Sources, err = abs(f.C); err != nil {
		return err
	}
	if len(h.Cover) > 0 {
		if h.Cover, err = abs(h.Cover); err != nil {
			return err
		}
	}
	if h.Flags, err = f.cflags(); err != nil {
		return err
	}
	if f.SourceRoot != "" && f.SourceRoot != "." {
		if h.Root, err = filepath.Abs(f.SourceRoot); err != nil {
			return err
		}
	}
	return nil
}

// classPath makes a Java class path's entries absolute, but for a bare
// jar name that is not here, which is looked up among the system's jars
// (ARBOR_JAVA_LIBS, Debian's /usr/share/java).
func classPath(entries []string) ([]string, error) {
	var out []string
	for _, e := range entries {
		if !strings.ContainsRune(e, filepath.Separator) {
			if _, err := os.Stat(e); err != nil {
				out = append(out, e)
				continue
			}
		}
		a, err := filepath.Abs(e)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// CommandTarget is the --cmd program.
func (f *Flags) CommandTarget() (*coverage.CommandTarget, error) {
	argv, err := f.argv()
	if err != nil {
		return nil, err
	}
	if _, ok := coverage.ReportFormats()[f.Report]; !ok {
		return nil, flagError("--report: unknown format %q (there are: %s)", f.Report, ReportFormatList())
	}
	dir := f.Dir
	if dir != "" {
		if dir, err = filepath.Abs(dir); err != nil {
			return nil, err
		}
	}
	root := f.SourceRoot
	if root == "" {
		root = "."
	}
	if !filepath.IsAbs(root) && dir != "" {
		root = filepath.Join(dir, root)
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	t := &coverage.CommandTarget{Argv: argv, Dir: dir, Coverage: f.Report, Root: root}
	if t.Reject, err = f.rejectStatuses(); err != nil {
		return nil, err
	}
	if t.Crash, err = f.crash(); err != nil {
		return nil, err
	}
	return t, nil
}

// argv is the --cmd line's words.
func (f *Flags) argv() ([]string, error) {
	argv, err := coverage.ParseCommand(f.Command)
	if err != nil {
		return nil, flagError("--cmd: %w", err)
	}
	return argv, nil
}

// rejectStatuses are the exit statuses --reject lists for a command.
func (f *Flags) rejectStatuses() ([]int, error) {
	if f.Reject == "" {
		return nil, nil
	}
	var statuses []int
	for _, s := range strings.Split(f.Reject, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 255 {
			return nil, flagError("--reject wants exit statuses 1-255, separated by commas, not %q", f.Reject)
		}
		statuses = append(statuses, n)
	}
	return statuses, nil
}

// crash is --crash, checked to be a regexp.
func (f *Flags) crash() (string, error) {
	if f.Crash == "" {
		return "", nil
	}
	if _, err := regexp.Compile(f.Crash); err != nil {
		return "", flagError("--crash: %w", err)
	}
	return f.Crash, nil
}

// cflags is --cflags as words.
func (f *Flags) cflags() ([]string, error) {
	if f.CFlags == "" {
		return nil, nil
	}
	words, err := coverage.ParseCommand(f.CFlags)
	if err != nil {
		return nil, flagError("--cflags: %w", err)
	}
	return words, nil
}

// abs makes paths absolute.
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

// FlagsFor is how the flags name target t (or, with bundled, that
// bundled subject), quoted for a shell: what a user adds to a command to
// run a model's program, having checked it.
func FlagsFor(t coverage.Target, bundled string) string {
	q := ShellQuote
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
		w = append(w, harnessFlags(t.Harness)...)
		dir(t.Harness.Dir)
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

// harnessFlags are the flags of a harness, but for --dir, quoted.
func harnessFlags(h *coverage.HarnessTarget) []string {
	q := ShellQuote
	var w []string
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
	return w
}
