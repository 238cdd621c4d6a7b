package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/subject"
)

func learnFlags(cmd *cobra.Command, o *learn.Options) {
	cmd.Flags().IntVar(&o.MaxDepth, "tree-depth", 5, "depth of each decision tree")
	// --max-depth was this flag's name, but it means the depth of
	// generated inputs in generate, target and rlcheck: one name, one
	// meaning. The old name still works here, with a warning.
	cmd.Flags().IntVar(&o.MaxDepth, "max-depth", 5, "")
	renamedFlag(cmd, "max-depth", "tree-depth", "--max-depth is the depth of generated inputs")
	cmd.Flags().IntVar(&o.MinSamplesLeaf, "min-samples-leaf", 1, "fewest training rows in a leaf")
	cmd.Flags().Float64Var(&o.MinImpurityDec, "min-impurity-decrease", 0, "smallest weighted gini decrease a split must bring")
}

// checkLearnOptions reports learnFlags' values that cannot be used.
func checkLearnOptions(o learn.Options) error {
	switch {
	case o.MaxDepth < 1 || o.MaxDepth > learn.MaxTreeDepth:
		// A model with deeper trees would not load.
		return usageError{fmt.Errorf("--tree-depth must be from 1 to %d, not %d", learn.MaxTreeDepth, o.MaxDepth)}
	case o.MinSamplesLeaf < 1:
		return usageError{fmt.Errorf("--min-samples-leaf must be at least 1, not %d", o.MinSamplesLeaf)}
	case o.MinImpurityDec < 0:
		return usageError{fmt.Errorf("--min-impurity-decrease must not be negative, not %v", o.MinImpurityDec)}
	}
	return nil
}

// featuresFlag registers --features, which means the same wherever a
// model is trained.
func featuresFlag(cmd *cobra.Command, s *string) {
	cmd.Flags().StringVar(s, "features", learn.DefaultFeatures.String(),
		"feature `KINDS` to learn from, comma-separated: kpath, sibling, value, class, length, count, number, the relational relation, match, adjacent and clause (docs/features.md), or all (kpath is always in)")
}

func parseFeatures(s string) (features.Kinds, error) {
	k, err := features.ParseKinds(s)
	if err != nil {
		return 0, usageError{fmt.Errorf("--features: %w", err)}
	}
	return k, nil
}

// trainFlags are train's flags.
type trainFlags struct {
	grammar, inputs, coverage, out, kinds string
	maxK                                  int
	seed                                  uint64
	noBalance                             bool
	folds                                 int
	curve                                 []int
	opts                                  learn.Options
	constraints                           constraintsFlag
	asJSON                                bool
}

