package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

func newEvalSuiteCmd() *cobra.Command {
	var out, shard string
	var subjects []string
	var quick, asJSON bool
	var seed uint64
	var cons constraintsFlag
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
inputs; --quick: 300, 300, 5 inputs, 30 executions, 300. The random
inputs and the targeting loop's satisfy the grammars' constraints unless
--constraints off (as in eval E3 and E4).
suite.csv, suite.json and each subject's work folder go to --out (a
temporary folder if unset; suite.csv and suite.json are rewritten after
every subject, so an interrupted run keeps what it finished). A subject
that fails gets a row with its error and the suite goes on.

--shard i/n runs only every n-th subject, from the i-th: the n shards
run as separate processes or machines (docs/scale.md), each with its own
--out, and 'arbor eval suite merge' joins their suite.json files into the
whole suite's table, the same as one run's but for the timings.`,
		Example: "  arbor eval suite --quick\n  arbor eval suite --out results/suite --subjects json,yaml,css\n  arbor eval suite --shard 2/4 --out results/shard-2",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			generatingGC()
			if err := cons.check(); err != nil {
				return err
			}
			for _, s := range subjects {
				if _, err := subject.Load(contextOf(cmd), s); err != nil {
					return usageError{err}
				}
			}
			var i, n int
			if shard != "" {
				var err error
				if i, n, err = parseShard(shard); err != nil {
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
			res, err := eval.Suite(contextOf(cmd), eval.SuiteConfig{Subjects: subjects, Quick: quick, Seed: seed, NoConstraints: cons.off(), Out: dir,
				CacheDir: coverage.DefaultCacheDir(), Shard: i, Shards: n, Progress: progress})
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
	cmd.Flags().StringVar(&shard, "shard", "", "run only shard `i/n` of the subjects (join the shards with 'eval suite merge')")
	cons.register(cmd.Flags(), "the random inputs satisfy them, and the targeting loop repairs its inputs that break one or drops them")
	cmd.AddCommand(newEvalSuiteMergeCmd())
	return cmd
}

func newEvalSuiteMergeCmd() *cobra.Command {
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge --out DIR SHARD...",
		Short: "Join the results of the suite's shards into one table",
		Long: `merge reads the suite.json of each SHARD (a folder that 'eval suite
--shard i/n --out' wrote, or the file itself), checks that they are of
the same suite (subjects, budgets, seed, constraints) and that no subject
is in two of them, and writes the joined suite.json and suite.csv to
--out and the table to standard output, subjects in the suite's order.
Subjects that no shard has a row for (a shard not run, or stopped before
it finished) are named, the rest is written, and the exit status is 1.`,
		Example: "  arbor eval suite merge --out results/suite results/shard-*",
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError{errors.New("--out is required")}
			}
			var results []*eval.SuiteResult
			for _, a := range args {
				r, err := eval.ReadSuite(resultFile(a, "suite.json"))
				if err != nil {
					return err
				}
				results = append(results, r)
			}
			merged, missing, err := eval.MergeSuite(results)
			if err != nil {
				return err
			}
			if err := eval.WriteSuite(out, merged); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				err = json.NewEncoder(w).Encode(merged)
			} else {
				err = printSuite(w, merged)
			}
			if err != nil {
				return err
			}
			if len(missing) > 0 {
				return fmt.Errorf("the shards lack %d of %d subjects: %s (the others are in %s)", len(missing), len(merged.All),
					strings.Join(missing, ", "), filepath.Join(out, "suite.json"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder for the joined suite.json and suite.csv")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printSuite prints the suite's table and names the subjects where arbor
// does not beat its baselines.
func printSuite(w io.Writer, res *eval.SuiteResult) error {
	b := res.Budgets
	fmt.Fprintf(w, "generalization suite: %d subjects; %d training / %d test inputs; %d inputs asked for per function, at most %d executions; base rates from %d random inputs; seed %d\n",
		len(res.Rows), b.Train, b.Test, b.Inputs, b.Budget, b.BaseInputs, res.Seed)
	var noPred, noMid, noTarget, failed []string
	for _, r := range res.Rows {
		if r.E3 == nil {
			failed = append(failed, r.Subject)
			continue
		}
		pred, target := r.Beats()
		switch {
		case r.E3.MidRate.Functions == 0:
			noMid = append(noMid, r.Subject)
		case !pred:
			noPred = append(noPred, r.Subject)
		}
		if !target && r.E4 != nil {
			noTarget = append(noTarget, r.Subject)
		}
	}
	if err := printTable(w, res); err != nil {
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

// resultFile is the result file a merge reads for its argument arg: arg
// itself, or the file name in it when arg is a folder (a shard's --out).
func resultFile(arg, name string) string {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return filepath.Join(arg, name)
	}
	return arg
}
