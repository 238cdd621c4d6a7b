package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/subject"
)

// AllConfig configures 'eval all'.
type AllConfig struct {
	Out   string
	Quick bool
	Seed  uint64
	// NoConstraints runs every experiment without the grammars'
	// constraints (where clauses); by default the inputs they generate
	// satisfy them (each experiment's NoConstraints says which).
	NoConstraints bool
	CacheDir      string
	Progress      func(Step)
}

// Step reports the progress of All: Done of Total parts are finished,
// and Text says what the current part is doing.
type Step struct {
	Done, Total int
	Text        string
}

// allBudgets are All's sizes of every experiment: fullBudgets, or
// quickBudgets with AllConfig.Quick.
type allBudgets struct {
	e1Reps               int
	e2Sets, e2MaxK       int
	suite                SuiteBudgets
	e6BST, e6Trials      int
	e7Reps               int
	e7Time               time.Duration
	e7Methods            []string
	e8Reps, e8Execs      int
	e8BaseInputs         int
	e9Reps, e9Execs      int
	e10Reps, e10Trials   int
	e10Seeds, e10Execs   int
	fewerFuzzingSubjects int // E9's and E10's subjects: the first few of E7's (0: all)
}

var (
	// fullBudgets: 10 runs of 10 seconds per E7 method, of 5,000
	// executions per E8 variant and of 20,000 per E9 method; E10's 10
	// repetitions of 2,000 generator trials, 20 seeds per filter and up
	// to 20,000 seedless executions.
	fullBudgets = allBudgets{e1Reps: 50, e2Sets: 40, e2MaxK: 5, suite: DefaultSuiteBudgets, e6BST: 100000, e6Trials: 3000,
		e7Reps: 10, e7Time: 10 * time.Second, e7Methods: E7DefaultMethods, e8Reps: 10, e8Execs: 5000, e8BaseInputs: 1000,
		e9Reps: 10, e9Execs: 20000, e10Reps: 10, e10Trials: 2000, e10Seeds: 20, e10Execs: 20000}
	// quickBudgets: E7QuickMethods, 3 runs of half a second; E8, 3 runs
	// of 500; E9 and E10 on the first three of E7's subjects (cron, css
	// and csv), 2 runs of 2,000 executions (the lattice's 27 campaigns
	// then get 74 each), and 2 repetitions of 300 trials, 10 seeds and
	// 2,000 executions.
	quickBudgets = allBudgets{e1Reps: 10, e2Sets: 30, e2MaxK: 5, suite: QuickSuiteBudgets, e6BST: 20000, e6Trials: 1000,
		e7Reps: 3, e7Time: 500 * time.Millisecond, e7Methods: E7QuickMethods, e8Reps: 3, e8Execs: 500, e8BaseInputs: 200,
		e9Reps: 2, e9Execs: 2000, e10Reps: 2, e10Trials: 300, e10Seeds: 10, e10Execs: 2000, fewerFuzzingSubjects: 3}
)

// kpathSubjects are E1's and E2's subjects in All.
var kpathSubjects = []string{"json", "gjson", "url", "csv"}

// All runs E1–E10 on the bundled subjects and writes DIR/report.md, with
// tables and links to each experiment's CSV, JSON and plots. Each part is
// written as soon as it is done, and report.md is rewritten after every
// part, so a run stopped early keeps what it finished. The quick preset
// uses small budgets.
func All(ctx context.Context, cfg AllConfig) (path string, err error) {
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return "", err
	}
	a := &allRun{cfg: cfg, budgets: fullBudgets, path: filepath.Join(cfg.Out, "report.md"), start: time.Now(),
		total: 2*len(kpathSubjects) + len(allSubjects(cfg.Quick)) + 1 + 4}
	if cfg.Quick {
		a.budgets = quickBudgets
	}
	fmt.Fprintf(&a.report, "# arbor evaluation report\n\nPreset: %s. Seed %d. Constraints %s. Each section links its CSV, JSON and plots.\n",
		map[bool]string{true: "quick", false: "full"}[cfg.Quick], cfg.Seed, map[bool]string{true: "off", false: "on"}[cfg.NoConstraints])
	// A run that stops early (an error, or Ctrl-C cancelling ctx) keeps
	// the parts it finished and says where it stopped.
	defer func() {
		path = a.path
		if err != nil {
			fmt.Fprintf(&a.report, "\n**Stopped before finishing:** %v\n", err)
			if werr := a.flush(); werr != nil {
				err = fmt.Errorf("%w (and writing the report: %v)", err, werr)
			}
		}
	}()
	for _, part := range []func(context.Context) error{a.e1, a.e2, a.suite, a.e6, a.e7, a.e8, a.e9, a.e10} {
		if err := part(ctx); err != nil {
			return "", err
		}
	}
	a.say("done")
	return a.path, a.flush()
}

// allRun is one run of All: the report so far and how far it has come.
// Each of its parts runs an experiment, writes its files and its section
// and rewrites the report.
type allRun struct {
	cfg         AllConfig
	budgets     allBudgets
	path        string // report.md
	start       time.Time
	report      strings.Builder
	done, total int // parts
	// kpath are E1's subjects, loaded once for E2 too.
	kpath []subject.Setup
}

