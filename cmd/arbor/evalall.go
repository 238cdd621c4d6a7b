package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

// parseKs reads a list such as "1,2,3".
func parseKs(s string) ([]int, error) {
	var ks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, usageError{fmt.Errorf("--k wants positive integers separated by commas, as in 1,2,3, not %q", s)}
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// lineProgress prints each progress line on w, prefixed with the elapsed time.
func lineProgress(w io.Writer) func(string) {
	start := time.Now()
	return func(s string) { fmt.Fprintf(w, "eval %5.0fs: %s\n", time.Since(start).Seconds(), s) }
}

func newE1Cmd() *cobra.Command {
	var subject subjectFlags
	var ks, out string
	var reps, depth int
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "E1 --subject S",
		Short: "k-path covering sets against grammar-random sets of the same size",
		Long: `E1 builds, for each k in --k and each of --reps repetitions, a set of
inputs that covers every k-path of the subject's grammar, and a set of as
many grammar-random inputs (depth --depth). It runs both sets and reports
the subject's function and block coverage (Go coverage blocks), their
means over repetitions, the two-sided Mann-Whitney U test of k-path
against random block coverage per k, and each distinct panic (by stack
hash) with the share of repetitions in which each technique found it.

With --out it writes E1-SUBJECT.csv, .json and an SVG of block coverage
over repetitions into that folder.`,
		Example: "  arbor eval E1 --subject json --k 1,2,3 --reps 50 --out results",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reps < 2 {
				return usageError{errors.New("--reps must be at least 2 for the U test")}
			}
			kl, err := parseKs(ks)
			if err != nil {
				return err
			}
			s, err := subject.setup()
			if err != nil {
				return err
			}
			r, err := eval.E1(contextOf(cmd), eval.E1Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target, Ks: kl, Reps: reps,
				Seed: seed, MaxDepth: depth, CacheDir: coverage.DefaultCacheDir(), Progress: lineProgress(cmd.ErrOrStderr())})
			if err != nil {
				return err
			}
			if out != "" {
				if _, err := eval.WriteE1(out, r); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(r)
			}
			var rows [][]string
			for _, c := range r.Cells {
				rows = append(rows, []string{strconv.Itoa(c.K), fmt.Sprintf("%.1f", c.SetSize),
					fmt.Sprintf("%.3f", c.BlocksKPath), fmt.Sprintf("%.3f", c.BlocksRandom), fmt.Sprintf("%.2g", c.BlocksP),
					fmt.Sprintf("%.3f", c.FunctionsKPath), fmt.Sprintf("%.3f", c.FunctionsRandom), fmt.Sprintf("%.2g", c.FunctionsP)})
			}
			fmt.Fprintf(w, "%s: %d functions, %d blocks; %d repetitions\n", r.Subject, r.TotalFunctions, r.TotalBlocks, reps)
			if err := renderTable(w, []string{"k", "set size", "blocks k-path", "blocks random", "p", "functions k-path", "functions random", "p"}, rows); err != nil {
				return err
			}
			if len(r.Panics) == 0 {
				fmt.Fprintln(w, "no panics found")
				return nil
			}
			rows = nil
			for _, p := range r.Panics {
				rows = append(rows, []string{strconv.Itoa(p.K), p.Stack, fmt.Sprintf("%.2f", p.RateKPath), fmt.Sprintf("%.2f", p.RateRandom)})
			}
			return renderTable(w, []string{"k", "panic (stack hash)", "found by k-path", "found by random"}, rows)
		},
	}
	subject.register(cmd.Flags(), true)
	cmd.Flags().StringVar(&ks, "k", "1,2,3", "values of k, separated by commas")
	cmd.Flags().IntVar(&reps, "reps", 50, "repetitions")
	cmd.Flags().IntVar(&depth, "depth", 30, "depth of the random inputs")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	cmd.Flags().StringVar(&out, "out", "", "folder for CSV, JSON and SVG")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newE2Cmd() *cobra.Command {
	var subject subjectFlags
	var out string
	var maxK, sets, maxSize int
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "E2 --subject S",
		Short: "Does k-path coverage predict code coverage? Spearman's rho per k",
		Long: `E2 draws --sets forestation sets (grammar-random inputs that grow
structurally, of 1 to --max-size inputs) to span the whole range of k-path
coverage, runs each set, and reports Spearman's rank correlation between
each set's k-path coverage (k = 1..--max-k) and its block coverage.

With --out it writes E2-SUBJECT.csv, .json and one scatter plot per k.`,
		Example: "  arbor eval E2 --subject url --max-k 5 --out results",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxK < 1 || sets < 3 || maxSize < 1 {
				return usageError{errors.New("--max-k and --max-size must be at least 1, --sets at least 3")}
			}
			s, err := subject.setup()
			if err != nil {
				return err
			}
			r, err := eval.E2(contextOf(cmd), eval.E2Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target, MaxK: maxK, Sets: sets,
				MaxSize: maxSize, Seed: seed, CacheDir: coverage.DefaultCacheDir(), Progress: lineProgress(cmd.ErrOrStderr())})
			if err != nil {
				return err
			}
			if out != "" {
				if _, err := eval.WriteE2(out, r); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(r)
			}
			var rows [][]string
			for i := range r.Rho {
				rows = append(rows, []string{strconv.Itoa(i + 1), r.FormatRho(i)})
			}
			fmt.Fprintf(w, "%s: %d sets\n", r.Subject, len(r.Points))
			return renderTable(w, []string{"k", "Spearman rho (k-path vs block coverage)"}, rows)
		},
	}
	subject.register(cmd.Flags(), true)
	cmd.Flags().IntVar(&maxK, "max-k", 5, "k-path coverage for k = 1..`K`")
	cmd.Flags().IntVar(&sets, "sets", 40, "forestation sets")
	cmd.Flags().IntVar(&maxSize, "max-size", 80, "inputs in the largest set")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	cmd.Flags().StringVar(&out, "out", "", "folder for CSV, JSON and SVG")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newEvalAllCmd() *cobra.Command {
	var out string
	var quick bool
	var seed uint64
	cmd := &cobra.Command{
		Use:   "all --out DIR",
		Short: "Run E1-E10 on the bundled subjects and write DIR/report.md",
		Long: `all runs every experiment on the bundled subjects - E1 and E2 on json,
gjson, url and csv; E3, E4 and E5 on every bundled subject (the
generalization suite, as 'arbor eval suite'); E6 on its three benchmarks;
E7 (coverage over time: random, the bandit generator, Zest-style fuzzing
and Go's fuzzer on a grammar-aware fuzz target),
E8 (FairFuzz and PerfFuzz against plain fuzzing), E9 (Bonsai's bounded
lattice against unbounded fuzzing) and E10 (seeding from the bandit
generator) on every bundled subject - and writes
DIR/report.md, which links each experiment's CSV, JSON and plots.

The full preset (50 E1 repetitions, k up to 5 in E2, the suite's 1000
training inputs and 10 inputs per function, 100,000 BST trials) takes
the better part of an hour on two cores once the subjects are built, and
E7's 10 runs of 10 seconds per method and subject nearly three hours
more; --quick uses small budgets (E7 and E8 on the first six Go subjects
by name: 3 runs of half a second, and of 500 executions; E9 and E10 on
the first three, 2 runs of 2,000 executions, and 2 repetitions). The
quick E7 leaves out gofuzz: building its fuzz test takes about a second
per subject with a warm build cache but up to a minute with a cold one,
and half-second runs of Go's fuzzer are mostly its workers' start-up.

Progress goes to stderr: a bar on a terminal, plain lines otherwise.
Ctrl-C stops the run; report.md keeps the parts already finished and
says where the run stopped.`,
		Example: "  arbor eval all --out results --quick",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError{errors.New("--out is required")}
			}
			progress, finish := allProgress(cmd.ErrOrStderr())
			path, err := eval.All(contextOf(cmd), eval.AllConfig{Out: out, Quick: quick, Seed: seed, CacheDir: coverage.DefaultCacheDir(), Progress: progress})
			finish()
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("interrupted; the finished parts are in %s", path)
			}
			if err != nil {
				return fmt.Errorf("%w (the finished parts are in %s)", err, path)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", path)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder for the report, tables and plots")
	cmd.Flags().BoolVar(&quick, "quick", false, "small budgets")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	return cmd
}