func newTrainCmd() *cobra.Command {
	var f trainFlags
	cmd := &cobra.Command{
		Use:   "train --grammar G --inputs DIR --coverage cov.jsonl --out model.json",
		Short: "Learn one decision tree per function from recorded coverage",
		Long: `train reads the inputs below --inputs (matched to the coverage file's
records by sha256), parses them, describes each by its features and fits
one decision tree per trainable function (covered by some but not all
inputs): CART on bitsets, gini impurity, rows of each function balanced by
seeded subsampling unless --no-balance, functions in parallel. Inputs that
panicked or timed out are left out (their coverage is cut short).

Features (--features, comma-separated; every one is present or absent in
an input):
  kpath    k-paths for k = 1..--max-k: chains of symbols down the tree
  sibling  two symbols adjacent under one parent; a symbol first or last
  value    a regex terminal's exact text (its most frequent texts in the
           corpus, each seen at least twice)
  class    a regex terminal's text has a digit, letter, space, non-ASCII
           or a given punctuation character (anywhere, first, last)
  length   a symbol's longest text reaches a threshold (corpus quantiles)
  count    a symbol occurs at least a threshold number of times
  number   a symbol's text, read as a number, reaches a threshold
  all      all of them

--cv scores every function's learning on held-out inputs against always
guessing the majority class; 'arbor explain' marks the trees that do not
beat it. The score is of FOLDS trees refitted without one fold each, not
of the tree the model keeps, whose training accuracy is over all the
training inputs; with balancing (the default) each tree is fitted on its
own seeded sample of the majority class, so a kept tree from an unlucky
sample can score below its refits (docs/targeting.md).
--curve prints the cross-validated learning curve at the given training
sizes, to see whether more inputs would help.

The model (JSON; gzipped if --out ends in .gz) carries the grammar, the
feature vocabulary with readable descriptions, the trees and training
statistics.

With a grammar that has constraints (where clauses, docs/notation.md),
the summary also counts the inputs trained on that break one, crossed
with their recorded outcome (accepted or rejected), and each clause's
count; --constraints off leaves it out. It does not change the model.`,
		Example: "  arbor train --grammar json --inputs corpus/ --coverage cov.jsonl --out json.model.gz",
		Args:    exactArgs(0),
		RunE:    func(cmd *cobra.Command, args []string) error { return runTrain(cmd, &f) },
	}
	cmd.Flags().StringVar(&f.grammar, "grammar", "", "grammar of the inputs")
	cmd.Flags().StringVar(&f.inputs, "inputs", "", "folder of the recorded inputs")
	cmd.Flags().StringVar(&f.coverage, "coverage", "", "coverage file from 'arbor record'")
	cmd.Flags().StringVar(&f.out, "out", "model.json", "model file to write")
	cmd.Flags().IntVar(&f.maxK, "max-k", 4, "k-paths for k = 1..`K` are the features")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "seed of the class balancing")
	cmd.Flags().BoolVar(&f.noBalance, "no-balance", false, "fit each tree on all rows instead of balancing the classes")
	cmd.Flags().IntVar(&f.folds, "cv", 5, "score every tree by `FOLDS`-fold cross-validation against the majority class (0: skip)")
	cmd.Flags().IntSliceVar(&f.curve, "curve", nil, "print the cross-validated learning curve at these training `SIZES` (e.g. 250,500,1000,2000)")
	featuresFlag(cmd, &f.kinds)
	learnFlags(cmd, &f.opts)
	f.constraints.register(cmd.Flags(), "the summary counts the inputs that break a constraint, by recorded outcome")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print what was trained as JSON (docs/json.md)")
	return cmd
}

func runTrain(cmd *cobra.Command, f *trainFlags) error {
	fk, err := f.check()
	if err != nil {
		return err
	}
	g, err := datasets.LoadGrammar(f.grammar)
	if err != nil {
		return err
	}
	set, err := f.constraints.set(g)
	if err != nil {
		return err
	}
	cov, err := coverage.ReadFile(f.coverage)
	if err != nil {
		return err
	}
	data, err := readCorpus(f.inputs)
	if err != nil {
		return err
	}
	start := time.Now()
	topts := learn.TrainOptions{Options: f.opts, Seed: f.seed, NoBalance: f.noBalance}
	m, d, err := learn.TrainRecorded(contextOf(cmd), g, cov, data, learn.RecordedConfig{
		Features: features.Options{MaxK: f.maxK, Kinds: fk},
		Model:    learn.ModelConfig{GrammarName: subject.GrammarName(f.grammar), Train: topts},
		Folds:    f.folds,
	})
	switch {
	case errors.Is(err, learn.ErrNoRows):
		return fmt.Errorf("no training rows: none of the %d records matches a parsable input below %s", len(cov.Records), f.inputs)
	case errors.Is(err, learn.ErrUnparsed):
		bad := d.Skipped["does not parse"]
		return fmt.Errorf("%d of the %d recorded inputs do not parse with grammar %s: is it the grammar the inputs were written in? ('arbor parse %s FILE' shows where one fails)",
			bad, bad+d.Rows, f.grammar, f.grammar)
	case errors.Is(err, learn.ErrNoTrainable):
		return fmt.Errorf("no trainable function: of the %d functions in %s, %d ran on every input and the rest on none; "+
			"record more packages (--coverpkg) or more varied inputs", len(cov.Functions), f.coverage, len(m.Stats.AlwaysCovered))
	case err != nil:
		return err
	}
	if err := m.Save(f.out); err != nil {
		return err
	}
	res := newTrainResult(f.out, m, d, time.Since(start), f.folds)
	if len(f.curve) > 0 {
		points, err := learn.Curve(contextOf(cmd), d, topts, max(f.folds, 2), slices.Sorted(slices.Values(f.curve)))
		if err != nil {
			return err
		}
		res.CurveFolds, res.Curve = max(f.folds, 2), points
	}
	if set != nil {
		// The inputs are parsed again: training keeps no trees.
		if res.Constraints, err = learn.CheckRecorded(contextOf(cmd), set, cov, data); err != nil {
			return err
		}
	}
	if f.asJSON {
		return writeJSON(cmd.OutOrStdout(), res)
	}
	return res.print(cmd.OutOrStdout(), len(m.Functions))
}