// flush rewrites report.md with what is done so far.
func (a *allRun) flush() error {
	return os.WriteFile(a.path, []byte(a.report.String()+fmt.Sprintf("\n_Written after %.0fs._\n", time.Since(a.start).Seconds())), 0o644)
}

// sub forwards an experiment's own progress lines as steps of the
// current part; say starts a part.
func (a *allRun) sub(text string) {
	if a.cfg.Progress != nil {
		a.cfg.Progress(Step{Done: a.done, Total: a.total, Text: text})
	}
}

func (a *allRun) say(format string, args ...any) { a.sub(fmt.Sprintf(format, args...)) }

// finish ends a part: one more is done, and the report is rewritten.
func (a *allRun) finish() error {
	a.done++
	return a.flush()
}

func (a *allRun) e1(ctx context.Context) error {
	b := &a.report
	e1Intro(b, a.budgets.e1Reps)
	var err error
	if a.kpath, err = loadSubjects(ctx, kpathSubjects...); err != nil {
		return err
	}
	var files []string
	var panics [][]string
	for _, s := range a.kpath {
		a.say("E1 %s", s.Name)
		r, err := E1(ctx, E1Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target, Reps: a.budgets.e1Reps, Seed: a.cfg.Seed,
			NoConstraints: a.cfg.NoConstraints, CacheDir: a.cfg.CacheDir, Progress: a.sub})
		if err != nil {
			return err
		}
		written, err := WriteE1(a.cfg.Out, r)
		if err != nil {
			return err
		}
		files = append(files, written...)
		rows, rowsPanics := e1Rows(r)
		markdownRows(b, rows)
		panics = append(panics, rowsPanics...)
		a.done++
	}
	e1Panics(b, panics)
	fmt.Fprintf(b, "\nFiles: %s\n", a.links(files))
	return a.flush()
}

func (a *allRun) e2(ctx context.Context) error {
	b := &a.report
	e2Intro(b, a.budgets.e2Sets, a.budgets.e2MaxK)
	var files []string
	for _, s := range a.kpath {
		a.say("E2 %s", s.Name)
		r, err := E2(ctx, E2Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target, MaxK: a.budgets.e2MaxK, Sets: a.budgets.e2Sets,
			Seed: a.cfg.Seed, CacheDir: a.cfg.CacheDir, Progress: a.sub})
		if err != nil {
			return err
		}
		written, err := WriteE2(a.cfg.Out, r)
		if err != nil {
			return err
		}
		files = append(files, written...)
		a.done++
		markdownRow(b, e2Row(r))
	}
	fmt.Fprintf(b, "\nFiles: %s\n", a.links(files))
	return a.flush()
}

// suite runs E3, E4 and E5 (the generalization suite) on every bundled
// subject, one at a time, each into its own folder.
func (a *allRun) suite(ctx context.Context) error {
	b := &a.report
	suiteIntro(b, a.budgets.suite)
	var e5 [][]string
	for _, bs := range allSubjects(a.cfg.Quick) {
		name := bs.Name
		a.say("E3/E4 %s", name)
		r, err := Suite(ctx, SuiteConfig{Subjects: []string{name}, Quick: a.cfg.Quick, Seed: a.cfg.Seed, Out: filepath.Join(a.cfg.Out, "suite", name),
			NoConstraints: a.cfg.NoConstraints, CacheDir: a.cfg.CacheDir, Progress: func(st Step) { a.sub("E3/E4 " + st.Text) }})
		if err != nil {
			return err
		}
		a.done++
		row, e5row := suiteRows(r.Rows[0])
		markdownRow(b, row)
		if e5row != nil {
			e5 = append(e5, e5row)
		}
		if r.Rows[0].E3 == nil {
			continue // written with the next row
		}
		if err := a.flush(); err != nil {
			return err
		}
	}
	e5Section(b, e5)
	return a.flush()
}

func (a *allRun) e6(ctx context.Context) error {
	a.say("E6: 3 benchmarks, three guides each")
	bs, closeBenchmarks, err := E6Benchmarks(ctx, E6BenchmarkConfig{Seed: a.cfg.Seed, BSTTrials: a.budgets.e6BST, Trials: a.budgets.e6Trials,
		NoConstraints: a.cfg.NoConstraints, CacheDir: a.cfg.CacheDir})
	if err != nil {
		return err
	}
	defer closeBenchmarks()
	r, err := E6(ctx, bs, a.cfg.Seed, a.cfg.Out)
	if err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(a.cfg.Out, "E6.json"), r); err != nil {
		return err
	}
	e6Section(&a.report, r)
	return a.finish()
}

