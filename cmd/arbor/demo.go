package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/learn"
)

// demoFlags are demo's flags.
type demoFlags struct {
	out           string
	subject       subjectFlags
	train, test   int
	seed          uint64
	asJSON, force bool
	constraints   constraintsFlag
}

func newDemoCmd() *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on a subject (the bundled encoding/json by default)",
		Long: `demo runs arbor end to end on a real library: it generates grammar-random
training and test inputs, records which functions each one runs, trains
one decision tree per function, reports how well the trees predict the
test inputs' coverage, explains one function's calling condition as
grammar patterns, generates inputs aimed at it without running the
program, runs them to verify, and compares targeted with random inputs
over every function. It takes a few seconds (the first run also builds
the harness).

Everything it writes goes to one new folder, named at the start and
listed at the end: --out, by default arbor-demo-SUBJECT in the current
folder. A folder that already holds files is refused, so that two runs
do not mix, unless --force, which first removes what an earlier demo
wrote there (and nothing else).

With --json the story goes to stderr and stdout gets the numbers
(docs/json.md).

The subject is a bundled one (--subject, json by default), or any Go
function, function of another language or command with a grammar of its
inputs (--go importpath.Func, --c, --java, --python or --cmd, each with
--grammar G; see 'arbor record --help').`,
		Example: "  arbor demo\n  arbor demo --subject gjson --out /tmp/gjson-demo\n  arbor demo --go example.com/semver.Run --grammar semver.grammar --dir ./semver",
		Args:    exactArgs(0),
		RunE:    func(cmd *cobra.Command, args []string) error { return runDemo(cmd, &f) },
	}
	cmd.Flags().StringVar(&f.out, "out", "", "new folder to write everything to (default arbor-demo-SUBJECT here)")
	cmd.Flags().BoolVar(&f.force, "force", false, "use an --out folder that already holds files, removing what an earlier demo wrote there")
	f.subject.register(cmd.Flags(), true)
	cmd.Flags().Lookup("subject").DefValue = "json"
	f.subject.subject = "json"
	cmd.Flags().IntVar(&f.train, "train", learn.DefaultTrainInputs, "training inputs")
	cmd.Flags().IntVar(&f.test, "test", 500, "test inputs")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "random seed")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the results as JSON on stdout, the story on stderr")
	f.constraints.register(cmd.Flags(), "the grammar-random inputs satisfy them, and the comparison's targeting loop repairs or drops its inputs that break one (the aimed inputs are the solver's)")
	return cmd
}

// runDemo runs eval.Demo with the story on stdout, or with --json on
// stderr, the numbers on stdout.
func runDemo(cmd *cobra.Command, f *demoFlags) error {
	start := time.Now()
	w := cmd.OutOrStdout()
	if f.asJSON {
		w = cmd.ErrOrStderr()
	}
	if f.train < 1 || f.test < 1 {
		// The story counts what was generated: a zero here would
		// be E3's default, not what the story says.
		return usageError{errors.New("--train and --test must be at least 1")}
	}
	if err := f.constraints.check(); err != nil {
		return err
	}
	if !cmd.Flags().Changed("subject") {
		// json is the default only when no other subject is named.
		f.subject.subject = ""
		if !f.subject.hasSubject() {
			f.subject.subject = "json"
		}
	}
	s, err := f.subject.setup(contextOf(cmd))
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = demoFolder(s.Name)
	}
	if err := prepareDemoFolder(out, f.force); err != nil {
		return err
	}
	story := demoStory{w: w, train: f.train, test: f.test}
	res, err := eval.Demo(contextOf(cmd), eval.DemoConfig{Subject: s, Out: out, Train: f.train, Test: f.test, Seed: f.seed,
		NoConstraints: f.constraints.off(), CacheDir: coverage.DefaultCacheDir(), Step: story.step,
		Progress: func(msg string) {
			fmt.Fprintf(cmd.ErrOrStderr(), "      %s (%.1fs)\n", msg, time.Since(start).Seconds())
		}})
	if err != nil {
		return err
	}
	if f.asJSON {
		return writeJSON(cmd.OutOrStdout(), res)
	}
	fmt.Fprintf(w, "\nDone in %.1fs. Everything is in %s:\n", time.Since(start).Seconds(), out)
	if err := listDemoFolder(w, out); err != nil {
		return err
	}
	fmt.Fprintf(w, "Try: arbor explain --model %s --function '%s'\n", filepath.Join(out, "model.json.gz"), res.Function)
	return nil
}

