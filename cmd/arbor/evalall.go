package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

// lineProgress prints each progress line on w, prefixed with the elapsed time.
func lineProgress(w io.Writer) func(string) {
	start := time.Now()
	return func(s string) { fmt.Fprintf(w, "eval %5.0fs: %s\n", time.Since(start).Seconds(), s) }
}

func newEvalAllCmd() *cobra.Command {
	var out string
	var quick bool
	var seed uint64
	var cons constraintsFlag
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
more; --quick uses small budgets and leaves out the deep subjects (goja,
starlark, cel: interpreters, the slowest to build and run), with E7 and
E8 on the first six Go subjects by name: 3 runs of half a second, and of 500 executions; E9 and E10 on
the first three, 2 runs of 2,000 executions, and 2 repetitions). The
quick E7 leaves out gofuzz: building its fuzz test takes about a second
per subject with a warm build cache but up to a minute with a cold one,
and half-second runs of Go's fuzzer are mostly its workers' start-up.

The inputs the experiments generate satisfy the grammars' constraints
(where clauses) unless --constraints off, as each experiment's own
--constraints says (E2's forestation sets are left as they are).

Progress goes to stderr: a bar on a terminal, plain lines otherwise.
Ctrl-C stops the run; report.md keeps the parts already finished and
says where the run stopped.`,
		Example: "  arbor eval all --out results --quick",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			generatingGC()
			if out == "" {
				return usageError{errors.New("--out is required")}
			}
			if err := cons.check(); err != nil {
				return err
			}
			progress, finish := allProgress(cmd.ErrOrStderr())
			path, err := eval.All(contextOf(cmd), eval.AllConfig{Out: out, Quick: quick, Seed: seed, NoConstraints: cons.off(), CacheDir: coverage.DefaultCacheDir(), Progress: progress})
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
	cons.register(cmd.Flags(), "every experiment's generated inputs satisfy them, as its own --constraints says")
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