// check reports the flags that are missing or cannot be used, as usage
// errors, and returns the feature kinds.
func (f *trainFlags) check() (features.Kinds, error) {
	if err := missingFlags(map[string]string{"--grammar": f.grammar, "--inputs": f.inputs, "--coverage": f.coverage}); err != nil {
		return 0, err
	}
	if err := checkK("--max-k", f.maxK); err != nil {
		return 0, err
	}
	if err := checkLearnOptions(f.opts); err != nil {
		return 0, err
	}
	if err := f.constraints.check(); err != nil {
		return 0, err
	}
	fk, err := parseFeatures(f.kinds)
	if err != nil {
		return 0, err
	}
	for _, n := range f.curve {
		if n < 1 {
			return 0, usageError{fmt.Errorf("--curve: training sizes must be at least 1, not %d", n)}
		}
	}
	return fk, nil
}

// readCorpus reads every input below dir (corpus.Read), by sha256.
func readCorpus(dir string) (map[string][]byte, error) {
	files, err := corpus.List(dir)
	if err != nil {
		return nil, err
	}
	data, err := corpus.ReadAll(files)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	return data, nil
}

// trainResult is what train did, as --json prints it.
type trainResult struct {
	Model           string             `json:"model"`
	Subject         string             `json:"subject"`
	Grammar         string             `json:"grammar"`
	Inputs          int                `json:"inputs"`   // training rows
	Features        int                `json:"features"` // columns offered to the learner
	Seconds         float64            `json:"seconds"`
	Observed        int                `json:"functions_observed"`       // in the coverage file
	Trainable       int                `json:"functions_trainable"`      // covered by some inputs, not all: one tree each
	AlwaysCovered   int                `json:"functions_always_covered"` // covered by every input: no tree
	LeftOut         map[string]int     `json:"left_out,omitempty"`       // inputs not trained on, by reason
	CappedTerminals int                `json:"capped_terminals,omitempty"`
	Folds           int                `json:"cv_folds,omitempty"`
	Untrusted       []untrustedTree    `json:"untrusted,omitempty"` // trees that do not beat the majority class held out
	CurveFolds      int                `json:"curve_folds,omitempty"`
	Curve           []learn.CurvePoint `json:"curve,omitempty"`
	// Constraints counts the inputs trained on that break the grammar's
	// constraints, by outcome; absent without any or with --constraints off.
	Constraints *learn.Conformance `json:"constraints,omitempty"`
}