// demoStory tells the demo's story on w as its steps start (a heading)
// and are done (what they found).
type demoStory struct {
	w           io.Writer
	train, test int // inputs generated
}

func (st demoStory) step(s eval.DemoStep) error {
	w, r := st.w, s.Result
	if !s.Done {
		if s.N == 1 {
			fmt.Fprintf(w, "arbor demo on %s: everything goes to the folder %s\n", r.Subject, r.Out)
		}
		fmt.Fprintf(w, "\n[%d/%d] %s\n", s.N, eval.DemoSteps, demoHeading(s.N, r))
		return nil
	}
	switch s.N {
	case 1:
		st.learned(r)
	case 2:
		st.predicted(r)
	case 3:
		explained(w, r)
	case 4:
		aimed(w, r)
	case 5:
		t := r.Targeted
		fmt.Fprintf(w, "      %d of %d targeted inputs ran %s: what the tree alone gets, with no feedback\n", t.Ran, t.Total, r.Function)
		fmt.Fprintf(w, "      (step 6's targeting loop runs its inputs and learns from them, and counts only inputs that did run the function)\n")
	case 6:
		return compared(w, r)
	}
	return nil
}

// demoHeading is step n's heading.
func demoHeading(n int, r *eval.DemoResult) string {
	switch n {
	case 1:
		return fmt.Sprintf("Learn which inputs make which functions of %s run", r.Subject)
	case 2:
		return fmt.Sprintf("Predict the coverage of %d new inputs without running them", r.Prediction.TestInputs)
	case 3:
		return fmt.Sprintf("Explain when %s runs", r.Function)
	case 4:
		return fmt.Sprintf("Generate inputs aimed at %s, without running the program", r.Function)
	case 5:
		return "Run them to verify"
	}
	return "Targeted against grammar-random inputs, over every function (E4)"
}

func (st demoStory) learned(r *eval.DemoResult) {
	w, e3 := st.w, r.Prediction
	fmt.Fprintf(w, "      %d training inputs generated; %s: %d distinct inputs recorded\n",
		st.train, plural(st.train-r.TrainDistinct, "duplicate", "duplicates")+" removed", r.TrainDistinct)
	if left := r.TrainDistinct - e3.TrainInputs; left > 0 {
		fmt.Fprintf(w, "      learned from %d of them (left out: %s)\n", e3.TrainInputs, countsText(r.Model.Stats.Skipped, "input"))
	}
	fmt.Fprintf(w, "      %d functions ran at least once: %d on every input, %d on some but not all (one tree each)\n",
		e3.FunctionsObserved, e3.FunctionsObserved-e3.FunctionsTrainable, e3.FunctionsTrainable)
}

func (st demoStory) predicted(r *eval.DemoResult) {
	w, e3 := st.w, r.Prediction
	fmt.Fprintf(w, "      %d test inputs generated; %s removed, and %d that training had seen: %d new inputs\n",
		st.test, plural(st.test-r.TestDistinct, "duplicate", "duplicates"), e3.TestDuplicates, e3.TestInputs)
	if left := r.TestDistinct - e3.TestDuplicates - e3.TestInputs; left > 0 {
		fmt.Fprintf(w, "      (%d more left out: they did not parse, panicked or timed out)\n", left)
	}
	fmt.Fprintf(w, "      predicted against recorded, mean over the %d functions with trees: accuracy %.3f (always guessing the majority: %.3f),\n"+
		"      balanced accuracy %.3f, precision %.3f, recall %.3f\n",
		e3.FunctionsTrainable, e3.Accuracy, e3.Baseline, e3.Balanced, e3.Precision, e3.Recall)
	if mr := e3.MidRate; mr.Functions > 0 {
		fmt.Fprintf(w, "      over the %d functions that run on 5-95%% of inputs: accuracy %.3f (majority: %.3f), precision %.3f, recall %.3f\n",
			mr.Functions, mr.Accuracy, mr.Baseline, mr.Precision, mr.Recall)
	}
}