// allProgress shows eval all's progress: a bar over the parts when w is a
// terminal, otherwise one line per step. finish ends the bar.
func allProgress(w io.Writer) (progress func(eval.Step), finish func()) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		lines := lineProgress(w)
		return func(s eval.Step) { lines(fmt.Sprintf("[%d/%d] %s", s.Done, s.Total, s.Text)) }, func() {}
	}
	var bar *progressbar.ProgressBar
	return func(s eval.Step) {
			if bar == nil {
				bar = progressbar.NewOptions(s.Total, progressbar.OptionSetWriter(f), progressbar.OptionShowCount(),
					progressbar.OptionSetElapsedTime(true), progressbar.OptionFullWidth())
			}
			bar.Describe(s.Text)
			bar.Set(s.Done)
		}, func() {
			if bar != nil {
				bar.Finish()
				fmt.Fprintln(f)
			}
		}
}

func newEvalSuiteCmd() *cobra.Command {
	var out string
	var subjects []string
	var quick, asJSON bool
	var seed uint64
	cmd := &cobra.Command{
		Use:   "suite [--quick] [--out DIR]",
		Short: "The generalization suite: E3 and E4 on every bundled subject, one table",
		Long: `suite runs E3 (prediction) and E4 (targeting, at equal executions) on
every bundled subject - or those named with --subjects - one after the
other, and prints one table: trainable functions, distinct label vectors,
accuracy / precision / recall (means over trainable functions) with the
majority-class baseline and balanced accuracy, the same over mid-rate
functions (test base rate in [0.05, 0.95]), the share of all trainable
functions reached by targeted inputs and by random inputs at the same
number of executions (with random's expected share 1-(1-p)^executions),
the reach on rare functions (base rate < 0.05), the median share of
requested inputs verified, mean sizes, and whether arbor beats its
baselines there.

Budgets: 1000 training and 1000 test inputs, 10 inputs asked for per
function with at most 100 executions each, base rates from 1000 random
inputs; --quick: 300, 300, 5 inputs, 30 executions, 300.
suite.csv, suite.json and each subject's work folder go to --out (a
temporary folder if unset; suite.csv and suite.json are rewritten after
every subject, so an interrupted run keeps what it finished). A subject
that fails gets a row with its error and the suite goes on.`,
		Example: "  arbor eval suite --quick\n  arbor eval suite --out results/suite --subjects json,yaml,css",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, s := range subjects {
				if _, err := eval.LoadSubject(s); err != nil {
					return usageError{err}
				}
			}
			dir := out
			if dir == "" {
				tmp, err := os.MkdirTemp("", "arbor-suite-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			}
			progress, finish := allProgress(cmd.ErrOrStderr())
			res, err := eval.Suite(contextOf(cmd), eval.SuiteConfig{Subjects: subjects, Quick: quick, Seed: seed, Out: dir,
				CacheDir: coverage.DefaultCacheDir(), Progress: progress})
			finish()
			if err != nil {
				if out != "" {
					return fmt.Errorf("%w (the finished subjects are in %s)", err, filepath.Join(out, "suite.csv"))
				}
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(res)
			}
			return printSuite(w, res)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder for suite.csv, suite.json and work files")
	cmd.Flags().StringSliceVar(&subjects, "subjects", nil, "bundled subjects to run (default: all)")
	cmd.Flags().BoolVar(&quick, "quick", false, "small budgets")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printSuite prints the suite's table and names the subjects where arbor
// does not beat its baselines.
func printSuite(w io.Writer, res *eval.SuiteResult) error {
	b := res.Budgets
	fmt.Fprintf(w, "generalization suite: %d subjects; %d training / %d test inputs; %d inputs asked for per function, at most %d executions; base rates from %d random inputs; seed %d\n",
		len(res.Rows), b.Train, b.Test, b.Inputs, b.Budget, b.BaseInputs, res.Seed)
	var rows [][]string
	var noPred, noMid, noTarget, failed []string
	for _, r := range res.Rows {
		if r.E3 == nil {
			rows = append(rows, []string{r.Subject, "error: " + r.Error})
			failed = append(failed, r.Subject)
			continue
		}
		e, mr := r.E3, r.E3.MidRate
		row := []string{r.Subject, strconv.Itoa(e.FunctionsTrainable), strconv.Itoa(e.DistinctLabels),
			fmt.Sprintf("%.2f/%.2f/%.2f", e.Accuracy, e.Precision, e.Recall), fmt.Sprintf("%.2f", e.Baseline), fmt.Sprintf("%.2f", e.Balanced),
			fmt.Sprintf("%d: %.2f/%.2f", mr.Functions, mr.Precision, mr.Recall), fmt.Sprintf("%.2f vs %.2f", mr.Accuracy, mr.Baseline)}
		if t := r.E4; t != nil {
			row = append(row, fmt.Sprintf("%.2f vs %.2f (%.2f)", t.Absolute.Targeted, t.Absolute.Random, t.ExpectedRandom),
				fmt.Sprintf("%d: %.2f vs %.2f", t.Rare.Functions, t.Rare.Targeted, t.Rare.Random),
				fmt.Sprintf("%.2f", t.HitRate), fmt.Sprintf("%.0f vs %.0f", t.Size.Targeted, t.Size.Random), fmt.Sprintf("%.1f", t.ExecutionsPerInput))
		} else {
			row = append(row, "error: "+r.Error, "", "", "", "")
		}
		pred, target := r.Beats()
		switch {
		case mr.Functions == 0:
			noMid = append(noMid, r.Subject)
		case !pred:
			noPred = append(noPred, r.Subject)
		}
		if !target && r.E4 != nil {
			noTarget = append(noTarget, r.Subject)
		}
		rows = append(rows, row)
	}
	if err := renderTable(w, []string{"subject", "trainable", "label vectors", "acc/prec/rec", "baseline", "balanced", "mid-rate n: prec/rec", "mid-rate acc vs baseline",
		"reach targeted vs random (expected)", "rare n: targeted vs random", "hit rate", "size targeted vs random", "executions per input"}, rows); err != nil {
		return err
	}
	list := func(s []string) string {
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(w, "prediction does not beat the majority class on mid-rate functions: %s\n", list(noPred))
	if len(noMid) > 0 {
		fmt.Fprintf(w, "no mid-rate function (nothing a base rate does not already predict): %s\n", list(noMid))
	}
	fmt.Fprintf(w, "targeting reaches fewer functions than random is expected to at the same executions: %s\n", list(noTarget))
	if len(failed) > 0 {
		fmt.Fprintf(w, "failed: %s\n", list(failed))
	}
	return nil
}