func (a *allRun) e7(ctx context.Context) error {
	setups, err := fuzzingSubjects(ctx, a.cfg.Quick)
	if err != nil {
		return err
	}
	reps, per, methods := a.budgets.e7Reps, a.budgets.e7Time, a.budgets.e7Methods
	a.say("E7: %d subjects, methods %s, %d runs of %v each", len(setups), strings.Join(methods, ", "), reps, per)
	r, err := E7(ctx, E7Config{Subjects: setups, Time: per, Reps: reps, Seed: a.cfg.Seed, NoConstraints: a.cfg.NoConstraints, CacheDir: a.cfg.CacheDir,
		Methods: methods, Progress: a.sub})
	if err != nil {
		return err
	}
	return writePart(a, r, WriteE7, func(b *strings.Builder, r *E7Result, files []string) { e7Section(b, r, per, files) })
}

func (a *allRun) e8(ctx context.Context) error {
	setups, err := fuzzingSubjects(ctx, a.cfg.Quick)
	if err != nil {
		return err
	}
	reps, execs := a.budgets.e8Reps, a.budgets.e8Execs
	a.say("E8: %d subjects, three variants, %d runs of %d executions each", len(setups), reps, execs)
	r, err := E8(ctx, E8Config{Subjects: setups, Execs: execs, Reps: reps, BaseInputs: a.budgets.e8BaseInputs, Seed: a.cfg.Seed,
		NoConstraints: a.cfg.NoConstraints, CacheDir: a.cfg.CacheDir, Progress: a.sub})
	if err != nil {
		return err
	}
	return writePart(a, r, WriteE8, e8Section)
}

func (a *allRun) e9(ctx context.Context) error {
	setups, err := a.fewerFuzzingSubjects(ctx)
	if err != nil {
		return err
	}
	reps, execs := a.budgets.e9Reps, a.budgets.e9Execs
	a.say("E9: %d subjects, %d runs of %d executions per method", len(setups), reps, execs)
	r, err := E9(ctx, E9Config{Subjects: setups, Execs: execs, Reps: reps, Seed: a.cfg.Seed, NoConstraints: a.cfg.NoConstraints, CacheDir: a.cfg.CacheDir,
		Progress: a.sub})
	if err != nil {
		return err
	}
	return writePart(a, r, WriteE9, e9Section)
}

func (a *allRun) e10(ctx context.Context) error {
	setups, err := a.fewerFuzzingSubjects(ctx)
	if err != nil {
		return err
	}
	reps := a.budgets.e10Reps
	a.say("E10: %d subjects, %d repetitions", len(setups), reps)
	r, err := E10(ctx, E10Config{Subjects: setups, Trials: a.budgets.e10Trials, Seeds: a.budgets.e10Seeds, Execs: a.budgets.e10Execs, Reps: reps,
		Seed: a.cfg.Seed, NoConstraints: a.cfg.NoConstraints, CacheDir: a.cfg.CacheDir, Progress: a.sub})
	if err != nil {
		return err
	}
	return writePart(a, r, WriteE10, e10Section)
}

// writePart ends a part: it writes the experiment's files and its
// section, which links them.
func writePart[R any](a *allRun, r R, write func(dir string, r R) ([]string, error), section func(b *strings.Builder, r R, files []string)) error {
	files, err := write(a.cfg.Out, r)
	if err != nil {
		return err
	}
	section(&a.report, r, files)
	return a.finish()
}

// links links files below the report's folder.
func (a *allRun) links(files []string) string {
	var l []string
	for _, f := range files {
		rel, _ := filepath.Rel(a.cfg.Out, f)
		l = append(l, fmt.Sprintf("[%s](%s)", filepath.Base(f), rel))
	}
	return strings.Join(l, " · ")
}

// loadSubjects loads the named bundled subjects.
func loadSubjects(ctx context.Context, names ...string) ([]subject.Setup, error) {
	var out []subject.Setup
	for _, n := range names {
		s, err := subject.Load(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// allSubjects are All's subjects: every bundled subject; the quick
// preset leaves out the deep ones (datasets.Subject.Deep), whose builds
// and runs would take most of its time.
func allSubjects(quick bool) []datasets.Subject {
	var out []datasets.Subject
	for _, s := range datasets.Subjects() {
		if !quick || !s.Deep {
			out = append(out, s)
		}
	}
	return out
}

// fuzzingSubjects are E7's and E8's subjects in All: every bundled
// subject; the quick preset takes the first six Go subjects by name that
// are not deep (cron, css, csv, exprlang, fastjson, gjson: chosen by
// name, not by any result).
func fuzzingSubjects(ctx context.Context, quick bool) ([]subject.Setup, error) {
	var setups []subject.Setup
	for _, bs := range allSubjects(quick) {
		if quick && (bs.Lang != "go" || len(setups) == 6) {
			continue
		}
		s, err := subject.Load(ctx, bs.Name)
		if err != nil {
			return nil, err
		}
		setups = append(setups, s)
	}
	return setups, nil
}

// fewerFuzzingSubjects are E9's and E10's subjects: E7's, or the first
// few of them.
func (a *allRun) fewerFuzzingSubjects(ctx context.Context) ([]subject.Setup, error) {
	setups, err := fuzzingSubjects(ctx, a.cfg.Quick)
	if err != nil || a.budgets.fewerFuzzingSubjects == 0 {
		return setups, err
	}
	return setups[:min(a.budgets.fewerFuzzingSubjects, len(setups))], nil
}