// explained prints the function's tree and covering constraints.
func explained(w io.Writer, r *eval.DemoResult) {
	ind := indented{w}
	writeTreeLegend(ind)
	writeTreeText(ind, r.Model, r.Explained, false)
	fmt.Fprintln(w)
	writeConstraintsLegend(ind, len(r.Constraints), false)
	for i, c := range r.Constraints {
		fmt.Fprintf(w, "      %d. %s\n", i+1, indent(c, "         "))
	}
}

// aimed prints the first of the inputs aimed at the function.
func aimed(w io.Writer, r *eval.DemoResult) {
	inputs := r.Targeted.Inputs
	fmt.Fprintf(w, "      %s of the %d asked for, solved from the tree's constraints in one shot; none has run yet:\n",
		plural(len(inputs), "input", "inputs"), eval.DemoAim)
	for _, in := range inputs[:min(5, len(inputs))] {
		fmt.Fprintf(w, "      %q\n", in)
	}
	if len(inputs) > 5 {
		fmt.Fprintf(w, "      ... %d inputs in all, in %s\n", len(inputs), r.Targeted.Dir)
	}
}

// compared prints E4's comparison and what its figures measure.
func compared(w io.Writer, r *eval.DemoResult) error {
	tr := r.Comparison
	full, some := 0, 0
	for _, f := range tr.PerFunction {
		switch {
		case f.Targeted >= f.Requested:
			full++
		case f.Targeted > 0:
			some++
		}
	}
	fmt.Fprintf(w, "      for each of the %d functions, the targeting loop solved, ran, refitted and mutated until %d of its inputs ran\n"+
		"      the function or %d executions were spent: all %d verified for %d functions, some for %d, none for %d\n",
		tr.Functions, tr.Requested, tr.Budget, tr.Requested, full, some, tr.Functions-full-some)
	f2 := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	if err := renderTable(indented{w}, []string{fmt.Sprintf("%d inputs asked for per function, at most %d executions", tr.Requested, tr.Budget), "targeted", "random, equal executions", "random expected"}, [][]string{
		{"share of the inputs asked for that were verified (median)", f2(tr.HitRate), "", ""},
		{"functions reached, of all trainable", f2(tr.Absolute.Targeted), f2(tr.Absolute.Random), f2(tr.ExpectedRandom)},
		{fmt.Sprintf("rare functions reached (%d with base rate < %.2f)", tr.Rare.Functions, eval.RareLimit), f2(tr.Rare.Targeted), f2(tr.Rare.Random), f2(tr.Rare.Expected)},
		{"mean input size (bytes)", fmt.Sprintf("%.1f", tr.Size.Targeted), fmt.Sprintf("%.1f", tr.Size.Random), ""},
	}); err != nil {
		return err
	}
	fmt.Fprintf(w, "      verified (median) is the loop's share of the %d inputs asked for, per function, that ran it; step 5's\n"+
		"      %d of %d is one function's single shot without the loop. Random, equal executions: as many random inputs\n"+
		"      as the loop ran for the function; random expected: the chance 1-(1-p)^executions at its base rate p.\n",
		tr.Requested, r.Targeted.Ran, r.Targeted.Total)
	return nil
}

// demoEntry is something demo writes into its folder, with what it is.
// In what, "#" stands for the number of files in a folder that are not
// entries of their own (the inputs).
type demoEntry struct {
	name, what string
	in         []demoEntry // a folder's entries worth a line each
}

// demoEntries are what demo writes, in the order the closing summary
// lists them.
var demoEntries = []demoEntry{
	{name: "train", what: "# grammar-random training inputs, as generated (duplicates too)"},
	{name: "train.cov.jsonl", what: "the functions each distinct training input ran (step 1)"},
	{name: "test", what: "# grammar-random test inputs (step 2)"},
	{name: "test.cov.jsonl", what: "the functions each distinct test input ran"},
	{name: "model.json.gz", what: "the model: one tree per function (steps 2 and 3)"},
	{name: "targeted", what: "# inputs of step 4", in: []demoEntry{
		{name: "manifest.jsonl", what: "the constraint each was solved from"},
		{name: "verify.cov.jsonl", what: "the functions each ran in step 5"},
	}},
	{name: "comparison", what: "step 6 (E4)", in: []demoEntry{
		{name: "base", what: "# grammar-random inputs, on which each function's base rate is measured"},
		{name: "base.cov.jsonl", what: "the functions each ran"},
		{name: "targeted", what: "# distinct inputs: the loop's verified ones and as many random ones per function"},
		{name: "targeted.cov.jsonl", what: "the functions each ran, recorded again for E5"},
	}},
}