// newTrainResult is what training model m on dataset d, saved to path,
// did in the time it took; folds is --cv.
func newTrainResult(path string, m *learn.Model, d *learn.Dataset, took time.Duration, folds int) *trainResult {
	res := &trainResult{Model: path, Subject: m.Subject, Grammar: m.Grammar.Name, Inputs: d.Rows, Features: d.Vocab.Len(),
		Seconds: took.Seconds(), Observed: m.Stats.Observed, Trainable: m.Stats.Trainable,
		AlwaysCovered: len(m.Stats.AlwaysCovered), LeftOut: d.Skipped, CappedTerminals: d.Vocab.CappedTerminals()}
	if folds > 0 {
		res.Folds = folds
		for _, fn := range m.Functions {
			if !fn.CV.Beats() {
				res.Untrusted = append(res.Untrusted, untrustedTree{fn.Name, fn.CV.Accuracy, fn.CV.Baseline})
			}
		}
	}
	return res
}

type untrustedTree struct {
	Function string  `json:"function"`
	Accuracy float64 `json:"cv_accuracy"`
	Majority float64 `json:"cv_majority"`
}

func (r *trainResult) print(w io.Writer, trees int) error {
	fmt.Fprintf(w, "%s: %d functions trained in %v on %d inputs (%d features)\n", r.Model, trees, time.Duration(r.Seconds*float64(time.Second)).Round(time.Millisecond), r.Inputs, r.Features)
	fmt.Fprintf(w, "functions: %d observed, %d trainable, %d always covered\n", r.Observed, r.Trainable, r.AlwaysCovered)
	if len(r.LeftOut) > 0 {
		fmt.Fprintf(w, "left out: %s\n", countsText(r.LeftOut, "input"))
	}
	if r.CappedTerminals > 0 {
		fmt.Fprintf(w, "value features: %d terminals have more than %d frequent texts; each keeps its %d most frequent\n",
			r.CappedTerminals, features.DefaultMaxValues, features.DefaultMaxValues)
	}
	if r.Folds > 0 {
		fmt.Fprintf(w, "under %d-fold cross-validation, %d of %d trees predict better than always guessing the majority class\n",
			r.Folds, trees-len(r.Untrusted), trees)
		for i, u := range r.Untrusted {
			if i == 10 {
				fmt.Fprintf(w, "  ... and %d more ('arbor explain' marks them all)\n", len(r.Untrusted)-i)
				break
			}
			fmt.Fprintf(w, "  not better: %s (%.3f vs %.3f)\n", u.Function, u.Accuracy, u.Majority)
		}
	}
	if r.Constraints != nil {
		printConformance(w, r.Constraints)
	}
	if len(r.Curve) == 0 {
		return nil
	}
	points := r.Curve
	fmt.Fprintf(w, "\nlearning curve (%d-fold cross-validation; means over mid-rate functions, base rate in [%.2f, %.2f]):\n", r.CurveFolds, learn.MidRateLow, learn.MidRateHigh)
	var rows [][]string
	for _, p := range points {
		rows = append(rows, []string{strconv.Itoa(p.Train), strconv.Itoa(p.Functions), fmt.Sprintf("%.3f / %.3f", p.Accuracy, p.Baseline),
			fmt.Sprintf("%.3f", p.Precision), fmt.Sprintf("%.3f", p.Recall), fmt.Sprintf("%.3f", p.Balanced), fmt.Sprintf("%.1f", p.Seconds)})
	}
	if err := renderTable(w, []string{"training inputs", "mid-rate functions", "accuracy / majority", "precision", "recall", "balanced", "seconds"}, rows); err != nil {
		return err
	}
	if n := len(points); n >= 2 {
		gain := points[n-1].Balanced - points[n-2].Balanced
		switch {
		case gain > 0.005:
			fmt.Fprintf(w, "still rising (%+.3f balanced accuracy from %d to %d inputs): more inputs would likely help\n", gain, points[n-2].Train, points[n-1].Train)
		default:
			fmt.Fprintf(w, "flat (%+.3f balanced accuracy from %d to %d inputs): more inputs of this kind are unlikely to help\n", gain, points[n-2].Train, points[n-1].Train)
		}
	}
	return nil
}
