package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

func newEvalLearnersCmd() *cobra.Command {
	var out string
	var subjects, learners []string
	var test int
	var asJSON bool
	var seed uint64
	var cons constraintsFlag
	cmd := &cobra.Command{
		Use:   "learners [--subjects S,...] [--learners L,...] [--out DIR]",
		Short: "Compare ways of learning (feature kinds, balancing, corpus size) on the bundled subjects",
		Long: `learners records, per subject, one grammar-random training corpus (as
large as the largest learner needs) and one test corpus of --test inputs,
and trains and scores every learner on them, as E3 does: mean accuracy,
precision, recall and balanced accuracy over mid-rate functions (test base
rate in [0.05, 0.95]) against the majority-class baseline, plus the
vocabulary size, features per input, training time and prediction
throughput (from parsed trees). Test inputs that occur in the training
corpus are left out, so every learner is scored on the same inputs.

A learner is FEATURES[/OPTION...][@N]: feature kinds as --features takes
them; options 'nobalance' (fit on all rows), 'norecount' (balanced, and
leaves keep the balanced sample's counts), 'depth=D' (tree depth,
default 5) and 'bag=N' (N trees per function on bootstrap samples, voting:
an ensemble, to measure what one would buy; explanations stay one tree's); and N training inputs (default 1000; the first N of the
training corpus, which are the inputs E3 uses with the same seed). The default list compares arbor's original default
(kpath), kpath unbalanced, each family added to k-paths, all families,
and all at 3000 and 10000 inputs.

The corpora's inputs satisfy the grammar's constraints (where clauses)
unless --constraints off.

learners.csv and learners.json go to --out (rewritten after every
subject); the table ends with each learner's medians over the subjects.`,
		Example: "  arbor eval learners --subjects json,url --learners kpath,kpath/nobalance,all@3000",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cons.check(); err != nil {
				return err
			}
			for _, s := range subjects {
				if _, err := subject.Load(contextOf(cmd), s); err != nil {
					return usageError{err}
				}
			}
			ls, err := parseLearners(learners)
			if err != nil {
				return err
			}
			if test < 1 {
				return usageError{fmt.Errorf("--test must be at least 1")}
			}
			dir := out
			if dir == "" {
				tmp, err := os.MkdirTemp("", "arbor-learners-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			}
			progress, finish := allProgress(cmd.ErrOrStderr())
			res, err := eval.LearnerSuite(contextOf(cmd), eval.LearnerSuiteConfig{Subjects: subjects, Learners: ls, Test: test, Seed: seed,
				NoConstraints: cons.off(), Out: dir, CacheDir: coverage.DefaultCacheDir(), Progress: progress})
			finish()
			if err != nil {
				if out != "" {
					return fmt.Errorf("%w (the finished subjects are in %s)", err, filepath.Join(out, "learners.csv"))
				}
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(res)
			}
			return printLearners(w, res)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder for learners.csv, learners.json and work files")
	cmd.Flags().StringSliceVar(&subjects, "subjects", nil, "bundled subjects to run (default: all)")
	cmd.Flags().StringArrayVar(&learners, "learner", nil, "a learner `FEATURES[/OPTION...][@N]` to compare; repeat for several (default: the built-in list)")
	cmd.Flags().IntVar(&test, "test", 1000, "test inputs")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cons.register(cmd.Flags(), "the training and test corpora's inputs satisfy them")
	return cmd
}

// parseLearners reads the --learner flags.
func parseLearners(specs []string) ([]eval.Learner, error) {
	var ls []eval.Learner
	for _, spec := range specs {
		l, err := eval.ParseLearner(spec)
		if err != nil {
			return nil, usageError{err}
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// printLearners prints one row per subject and learner, then every
// learner's medians over the subjects.
func printLearners(w io.Writer, res *eval.LearnerSuiteResult) error {
	subjects := map[string]bool{}
	for _, r := range res.Results {
		subjects[r.Subject] = true
	}
	fmt.Fprintf(w, "learner comparison: %d subjects, seed %d\n", len(subjects), res.Seed)
	if err := printTable(w, res); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nmedians over subjects with mid-rate functions:")
	header, rows := res.MedianTable()
	if err := renderTable(w, header, rows); err != nil {
		return err
	}
	var blinds []string
	for _, r := range res.Results {
		b := r.Blind
		if b == nil {
			continue
		}
		line := fmt.Sprintf("%s, learner %s: worst mid-rate function %s (balanced accuracy %.3f)", r.Subject, r.Name, b.Function, b.Balanced)
		switch {
		case b.Covered == "":
			line += ": no leaf of its tree mixes inputs that ran it with inputs that did not"
		case b.Distance == 0:
			line += fmt.Sprintf(";\n  no feature tells apart ran: %q and did not run: %q (%d groups of equal features disagree)", clip(b.Covered), clip(b.NotCovered), b.Conflicts)
		default:
			line += fmt.Sprintf(";\n  one leaf holds ran: %q and did not run: %q, %d features apart", clip(b.Covered), clip(b.NotCovered), b.Distance)
		}
		blinds = append(blinds, line)
	}
	if len(blinds) > 0 {
		fmt.Fprintln(w, "\nwhat the last learner cannot see:")
		for _, l := range blinds {
			fmt.Fprintln(w, l)
		}
	}
	if len(res.Errors) > 0 {
		var names []string
		for s, e := range res.Errors {
			names = append(names, s+": "+e)
		}
		slices.Sort(names)
		fmt.Fprintf(w, "\nfailed: %s\n", strings.Join(names, "; "))
	}
	return nil
}

// clip shortens a long input for a one-line report.
func clip(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