// demoFolder is the default folder of a demo of the named subject: a
// bundled subject's name, or the last element of a Go function's path,
// in characters every file system takes.
func demoFolder(subject string) string {
	name := subject[strings.LastIndex(subject, "/")+1:]
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, name)
	if name == "" {
		name = "subject"
	}
	return "arbor-demo-" + name
}

// prepareDemoFolder makes dir, refusing one that holds files unless
// force; then it removes only what a demo writes, so that the closing
// list is of this run's files and a user's own files are left alone.
func prepareDemoFolder(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(entries) > 0 {
		if !force {
			return usageError{fmt.Errorf("%s already holds %d entries (an earlier demo?): give a new folder with --out, or --force to replace what a demo wrote there", dir, len(entries))}
		}
		for _, e := range demoEntries {
			if err := os.RemoveAll(filepath.Join(dir, e.name)); err != nil {
				return err
			}
		}
	}
	return os.MkdirAll(dir, 0o755)
}

// listDemoFolder lists what is in dir, with what each entry is and how
// many inputs a folder holds, so that the summary is of the folder as it
// is and not of what the demo meant to write.
func listDemoFolder(w io.Writer, dir string) error {
	return listEntries(w, dir, demoEntries, "  ", "not written by this demo")
}

// listEntries lists the entries of dir known to known, in its order, and
// the others after them as unknown says; it returns the number of files
// in dir, below it too, that are not listed (the ones "#" counts).
func listEntries(w io.Writer, dir string, known []demoEntry, indent, unknown string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	rank := func(e fs.DirEntry) int {
		if i := slices.IndexFunc(known, func(k demoEntry) bool { return k.name == e.Name() }); i >= 0 {
			return i
		}
		return len(known)
	}
	slices.SortStableFunc(entries, func(a, b fs.DirEntry) int { return rank(a) - rank(b) })
	for _, e := range entries {
		var k demoEntry
		if i := rank(e); i < len(known) {
			k = known[i]
		} else if unknown == "" {
			continue // counted by the folder's "#"
		} else {
			k.what = unknown
		}
		name, what := e.Name(), k.what
		if e.IsDir() {
			name += "/"
			n, err := unlisted(filepath.Join(dir, e.Name()), k.in)
			if err != nil {
				return err
			}
			if strings.Contains(what, "#") {
				what = strings.Replace(what, "#", strconv.Itoa(n), 1)
			} else if n > 0 {
				what += fmt.Sprintf(" (%d files)", n)
			}
		}
		fmt.Fprintf(w, "%s%-*s %s\n", indent, 22-len(indent), name, what)
		if e.IsDir() && len(k.in) > 0 {
			if err := listEntries(w, filepath.Join(dir, e.Name()), k.in, indent+"  ", ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// unlisted counts the files below dir but for those of the entries in
// listed, which have lines of their own.
func unlisted(dir string, listed []demoEntry) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && filepath.Dir(path) == dir && slices.ContainsFunc(listed, func(k demoEntry) bool { return k.name == d.Name() }) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			n++
		}
		return nil
	})
	return n, err
}

// plural is "n word", with the plural word unless n is 1.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// indented prefixes every line written through it.
type indented struct {
	w interface{ Write([]byte) (int, error) }
}

func (i indented) Write(p []byte) (int, error) {
	lines := slices.Collect(func(yield func(string) bool) {
		start := 0
		for k, c := range p {
			if c == '\n' {
				if !yield(string(p[start : k+1])) {
					return
				}
				start = k + 1
			}
		}
		if start < len(p) {
			yield(string(p[start:]))
		}
	})
	for _, l := range lines {
		if l != "\n" {
			l = "      " + l // no trailing blanks on an empty line
		}
		if _, err := fmt.Fprint(i.w, l); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func indent(s, prefix string) string {
	out := []byte{}
	for k, c := range []byte(s) {
		out = append(out, c)
		if c == '\n' && k < len(s)-1 {
			out = append(out, prefix...)
		}
	}
	return string(out)
}
