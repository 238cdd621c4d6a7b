package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// tabler is an experiment's result, which says what its table is.
type tabler interface {
	Table() (header []string, rows [][]string)
}

// printTable prints a result's table.
func printTable(w io.Writer, t tabler) error {
	header, rows := t.Table()
	return renderTable(w, header, rows)
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
	constraints       constraintsFlag
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
	f.constraints.register(cmd.Flags(), "the random inputs (training, test, E4's base sample and random side) satisfy them, and the targeting loop repairs its inputs that break one or drops them (--offline's solved inputs are left as they are)")
}

// modelSubject is the program E4 and E5 run for a --model: the one the
// subject flags name, which must be the model's, or with --trust-model
// the model's own (modelProgram); with the model's grammar unless
// --grammar gives one.
func (f *experimentFlags) modelSubject(cmd *cobra.Command, p *learn.Predictor) (subject.Setup, error) {
	t, name, err := modelProgram(cmd, p.Model, &f.subjectFlags, f.trust, "")
	if err != nil {
		return subject.Setup{}, err
	}
	s := subject.Setup{Name: name, GrammarName: p.Model.Grammar.Name, Grammar: p.Graph, Target: t}
	if f.grammar != "" {
		if s.Grammar, err = datasets.LoadGrammar(f.grammar); err != nil {
			return subject.Setup{}, err
		}
		s.GrammarName = subject.GrammarName(f.grammar)
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
	if err := f.constraints.check(); err != nil {
		return eval.E3Config{}, nothing, err
	}
	kinds, err := parseFeatures(f.kinds)
	if err != nil {
		return eval.E3Config{}, nothing, err
	}
	if f.trust && f.model == "" {
		return eval.E3Config{}, nothing, usageError{errors.New("--trust-model goes with --model")}
	}
	var s subject.Setup
	f.loaded = nil
	if f.model != "" {
		var p *learn.Predictor
		if p, err = loadPredictor(f.model, ""); err != nil {
			return eval.E3Config{}, nothing, err
		}
		f.loaded = p.Model
		s, err = f.modelSubject(cmd, p)
	} else {
		s, err = f.setup(contextOf(cmd))
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
		Train: f.train, Test: f.test, Seed: f.seed, K: f.k, Features: kinds, MaxRepeat: f.maxRepeat, NoConstraints: f.constraints.off(), WorkDir: work, CacheDir: coverage.DefaultCacheDir(), Learn: f.opts,
		NoBalance: f.noBalance, Progress: lineProgress(cmd.ErrOrStderr())}, cleanup, nil
}

func newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Run arbor's experiments (E1-E11), the generalization suite (eval suite) and the full report (eval all)",
	}
	cmd.AddCommand(newEvalMineCmd(), newE1Cmd(), newE2Cmd(), newE3Cmd(), newE4Cmd(), newE5Cmd(), newE6Cmd(), newE7Cmd(), newE8Cmd(), newE9Cmd(), newE10Cmd(), newE11Cmd(),
		newEvalAllCmd(), newEvalSuiteCmd(), newEvalLearnersCmd(), newEvalBenchCmd())
	return cmd
}

