package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

func contextOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

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

// countsText writes counts by reason as "2 inputs: does not parse; 1
// input: timeout", reasons in order.
func countsText(counts map[string]int, noun string) string {
	var parts []string
	for _, reason := range slices.Sorted(maps.Keys(counts)) {
		n := counts[reason]
		word := noun
		if n != 1 {
			word += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s: %s", n, word, reason))
	}
	return strings.Join(parts, "; ")
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

// missingFlags names the required flags (name to value) left empty,
// in alphabetical order, or is nil when none is.
func missingFlags(flags map[string]string) error {
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if flags[name] == "" {
			missing = append(missing, name)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return usageError{fmt.Errorf("%s is required", missing[0])}
	}
	return usageError{fmt.Errorf("%s and %s are required", strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1])}
}

// featuresFlag registers --features, which means the same wherever a
// model is trained.
func featuresFlag(cmd *cobra.Command, s *string) {
	cmd.Flags().StringVar(s, "features", learn.DefaultFeatures.String(),
		"feature `KINDS` to learn from, comma-separated: kpath, sibling, value, class, length, count, number, or all (kpath is always in)")
}

func parseFeatures(s string) (features.Kinds, error) {
	k, err := features.ParseKinds(s)
	if err != nil {
		return 0, usageError{fmt.Errorf("--features: %w", err)}
	}
	return k, nil
}

func newTrainCmd() *cobra.Command {
	var grammarArg, inputs, covPath, out, kinds string
	var maxK int
	var seed uint64
	var noBalance bool
	var folds int
	var curve []int
	var opts learn.Options
	var asJSON bool
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
statistics.`,
		Example: "  arbor train --grammar json --inputs corpus/ --coverage cov.jsonl --out json.model.gz",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := missingFlags(map[string]string{"--grammar": grammarArg, "--inputs": inputs, "--coverage": covPath}); err != nil {
				return err
			}
			if err := checkK("--max-k", maxK); err != nil {
				return err
			}
			if err := checkLearnOptions(opts); err != nil {
				return err
			}
			fk, err := parseFeatures(kinds)
			if err != nil {
				return err
			}
			for _, n := range curve {
				if n < 1 {
					return usageError{fmt.Errorf("--curve: training sizes must be at least 1, not %d", n)}
				}
			}
			g, err := datasets.LoadGrammar(grammarArg)
			if err != nil {
				return err
			}
			cov, err := coverage.ReadFile(covPath)
			if err != nil {
				return err
			}
			data, err := readCorpus(inputs)
			if err != nil {
				return err
			}
			start := time.Now()
			d, err := learn.NewDatasetContext(contextOf(cmd), g, features.Options{MaxK: maxK, Kinds: fk}, cov, data)
			if err != nil {
				return err // interrupted: a model of the rows read so far would mislead
			}
			if d.Rows == 0 {
				return fmt.Errorf("no training rows: none of the %d records matches a parsable input below %s", len(cov.Records), inputs)
			}
			// A wrong grammar parses a few inputs by chance: learning from
			// those alone would say nothing true of the corpus.
			if bad := d.Skipped["does not parse"]; bad > d.Rows {
				return fmt.Errorf("%d of the %d recorded inputs do not parse with grammar %s: is it the grammar the inputs were written in? ('arbor parse %s FILE' shows where one fails)",
					bad, bad+d.Rows, grammarArg, grammarArg)
			}
			topts := learn.TrainOptions{Options: opts, Seed: seed, NoBalance: noBalance}
			m, err := learn.TrainModel(contextOf(cmd), g, d, learn.ModelConfig{Subject: cov.Subject, GrammarName: eval.GrammarName(grammarArg),
				Train: topts, Target: cov.Target})
			if err != nil {
				return err
			}
			fns := m.Functions
			if folds > 0 && len(fns) > 0 {
				// The scores go into the model's own trees.
				if err := learn.ScoreCV(contextOf(cmd), d, fns, topts, folds); err != nil {
					return err
				}
			}
			if len(fns) == 0 {
				return fmt.Errorf("no trainable function: of the %d functions in %s, %d ran on every input and the rest on none; "+
					"record more packages (--coverpkg) or more varied inputs", len(cov.Functions), covPath, len(m.Stats.AlwaysCovered))
			}
			if err := m.Save(out); err != nil {
				return err
			}
			res := trainResult{Model: out, Subject: m.Subject, Grammar: m.Grammar.Name, Inputs: d.Rows, Features: d.Vocab.Len(),
				Seconds: time.Since(start).Seconds(), Observed: m.Stats.Observed, Trainable: m.Stats.Trainable,
				AlwaysCovered: len(m.Stats.AlwaysCovered), LeftOut: d.Skipped, CappedTerminals: d.Vocab.CappedTerminals()}
			if folds > 0 {
				res.Folds = folds
				for _, fn := range fns {
					if !fn.CV.Beats() {
						res.Untrusted = append(res.Untrusted, untrustedTree{fn.Name, fn.CV.Accuracy, fn.CV.Baseline})
					}
				}
			}
			if len(curve) > 0 {
				points, err := learn.Curve(contextOf(cmd), d, topts, max(folds, 2), slices.Sorted(slices.Values(curve)))
				if err != nil {
					return err
				}
				res.CurveFolds, res.Curve = max(folds, 2), points
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return res.print(cmd.OutOrStdout(), len(fns))
		},
	}
	cmd.Flags().StringVar(&grammarArg, "grammar", "", "grammar of the inputs")
	cmd.Flags().StringVar(&inputs, "inputs", "", "folder of the recorded inputs")
	cmd.Flags().StringVar(&covPath, "coverage", "", "coverage file from 'arbor record'")
	cmd.Flags().StringVar(&out, "out", "model.json", "model file to write")
	cmd.Flags().IntVar(&maxK, "max-k", 4, "k-paths for k = 1..`K` are the features")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the class balancing")
	cmd.Flags().BoolVar(&noBalance, "no-balance", false, "fit each tree on all rows instead of balancing the classes")
	cmd.Flags().IntVar(&folds, "cv", 5, "score every tree by `FOLDS`-fold cross-validation against the majority class (0: skip)")
	cmd.Flags().IntSliceVar(&curve, "curve", nil, "print the cross-validated learning curve at these training `SIZES` (e.g. 250,500,1000,2000)")
	featuresFlag(cmd, &kinds)
	learnFlags(cmd, &opts)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was trained as JSON (docs/json.md)")
	return cmd
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

func loadPredictor(modelPath, grammarArg string) (*learn.Predictor, error) {
	m, err := learn.LoadModel(modelPath)
	if err != nil {
		return nil, err
	}
	var g *grammar.Graph
	if grammarArg != "" {
		if g, err = datasets.LoadGrammar(grammarArg); err != nil {
			return nil, err
		}
	}
	return learn.NewPredictor(m, g)
}

func newPredictCmd(stdin io.Reader) *cobra.Command {
	var modelPath, function, grammarArg string
	var asJSON, all, why bool
	cmd := &cobra.Command{
		Use:   "predict --model M FILE...",
		Short: "Predict which functions inputs run, without running the program",
		Long: `predict parses each FILE ('-' for standard input) with the model's grammar,
extracts its features, and evaluates every function's tree. It prints the
functions predicted to run, each with the purity of the leaf reached (the
share of the training rows there of the predicted class); --all also
lists the functions predicted not to run; --function F asks about one.
An input outside the language gets an error line; the others are still
predicted. --grammar checks that the model was trained on that grammar.
--why adds the tests on each tree's path to its leaf, as readable
patterns ("has ...", "not ...").

--json prints one object per input and line:
{"file":...,"predictions":[{"function":...,"covered":true,"purity":0.98,"leaf":3},...]}
(with --why, each prediction has "why":["has ...","not ..."]).`,
		Example: "  arbor predict --model json.model.gz input.json\n  arbor predict --model json.model.gz --function 'encoding/json.(*decodeState).object' corpus/*",
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if modelPath == "" {
				return usageError{errors.New("--model is required")}
			}
			p, err := loadPredictor(modelPath, grammarArg)
			if err != nil {
				return err
			}
			p.Reasons = why
			if function != "" {
				if _, err := p.Model.Function(function); err != nil {
					return err
				}
			}
			errOut := cmd.ErrOrStderr()
			in := stdin
			if slices.Contains(args, "-") {
				// Read first, and given to the predictions as read: a
				// read of standard input can wait for ever (a terminal,
				// a pipe whose writer neither writes nor closes), and
				// Ctrl-C must end it.
				data, err := readContext(contextOf(cmd), func() ([]byte, error) { return io.ReadAll(stdin) })
				if err != nil {
					return fmt.Errorf("read standard input: %w", err)
				}
				in = bytes.NewReader(data)
			}
			failed, err := predictFiles(contextOf(cmd), p, args, predictOptions{function: function, all: all, asJSON: asJSON,
				stdin: in, stdout: cmd.OutOrStdout(), errs: errOut})
			if err != nil {
				return err
			}
			if failed > 0 {
				fmt.Fprintf(errOut, "%d of %d inputs could not be predicted\n", failed, len(args))
				return errReported
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&modelPath, "model", "", "model file from 'arbor train'")
	cmd.Flags().StringVar(&function, "function", "", "predict only this `function`")
	cmd.Flags().StringVar(&grammarArg, "grammar", "", "refuse the model unless it was trained on this grammar")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON, one line per input")
	cmd.Flags().BoolVar(&all, "all", false, "also list the functions predicted not to run")
	cmd.Flags().BoolVar(&why, "why", false, "show the tests that led to each prediction")
	return cmd
}

func readInput(file string, stdin io.Reader) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(stdin)
	}
	b, err := corpus.Read(file)
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	return b, nil
}

func printPredictions(w io.Writer, file string, preds []learn.Prediction, function string, all, asJSON bool) {
	var keep []learn.Prediction
	for _, p := range preds {
		if function != "" && p.Function != function || function == "" && !all && !p.Covered {
			continue
		}
		keep = append(keep, p)
	}
	if asJSON {
		if keep == nil {
			keep = []learn.Prediction{}
		}
		json.NewEncoder(w).Encode(struct {
			File        string             `json:"file"`
			Predictions []learn.Prediction `json:"predictions"`
		}{file, keep})
		return
	}
	fmt.Fprintf(w, "== %s: %d functions predicted to run\n", file, countCovered(preds))
	for _, p := range keep {
		verdict := "runs   "
		if !p.Covered {
			verdict = "skipped"
		}
		fmt.Fprintf(w, "%s  %.2f  %s\n", verdict, p.Purity, p.Function)
		for _, why := range p.Why {
			fmt.Fprintf(w, "                 %s\n", why)
		}
	}
}

func countCovered(preds []learn.Prediction) int {
	n := 0
	for _, p := range preds {
		if p.Covered {
			n++
		}
	}
	return n
}

func newExplainCmd() *cobra.Command {
	var modelPath, function string
	var asDOT, asJSON, ascii bool
	cmd := &cobra.Command{
		Use:   "explain --model M [--function F]",
		Short: "Explain a function's calling condition as grammar patterns",
		Long: `explain prints a function's tree as indented text, then its covering
constraints, after a short legend. Each test is a feature of the input's
derivation tree: for a k-path, its chain of grammar symbols (parent→child)
and, after "in:", the grammar text the chain sits in. "has P" leads to the
inputs with the feature, "not P" to the others; every node shows its
training rows (covered / not covered) and gini (0: all of one class, 0.5:
an even mix). The covering constraints are the root-to-leaf paths that end
in a covered leaf with gini <= 0.3, each a conjunction of features present
(∃) and absent (∄), infeasible ones left out. --dot prints the tree for
Graphviz, --json the tree and constraints. Without --function it lists
all functions with their tree size and training accuracy (--json: the
model and its functions, docs/json.md).

Training accuracy is the kept tree's, on all its training inputs;
cross-validated accuracy (train --cv) is that of other trees, refitted
without one fold each and scored on it. They can differ either way: with
balancing each tree is fitted on its own sample of the majority class,
and a kept tree from an unlucky sample can score below its refits
(docs/targeting.md).`,
		Example: "  arbor explain --model json.model.gz\n  arbor explain --model json.model.gz --function 'encoding/json.unquote'",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if modelPath == "" {
				return usageError{errors.New("--model is required")}
			}
			m, err := learn.LoadModel(modelPath)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if function == "" {
				rows := make([][]string, len(m.Functions))
				weak := 0
				for i, f := range m.Functions {
					rows[i] = []string{f.Name, strconv.Itoa(len(f.Tree.Nodes)), strconv.Itoa(f.Depth), strconv.Itoa(f.Positives), fmt.Sprintf("%.3f", f.TrainAccuracy), cvCell(f.CV)}
					if f.CV != nil && !f.CV.Beats() {
						weak++
					}
				}
				sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
				kinds := m.Kinds
				if kinds == "" {
					kinds = "kpath"
				}
				if asJSON {
					return writeJSON(out, modelSummary(modelPath, m, kinds))
				}
				fmt.Fprintf(out, "%s (subject %s, grammar %s, k ≤ %d, features %s): %d functions with trees, trained on %d inputs\n",
					modelPath, m.Subject, m.Grammar.Name, m.K, kinds, len(m.Functions), m.Stats.Rows)
				if weak > 0 {
					fmt.Fprintf(out, "%d trees (marked *) do not predict held-out inputs better than always guessing the majority class: do not trust their explanations\n", weak)
				}
				if err := renderTable(out, []string{"function", "nodes", "depth", "covered by", "training accuracy (this tree)", "cv accuracy / majority (refits)"}, rows); err != nil {
					return err
				}
				for _, f := range m.Functions {
					if f.CV != nil {
						fmt.Fprint(out, accuracyNote(f.CV.Folds))
						break
					}
				}
				return nil
			}
			fn, err := m.Function(function)
			if err != nil {
				return err
			}
			cons := m.Covering(fn)
			switch {
			case asJSON:
				type jc struct {
					Literals []string `json:"literals"`
					Pos      int      `json:"pos"`
					Neg      int      `json:"neg"`
					Gini     float64  `json:"gini"`
				}
				var js []jc
				for _, c := range cons {
					js = append(js, jc{strings.Split(m.Text(c, ascii), "\n"), c.Pos, c.Neg, c.Gini})
				}
				return json.NewEncoder(out).Encode(struct {
					Function    string               `json:"function"`
					Tree        *learn.Tree          `json:"tree"`
					Patterns    map[int]string       `json:"patterns"`
					Constraints []jc                 `json:"constraints"`
					Stats       *learn.FunctionModel `json:"-"`
				}{fn.Name, fn.Tree, treePatterns(m, fn), js, fn})
			case asDOT:
				return writeTreeDOT(out, m, fn)
			}
			fmt.Fprintf(out, "%s: tree of %d nodes, depth %d; covered by %d of %d training inputs\n",
				fn.Name, len(fn.Tree.Nodes), fn.Depth, fn.Positives, m.Stats.Rows)
			fmt.Fprintf(out, "training accuracy %.3f: this tree, on all %d training inputs\n", fn.TrainAccuracy, m.Stats.Rows)
			if cv := fn.CV; cv != nil {
				fmt.Fprintf(out, "cross-validated accuracy %.3f: %d trees refitted, each on the inputs of the other folds, scored on one fold it did not see; always guessing the majority class %.3f",
					cv.Accuracy, cv.Folds, cv.Baseline)
				if !cv.Beats() {
					fmt.Fprint(out, ": this tree is no better than the guess; do not trust its explanation")
				}
				fmt.Fprintln(out)
			}
			fmt.Fprintln(out)
			writeTreeLegend(out)
			writeTreeText(out, m, fn, ascii)
			fmt.Fprintln(out)
			writeConstraintsLegend(out, len(cons), ascii)
			for i, c := range cons {
				fmt.Fprintf(out, "%d. leaf %d: %d covered, %d not, gini %.3f\n", i+1, c.Leaf, c.Pos, c.Neg, c.Gini)
				for _, line := range strings.Split(m.Text(c, ascii), "\n") {
					fmt.Fprintf(out, "   %s\n", line)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&modelPath, "model", "", "model file from 'arbor train'")
	cmd.Flags().StringVar(&function, "function", "", "the `function` to explain")
	cmd.Flags().BoolVar(&asDOT, "dot", false, "print the tree as a Graphviz digraph")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&ascii, "ascii", false, "write has/not instead of ∃/∄ in constraints")
	return cmd
}

// printCurve prints the learning curve of the training corpus.
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

// modelListing is explain's JSON without --function: the model and its
// functions.
type modelListing struct {
	Model     string            `json:"model"`
	Subject   string            `json:"subject"`
	Grammar   string            `json:"grammar"`
	K         int               `json:"k"`
	Features  string            `json:"features"`
	Inputs    int               `json:"inputs"`
	Functions []functionListing `json:"functions"`
}

type functionListing struct {
	Name          string         `json:"name"`
	Nodes         int            `json:"nodes"`
	Depth         int            `json:"depth"`
	Positives     int            `json:"positives"` // training inputs that ran it
	TrainAccuracy float64        `json:"training_accuracy"`
	CV            *learn.CVScore `json:"cv,omitempty"` // absent when trained without cross-validation
	Trusted       bool           `json:"trusted"`      // its tree beat the majority class held out (true without cv)
}

func modelSummary(path string, m *learn.Model, kinds string) modelListing {
	l := modelListing{Model: path, Subject: m.Subject, Grammar: m.Grammar.Name, K: m.K, Features: kinds, Inputs: m.Stats.Rows}
	for _, f := range m.Functions {
		l.Functions = append(l.Functions, functionListing{f.Name, len(f.Tree.Nodes), f.Depth, f.Positives, f.TrainAccuracy, f.CV, f.CV == nil || f.CV.Beats()})
	}
	sort.Slice(l.Functions, func(i, j int) bool { return l.Functions[i].Name < l.Functions[j].Name })
	return l
}

// writeJSON prints v as indented JSON, the form every --json result takes.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// accuracyNote says what the two accuracies of explain's listing
// measure: they are of different trees, and either can be the higher.
func accuracyNote(folds int) string {
	return fmt.Sprintf("training accuracy: the tree the model keeps, on all its training inputs; cv accuracy: %d other trees,\n"+
		"each refitted without one fold and scored on it. They are different trees, so either can be the higher.\n", folds)
}

// cvCell shows a cross-validated score, starred when the tree does not
// beat the majority class.
func cvCell(cv *learn.CVScore) string {
	if cv == nil {
		return "-"
	}
	s := fmt.Sprintf("%.3f / %.3f", cv.Accuracy, cv.Baseline)
	if !cv.Beats() {
		s += " *"
	}
	return s
}

func treePatterns(m *learn.Model, fn *learn.FunctionModel) map[int]string {
	p := map[int]string{}
	for _, n := range fn.Tree.Nodes {
		if !n.Leaf() {
			p[n.Feature] = m.Features[n.Feature].Describe()
		}
	}
	return p
}

// writeTreeLegend says how to read writeTreeText's tree: the symbols of
// a test, "in:", the counts and gini are arbor's own notation.
func writeTreeLegend(w io.Writer) {
	fmt.Fprint(w, `How to read it: a test is a feature of the input's derivation tree; for a
k-path, a chain of grammar symbols (parent→child) and, after "in:", the
grammar text it sits in. "has" leads to inputs with it, "not" to the rest.
[C covered / N not, gini G]: training inputs at the node that ran the
function (C) and did not (N); gini 0 is all one class, 0.5 an even mix.

`)
}

// writeConstraintsLegend heads the list of covering constraints with what
// they are and what ∃ and ∄ (or has and not) mean.
func writeConstraintsLegend(w io.Writer, n int, ascii bool) {
	has, not := "∃", "∄"
	if ascii {
		has, not = "has", "not"
	}
	fmt.Fprintf(w, "covering constraints (%d): the paths to a covered leaf with gini <= %.1f. An input\n", n, learn.MaxConstraintGini)
	fmt.Fprintf(w, "with every %s feature of one of them and none of its %s ones is predicted to run it:\n", has, not)
}

func writeTreeText(w io.Writer, m *learn.Model, fn *learn.FunctionModel, ascii bool) {
	var walk func(i int, indent string, test string)
	walk = func(i int, indent, test string) {
		n := &fn.Tree.Nodes[i]
		label := fmt.Sprintf("[%d covered / %d not, gini %.3f]", n.Pos, n.Neg, n.Gini)
		if n.Leaf() {
			verdict := "→ not covered"
			if n.Covered() {
				verdict = "→ covered"
			}
			fmt.Fprintf(w, "%s%s%s %s\n", indent, test, verdict, label)
			return
		}
		fmt.Fprintf(w, "%s%s%s\n", indent, test, label)
		feature := m.Features[n.Feature].Describe()
		walk(n.Present, indent+"  ", "has "+feature+"  ")
		walk(n.Absent, indent+"  ", "not "+feature+"  ")
	}
	walk(0, "", "")
}

func writeTreeDOT(w io.Writer, m *learn.Model, fn *learn.FunctionModel) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph tree {\n  label=%q;\n  node [fontname=\"Helvetica\" shape=box];\n", fn.Name)
	for i, n := range fn.Tree.Nodes {
		if n.Leaf() {
			color := "lightgrey"
			if n.Covered() {
				color = "palegreen"
			}
			fmt.Fprintf(&b, "  n%d [label=%q style=filled fillcolor=%s];\n", i, fmt.Sprintf("%d covered / %d not\ngini %.3f", n.Pos, n.Neg, n.Gini), color)
			continue
		}
		fmt.Fprintf(&b, "  n%d [label=%q];\n", i, fmt.Sprintf("%s\n%d covered / %d not", m.Features[n.Feature].Describe(), n.Pos, n.Neg))
		fmt.Fprintf(&b, "  n%d -> n%d [label=\"has\"];\n  n%d -> n%d [label=\"not\" style=dashed];\n", i, n.Present, i, n.Absent)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// experimentFlags are the flags E3, E4 and E5 share.
type experimentFlags struct {
	subjectFlags
	work              string
	train, test, k    int
	budget, baseN     int
	inputs, maxNodes  int
	maxGini           float64
	limit             time.Duration
	offline, noLearn  bool
	model             string
	trust             bool         // --trust-model: run the program --model records
	loaded            *learn.Model // the --model file, read once by config
	maxRepeat         int
	seed              uint64
	asJSON, noBalance bool
	opts              learn.Options
	kinds             string
}

func (f *experimentFlags) register(cmd *cobra.Command, train int) {
	f.subjectFlags.register(cmd.Flags(), true)
	cmd.Flags().IntVar(&f.train, "train", train, "training inputs")
	cmd.Flags().IntVar(&f.test, "test", 1000, "test inputs")
	cmd.Flags().IntVar(&f.k, "max-k", 4, "k-paths for k = 1..`K` are the features")
	// --k was this flag's name, but --k is one path length (generate,
	// kpaths) and --max-k "k = 1..K" (train, grammar stats, coverage).
	cmd.Flags().IntVar(&f.k, "k", 4, "")
	renamedFlag(cmd, "k", "max-k", "as in train")
	cmd.Flags().IntVar(&f.maxRepeat, "max-repeat", synth.DefaultMaxRepeat, "most repetitions of an unbounded quantifier in generated inputs")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "random `seed`")
	cmd.Flags().StringVar(&f.work, "work", "", "folder for inputs, coverage files and the model")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&f.noBalance, "no-balance", false, "fit each tree on all rows instead of balancing the classes")
	featuresFlag(cmd, &f.kinds)
	learnFlags(cmd, &f.opts)
}

// modelSubject is the program E4 and E5 run for a --model: the one the
// subject flags name, which must be the model's, or with --trust-model
// the model's own (modelProgram); with the model's grammar unless
// --grammar gives one.
func (f *experimentFlags) modelSubject(cmd *cobra.Command, p *learn.Predictor) (eval.SubjectSetup, error) {
	t, name, err := modelProgram(cmd, p.Model, &f.subjectFlags, f.trust, "")
	if err != nil {
		return eval.SubjectSetup{}, err
	}
	s := eval.SubjectSetup{Name: name, GrammarName: p.Model.Grammar.Name, Grammar: p.Graph, Target: t}
	if f.grammar != "" {
		if s.Grammar, err = datasets.LoadGrammar(f.grammar); err != nil {
			return eval.SubjectSetup{}, err
		}
		s.GrammarName = eval.GrammarName(f.grammar)
	}
	return s, nil
}

func (f *experimentFlags) registerTargeted(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.model, "model", "", "use this trained model and its grammar instead of training one; the program to run is named with the subject flags (it must be the model's) or, with --trust-model, the one the model records")
	trustModelFlag(cmd.Flags(), &f.trust)
	cmd.Flags().IntVarP(&f.inputs, "n", "n", 10, "inputs asked for per function (verified ones, with the loop)")
	cmd.Flags().IntVar(&f.budget, "budget", 100, "executions the targeting loop may spend per function")
	cmd.Flags().DurationVar(&f.limit, "time", 0, "time the targeting loop may spend per function (0: no limit)")
	cmd.Flags().IntVar(&f.baseN, "base-inputs", 1000, "random inputs on which each function's base rate is measured")
	targetingFlags(cmd, &f.maxGini, &f.maxNodes)
	cmd.Flags().BoolVar(&f.offline, "offline", false, "target without the loop: the first tree's constraints, -n inputs, verified afterwards")
	cmd.Flags().BoolVar(&f.noLearn, "no-learn", false, "run the loop without refitting or mutating: verify what the first tree proposes")
}

// config resolves the subject; the returned cleanup removes a temporary work folder.
func (f *experimentFlags) config(cmd *cobra.Command) (eval.E3Config, func(), error) {
	nothing := func() {}
	if f.train < 1 || f.test < 1 {
		return eval.E3Config{}, nothing, usageError{errors.New("--train and --test must be at least 1")}
	}
	if err := checkLearnOptions(f.opts); err != nil {
		return eval.E3Config{}, nothing, err
	}
	kinds, err := parseFeatures(f.kinds)
	if err != nil {
		return eval.E3Config{}, nothing, err
	}
	if f.trust && f.model == "" {
		return eval.E3Config{}, nothing, usageError{errors.New("--trust-model goes with --model")}
	}
	var s eval.SubjectSetup
	f.loaded = nil
	if f.model != "" {
		var p *learn.Predictor
		if p, err = loadPredictor(f.model, ""); err != nil {
			return eval.E3Config{}, nothing, err
		}
		f.loaded = p.Model
		s, err = f.modelSubject(cmd, p)
	} else {
		s, err = f.setup()
	}
	if err != nil {
		return eval.E3Config{}, nothing, err
	}
	cleanup := nothing
	work := f.work
	if work == "" {
		if work, err = os.MkdirTemp("", "arbor-eval-"); err != nil {
			return eval.E3Config{}, nothing, err
		}
		cleanup = func() { os.RemoveAll(work) }
	}
	return eval.E3Config{Subject: s.Name, GrammarName: s.GrammarName, Grammar: s.Grammar, Target: s.Target,
		Train: f.train, Test: f.test, Seed: f.seed, K: f.k, Features: kinds, MaxRepeat: f.maxRepeat, WorkDir: work, CacheDir: coverage.DefaultCacheDir(), Learn: f.opts,
		NoBalance: f.noBalance, Progress: lineProgress(cmd.ErrOrStderr())}, cleanup, nil
}

func newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Run arbor's experiments (E1-E10), the generalization suite (eval suite) and the full report (eval all)",
	}
	var f3, f4, f5 experimentFlags
	e3 := &cobra.Command{
		Use:   "E3 (--subject S | --go PKG.Func --grammar G)",
		Short: "Association quality: predicted against recorded coverage",
		Long: `E3 generates --train grammar-random training inputs (depth 30) and an
independent set of --test inputs, records the subject's coverage of both,
trains one tree per trainable function, predicts the test inputs'
coverage without running them, and reports per function and on average
(over trainable functions): accuracy, precision, recall, balanced
accuracy (mean of the true-positive and true-negative rates), and the
majority-class baseline (always predicting the class that was the
majority in training); the same means over the mid-rate functions (test
base rate in [0.05, 0.95]), which are the ones a base rate alone does not
predict; the number of distinct label vectors among the trainable
functions; and the functions that ran on test inputs but on no training
input (unseen). Test inputs identical to a training input are dropped.
Work files (inputs, coverage, the model) go to --work (a temporary folder
if unset).

--json prints {"subject":..,"functions_observed":..,"functions_trainable":..,
"accuracy":..,"precision":..,"recall":..,"balanced_accuracy":..,
"baseline_accuracy":..,"mid_rate":{...},"distinct_label_vectors":..,
"unseen":[...],"test_duplicates_dropped":..,"per_function":[...]}.`,
		Example: "  arbor eval E3 --subject json --train 1000 --test 1000",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, cleanup, err := f3.config(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			res, err := eval.E3(contextOf(cmd), cfg)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if f3.asJSON {
				return json.NewEncoder(out).Encode(res)
			}
			rows := make([][]string, 0, len(res.PerFunction)+2)
			f3s := func(v float64) string { return fmt.Sprintf("%.3f", v) }
			for _, f := range res.PerFunction {
				rows = append(rows, []string{f.Function, f3s(f.Accuracy), f3s(f.Precision), f3s(f.Recall), f3s(f.Balanced), f3s(f.Baseline), f3s(f.BaseRate)})
			}
			rows = append(rows, []string{fmt.Sprintf("mean over %d trainable", res.FunctionsTrainable), f3s(res.Accuracy), f3s(res.Precision), f3s(res.Recall), f3s(res.Balanced), f3s(res.Baseline), ""})
			mr := res.MidRate
			rows = append(rows, []string{fmt.Sprintf("mean over %d mid-rate (base rate %.2f-%.2f)", mr.Functions, eval.MidRateLow, eval.MidRateHigh), f3s(mr.Accuracy), f3s(mr.Precision), f3s(mr.Recall), f3s(mr.Balanced), f3s(mr.Baseline), ""})
			fmt.Fprintf(out, "E3 %s: %d functions observed, %d trainable (%d distinct label vectors); trained on %d inputs in %.2fs, tested on %d (%d dropped as duplicates of training inputs)\n",
				res.Subject, res.FunctionsObserved, res.FunctionsTrainable, res.DistinctLabels, res.TrainInputs, res.TrainSeconds, res.TestInputs, res.TestDuplicates)
			if err := renderTable(out, []string{"function", "accuracy", "precision", "recall", "balanced acc.", "majority baseline", "test base rate"}, rows); err != nil {
				return err
			}
			if len(res.Unseen) > 0 {
				fmt.Fprintf(out, "unseen: %d functions ran on test inputs but on no training input: %s\n", len(res.Unseen), strings.Join(res.Unseen, ", "))
			}
			return nil
		},
	}
	f3.register(e3, 1000) // the published protocol
	targeted := func(f *experimentFlags, print func(io.Writer, *eval.TargetResult) error) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			cfg, cleanup, err := f.config(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			if f.budget < 1 || f.baseN < 1 || f.inputs < 1 {
				return usageError{errors.New("-n, --budget and --base-inputs must be at least 1")}
			}
			maxGini, err := checkMaxGini(f.maxGini)
			if err != nil {
				return err
			}
			res, err := eval.Targeted(contextOf(cmd), eval.TargetConfig{E3Config: cfg, Model: f.loaded, Solve: synth.SolveOptions{Seed: f.seed, MaxNodes: f.maxNodes},
				Inputs: f.inputs, Budget: f.budget, Time: f.limit, MaxGini: maxGini, Offline: f.offline, NoLearn: f.noLearn, BaseInputs: f.baseN})
			if err != nil {
				return err
			}
			if f.asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
			}
			return print(cmd.OutOrStdout(), res)
		}
	}
	e4 := &cobra.Command{
		Use:   "E4 (--subject S | --go PKG.Func --grammar G) [--model M] | --model M --trust-model",
		Short: "Targeted generation: coverage fractions of targeted against random inputs",
		Long: `E4 trains a model as E3 does (or reads --model), then asks targeting
for -n inputs aimed at every trainable function. The targeting loop
(docs/targeting.md) solves the function's constraints, runs the inputs,
refits the function's tree with what they covered, mutates the inputs
that ran it, and repeats until -n inputs verifiably run the function or
--budget executions (or --time) are spent. Random inputs are compared at
equal executions, function by function: as many inputs of a separate
random sample (--base-inputs, on which each function's base rate p is
measured) as the loop spent, and the expected reach 1-(1-p)^executions.
Reported: the share of all trainable functions reached, and of rare ones
(p < 0.05), targeted against random; the median share of the -n inputs
verified; the functions where targeting verified fewer inputs than its
executions would have hit at random (executions × p, but at most -n);
mean input sizes;
executions per verified input. --offline measures targeting as it was
before the loop (the first tree's constraints, verified afterwards, one
execution charged per input); --no-learn runs the loop without refits or
mutation.

--model reads a trained model (and its grammar) instead of training one.
A model file does not decide what runs: E4 runs the program the subject
flags name, which must be the one the model was trained on, or, with
--trust-model and no program named, the one the model records, shown in
full on stderr first.

--json prints {"mode":..,"absolute":{"targeted":..,"random":..},
"expected_random_absolute":..,"rare":{...},"hit_rate_median":..,
"worse_than_random":[...],"executions_per_verified_input":..,
"per_function":[...],...} (the same object as E5's).`,
		Args: exactArgs(0),
		RunE: targeted(&f4, func(w io.Writer, r *eval.TargetResult) error {
			fmt.Fprintf(w, "E4 %s (%s): %d trainable functions, %d with constraints; %d inputs asked for per function, at most %d executions each; base rates from %d random inputs; %.1fs targeting\n",
				r.Subject, r.Mode, r.Functions, r.WithConstraints, r.Requested, r.Budget, r.BaseInputs, r.Seconds)
			if err := renderTable(w, []string{"measure", "targeted", "random, equal executions", "random expected"}, [][]string{
				{fmt.Sprintf("functions reached, of all %d trainable", r.Functions), fmt.Sprintf("%.3f", r.Absolute.Targeted), fmt.Sprintf("%.3f", r.Absolute.Random), fmt.Sprintf("%.3f", r.ExpectedRandom)},
				{fmt.Sprintf("rare functions reached (base rate < %.2f), of %d", eval.RareLimit, r.Rare.Functions), fmt.Sprintf("%.3f", r.Rare.Targeted), fmt.Sprintf("%.3f", r.Rare.Random), fmt.Sprintf("%.3f", r.Rare.Expected)},
				{"share of the inputs asked for that were verified (median)", fmt.Sprintf("%.3f", r.HitRate), "", ""},
				{"share that ran the function when recorded again (median)", fmt.Sprintf("%.3f", r.Relative.Targeted), fmt.Sprintf("%.3f", r.Relative.Random), ""},
				{"mean input size (bytes)", fmt.Sprintf("%.1f", r.Size.Targeted), fmt.Sprintf("%.1f", r.Size.Random), ""},
				{fmt.Sprintf("executions (all %d), per verified input", r.Executions), fmt.Sprintf("%.1f", r.ExecutionsPerInput), "", ""},
			}); err != nil {
				return err
			}
			fmt.Fprintf(w, "targeted did worse than random (fewer verified inputs than min(asked for, executions × base rate)) on %d of %d functions\n", len(r.WorseThanRandom), r.Functions)
			for _, f := range r.WorseThanRandom {
				fmt.Fprintf(w, "  %s\n", f)
			}
			return nil
		}),
	}
	f4.register(e4, learn.DefaultTrainInputs)
	f4.registerTargeted(e4)
	e5 := &cobra.Command{
		Use:   "E5 (--subject S | --go PKG.Func --grammar G) [--model M] | --model M --trust-model",
		Short: "Targeted generation: functions covered per input and calls of the target",
		Long: `E5 runs the same inputs as E4 and compares targeted with random inputs by
the number of functions each input covers (median, mean) and by how often
the targeted function is called, each with a Wilcoxon signed-rank test
paired by function and Cohen's d. --model and --trust-model are as in E4.`,
		Args: exactArgs(0),
		RunE: targeted(&f5, func(w io.Writer, r *eval.TargetResult) error {
			fmt.Fprintf(w, "E5 %s: %d functions\n", r.Subject, r.Functions)
			return renderTable(w, []string{"measure", "targeted", "random", "Wilcoxon p", "Cohen's d"}, [][]string{
				{"functions covered per input (median)", fmt.Sprintf("%.1f", r.CoveredPerInputMedian.Targeted), fmt.Sprintf("%.1f", r.CoveredPerInputMedian.Random), "", ""},
				{"functions covered per input (mean)", fmt.Sprintf("%.2f", r.CoveredPerInputMean.Targeted), fmt.Sprintf("%.2f", r.CoveredPerInputMean.Random), fmt.Sprintf("%.3g", r.CoveredP), fmt.Sprintf("%.2f", r.CoveredD)},
				{"calls of the targeted function (mean)", fmt.Sprintf("%.2f", r.CallsMean.Targeted), fmt.Sprintf("%.2f", r.CallsMean.Random), fmt.Sprintf("%.3g", r.CallsP), fmt.Sprintf("%.2f", r.CallsD)},
			})
		}),
	}
	f5.register(e5, learn.DefaultTrainInputs)
	f5.registerTargeted(e5)
	cmd.AddCommand(newE1Cmd(), newE2Cmd(), e3, e4, e5, newE6Cmd(), newE7Cmd(), newE8Cmd(), newE9Cmd(), newE10Cmd(), newEvalAllCmd(), newEvalSuiteCmd(), newEvalLearnersCmd(), newEvalBenchCmd())
	return cmd
}