func newE3Cmd() *cobra.Command {
	var f3 experimentFlags
	cmd := &cobra.Command{
		Use:   "E3 (--subject S | --go F | --c ... | --java ... | --python ... | --cmd ...) [--grammar G]",
		Short: "Association quality: predicted against recorded coverage",
		Long: `E3 generates --train grammar-random training inputs (depth 30) and an
independent set of --test inputs (both satisfying the grammar's
constraints, its where clauses, unless --constraints off), records the
subject's coverage of both,
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
			fmt.Fprintf(out, "E3 %s: %d functions observed, %d trainable (%d distinct label vectors); trained on %d inputs in %.2fs, tested on %d (%d dropped as duplicates of training inputs)\n",
				res.Subject, res.FunctionsObserved, res.FunctionsTrainable, res.DistinctLabels, res.TrainInputs, res.TrainSeconds, res.TestInputs, res.TestDuplicates)
			if err := printTable(out, res); err != nil {
				return err
			}
			if len(res.Unseen) > 0 {
				fmt.Fprintf(out, "unseen: %d functions ran on test inputs but on no training input: %s\n", len(res.Unseen), strings.Join(res.Unseen, ", "))
			}
			return nil
		},
	}
	f3.register(cmd, 1000) // the published protocol
	return cmd
}

// runTargeted runs E4 and E5 (eval.Targeted), printing the result as
// JSON or with print.
func runTargeted(cmd *cobra.Command, f *experimentFlags, print func(io.Writer, *eval.TargetResult) error) error {
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

// newTargetedCmd is E4's or E5's command: the same run (runTargeted),
// printed with print.
func newTargetedCmd(use, short, long string, print func(io.Writer, *eval.TargetResult) error) *cobra.Command {
	var f experimentFlags
	cmd := &cobra.Command{Use: use, Short: short, Long: long, Args: exactArgs(0)}
	cmd.RunE = func(cmd *cobra.Command, args []string) error { return runTargeted(cmd, &f, print) }
	f.register(cmd, learn.DefaultTrainInputs)
	f.registerTargeted(cmd)
	return cmd
}

func newE4Cmd() *cobra.Command {
	return newTargetedCmd("E4 (--subject S | --go F | --c ... | --java ... | --python ... | --cmd ...) [--grammar G] [--model M] | --model M --trust-model",
		"Targeted generation: coverage fractions of targeted against random inputs",
		`E4 trains a model as E3 does (or reads --model), then asks targeting
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
mutation. Unless --constraints off, the random inputs satisfy the
grammar's constraints (where clauses), and so does every input the loop
runs: one that breaks one is repaired before it runs, or dropped
(counted in --json); --offline's solved inputs are left as they are.

--model reads a trained model (and its grammar) instead of training one.
A model file does not decide what runs: E4 runs the program the subject
flags name, which must be the one the model was trained on, or, with
--trust-model and no program named, the one the model records, shown in
full on stderr first.

--json prints {"mode":..,"absolute":{"targeted":..,"random":..},
"expected_random_absolute":..,"rare":{...},"hit_rate_median":..,
"worse_than_random":[...],"executions_per_verified_input":..,
"per_function":[...],...} (the same object as E5's).`, printE4)
}

func printE4(w io.Writer, r *eval.TargetResult) error {
	fmt.Fprintf(w, "E4 %s (%s): %d trainable functions, %d with constraints; %d inputs asked for per function, at most %d executions each; base rates from %d random inputs; %.1fs targeting\n",
		r.Subject, r.Mode, r.Functions, r.WithConstraints, r.Requested, r.Budget, r.BaseInputs, r.Seconds)
	header, rows := r.E4Table()
	if err := renderTable(w, header, rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "targeted did worse than random (fewer verified inputs than min(asked for, executions × base rate)) on %d of %d functions\n", len(r.WorseThanRandom), r.Functions)
	for _, f := range r.WorseThanRandom {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if r.Repaired+r.Dropped > 0 {
		fmt.Fprintf(w, "constraints: the loop repaired %d inputs before they ran and dropped %d it could not repair\n", r.Repaired, r.Dropped)
	}
	return nil
}

func newE5Cmd() *cobra.Command {
	return newTargetedCmd("E5 (--subject S | --go F | --c ... | --java ... | --python ... | --cmd ...) [--grammar G] [--model M] | --model M --trust-model",
		"Targeted generation: functions covered per input and calls of the target",
		`E5 runs the same inputs as E4 and compares targeted with random inputs by
the number of functions each input covers (median, mean) and by how often
the targeted function is called, each with a Wilcoxon signed-rank test
paired by function and Cohen's d. --model and --trust-model are as in E4.`, printE5)
}

func printE5(w io.Writer, r *eval.TargetResult) error {
	fmt.Fprintf(w, "E5 %s: %d functions\n", r.Subject, r.Functions)
	header, rows := r.E5Table()
	return renderTable(w, header, rows)
}
