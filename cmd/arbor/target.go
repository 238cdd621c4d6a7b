package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
	"github.com/arbor-fuzz/arbor/targeting"
)

// targetFlags are target's flags.
type targetFlags struct {
	memoryFlag
	outputFormat
	subject                         subjectFlags    // the program to run, which must be the model's
	trust                           bool            // or run the model's own (--trust-model)
	target                          coverage.Target // what runs, once resolved
	model, function, out, saveModel string
	n, budget, maxDepth, maxNodes   int
	seed                            uint64
	verify, noRun, rare, asJSON     bool
	wait                            bool
	timeout, limit                  time.Duration
	maxGini, below                  float64
	constraints                     constraintsFlag
	cons                            *constraint.Set // the grammar's, once resolved
}

// targetingFlags registers the flags that shape constraints and solving,
// shared by target and eval E4/E5.
func targetingFlags(cmd *cobra.Command, maxGini *float64, maxNodes *int) {
	cmd.Flags().Float64Var(maxGini, "max-gini", learn.EveryLeaf,
		"most gini a tree leaf may have to make a constraint (0.5: every leaf that has positive rows; 0.3: the design's strict covering constraints)")
	cmd.Flags().IntVar(maxNodes, "max-nodes", synth.DefaultSolveMaxNodes,
		"size bound of targeted inputs: past this many tree nodes every decision takes the shortest choice")
}

// checkMaxGini validates --max-gini; 0 asks for pure leaves only.
func checkMaxGini(v float64) (float64, error) {
	if v < 0 || v > learn.EveryLeaf || math.IsNaN(v) {
		return 0, usageError{fmt.Errorf("--max-gini must lie in [0, %.1f], not %v", learn.EveryLeaf, v)}
	}
	if v == 0 {
		return math.SmallestNonzeroFloat64, nil
	}
	return v, nil
}

// newTargetCmd is the target command; its help text, the reference of
// what target does, makes it longer than the rest.
func newTargetCmd() *cobra.Command {
	var f targetFlags
	cmd := &cobra.Command{
		Use:   "target --model M (--function F | --rare) (--subject S | --go F | ... | --trust-model | --no-run) [-n N] [--budget E] --out DIR",
		Short: "Generate inputs aimed at a function, learning from running them",
		Long: `target generates inputs aimed at a function of a model. Its constraints are
the root-to-leaf paths of the function's tree that end in a leaf with
positive training rows (with --max-gini 0.3 only the design's strict
covering constraints), as conjunctions of features present and absent,
best first: by the leaf's smoothed share of positives, then by its
positives. Each is solved by a greedy completion steered towards the
required features inside a best-first search over partial trees, bounded
by --max-depth and --max-nodes so that inputs stay small.

A model file records the program it was trained on (a Go function and
its module's folder, a command line, a harness's sources), but it does
not decide what runs: anyone may have written it. target runs the
program named with the subject flags, as record takes them (--subject,
--go, --c, --java, --python, --cmd), which must be the one the model
was trained on; or, with --trust-model and no program named, the
program the model records, shown in full on stderr before it is built.
Without either it stops with a usage error that shows what the model
records and how to name it. --no-run alone runs nothing and needs
neither.

When the program can be built here, target runs a loop, as Alhazen
does: solve the constraints, run the inputs, add what each covered to the
model's training data, refit the function's tree and solve its new
constraints; inputs that ran the function are mutated too (Zest-style
changes to their choice sequences and subtree splices), and when the
tree offers nothing the inputs it rates closest are. It stops once -n
inputs verifiably ran the function, or when --budget executions or --time
are spent, and keeps only inputs that ran the function. It reports how
many inputs were asked for, produced, verified, and what they cost
(executions, rounds, time). --save-model writes the model with the
refitted trees and the grown training data.

--rare pursues every function whose share of training inputs is below
--below, and, when the subject can be run, the recorded functions no
training input ran; each gets a folder under --out, and summary.json and
a table report function, base rate, requested, verified and executions.

--no-run (or a program that cannot be built) generates -n inputs from the
first tree's constraints without running anything; --verify then runs
the program on them afterwards.

The inputs go to --out, one file each, with manifest.jsonl: one line per
input, {"file":..,"source":..,"round":..,"execution":..} with the loop,
{"file":..,"constraint":i,"patterns":[...]} without it.

` + formatHelp + `
With gofuzz, manifest lines name the function too ("function"), --rare
puts every function's inputs into the one seed corpus and writes no
summary.json, and --verify runs the inputs just written and records
them to FuzzX.verify.cov.jsonl.`,
		Example: `  arbor target --model json.model.gz --subject json --function 'encoding/json.(*decodeState).object' -n 10 --out objects/
  arbor target --model url.model.gz --subject url --rare --below 0.05 --budget 200 --out rare/
  arbor target --model w.model.gz --go example.com/w.Run --dir ./w --function example.com/w.onX --out w-inputs/
  arbor target --model shared.model.gz --trust-model --function 'encoding/json.unquote' --out unquote/
  arbor target --model json.model.gz --function 'encoding/json.unquote' --no-run --out offline/
  arbor target --model json.model.gz --subject json --function 'encoding/json.unquote' --format gofuzz --fuzz-target FuzzUnquote --out ./decoder`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTarget(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", "", "model file from 'arbor train'")
	fl.StringVar(&f.function, "function", "", "the function to aim at")
	fl.BoolVar(&f.rare, "rare", false, "aim at every function whose share of training inputs is below --below, and at the never-covered ones")
	f.constraints.register(fl, "every input the loop runs satisfies them: one that breaks one is repaired before it runs, or dropped (counted in the summary)")
	fl.Float64Var(&f.below, "below", learn.RareRate, "with --rare: the share of training inputs under which a function is rare")
	fl.BoolVar(&f.wait, "wait", false, "if another run is writing --out, wait for it instead of failing")
	fl.IntVarP(&f.n, "n", "n", 10, "number of inputs wanted per function (that ran it, with the loop)")
	fl.IntVar(&f.budget, "budget", 100, "executions of the subject the loop may spend per function")
	fl.DurationVar(&f.limit, "time", 0, "time the loop may spend per function (0: no limit)")
	fl.StringVar(&f.out, "out", "", "folder for the inputs and manifest.jsonl")
	fl.StringVar(&f.saveModel, "save-model", "", "write the model refined by the loop (refitted trees, grown training data) to this file")
	fl.Uint64Var(&f.seed, "seed", 1, "random `seed`")
	fl.BoolVar(&f.noRun, "no-run", false, "do not run the subject: generate from the first tree's constraints only")
	fl.BoolVar(&f.verify, "verify", false, "with --no-run: run the model's subject on the inputs afterwards")
	fl.BoolVar(&f.asJSON, "json", false, "print the summary as JSON")
	fl.DurationVar(&f.timeout, "solve-timeout", time.Second, "search time per constraint")
	// --timeout was this flag's name, but in record it is the time limit
	// of each input's run.
	fl.DurationVar(&f.timeout, "timeout", time.Second, "")
	renamedFlag(cmd, "timeout", "solve-timeout", "--timeout is the time limit of each run in record")
	fl.IntVar(&f.maxDepth, "max-depth", synth.DefaultMaxDepth, "depth bound of targeted inputs, in rule expansions")
	targetingFlags(cmd, &f.maxGini, &f.maxNodes)
	f.memoryFlag.register(cmd.Flags())
	f.outputFormat.register(cmd.Flags())
	f.subject.register(cmd.Flags(), false)
	trustModelFlag(cmd.Flags(), &f.trust)
	return cmd
}

// check validates the flags as usage errors; --max-gini 0 becomes the
// smallest gini there is (checkMaxGini).
func (f *targetFlags) check() error {
	if f.model == "" || f.out == "" || (f.function == "") == !f.rare {
		return usageError{errors.New("--model and --out are required, and either --function or --rare")}
	}
	if err := f.outputFormat.check(); err != nil {
		return err
	}
	if f.n < 1 || f.budget < 1 || f.maxDepth < 1 || f.maxNodes < 1 {
		return usageError{errors.New("-n, --budget, --max-depth and --max-nodes must be at least 1")}
	}
	if _, err := f.runOptions(); err != nil {
		return err
	}
	if f.below <= 0 || f.below > 1 {
		return usageError{fmt.Errorf("--below must lie in (0, 1], not %v", f.below)}
	}
	if f.rare && f.noRun {
		return usageError{errors.New("--rare runs the subject; it cannot be used with --no-run")}
	}
	if err := f.constraints.check(); err != nil {
		return err
	}
	maxGini, err := checkMaxGini(f.maxGini)
	if err != nil {
		return err
	}
	f.maxGini = maxGini
	return nil
}

func runTarget(cmd *cobra.Command, f targetFlags) error {
	if err := f.check(); err != nil {
		return err
	}
	p, err := loadPredictor(f.model, "")
	if err != nil {
		return err
	}
	// One run at a time writes a folder, and a run again into a folder
	// replaces what the last one wrote there.
	release, err := claimOutput(contextOf(cmd), f.outputFormat, f.out, f.wait)
	if err != nil {
		return err
	}
	defer release()
	if !f.gofuzz() {
		n, err := corpus.ClearRun(f.out)
		if err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "target: removed the %d inputs an earlier run wrote into %s\n", n, f.out)
		}
	}
	// What runs is decided before anything is built, and only when
	// something is to run: --no-run alone never needs it.
	if !f.noRun || f.verify {
		offline := "\n(Or --no-run generates from the model's constraints without running anything.)"
		if f.noRun {
			offline = "\n(Or leave out --verify: --no-run alone runs nothing.)"
		}
		if f.target, _, err = modelProgram(cmd, p.Model, &f.subject, f.trust, offline); err != nil {
			return err
		}
	}
	var runner *coverage.SessionRunner
	if !f.noRun {
		runner, err = modelRunner(cmd, f.target, f.memoryFlag)
		if err != nil {
			if f.rare {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "target: %v\ntarget: generating from the model's constraints without running them (--no-run)\n", err)
		} else {
			defer runner.Session.Close()
		}
	}
	if runner == nil {
		return targetOffline(cmd, p, f)
	}
	return targetLoops(cmd, p, runner, f)
}

// targetLoops runs the targeting loop for --function or --rare, and
// saves the refined model with --save-model.
func targetLoops(cmd *cobra.Command, p *learn.Predictor, runner *coverage.SessionRunner, f targetFlags) error {
	loop, err := targeting.NewLoop(p, runner)
	if err != nil {
		return err
	}
	if f.cons, err = f.constraints.set(p.Graph); err != nil {
		return err
	}
	if f.rare {
		err = targetRare(cmd, p.Model, loop, f)
	} else {
		err = targetLoop(cmd, p.Model, loop, f)
	}
	if f.saveModel != "" {
		if serr := loop.Model().Save(f.saveModel); serr != nil && err == nil {
			err = serr
		} else if serr == nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "target: the refined model is in %s\n", f.saveModel)
		}
	}
	return err
}

func (f targetFlags) solveOptions() synth.SolveOptions {
	return synth.SolveOptions{Seed: f.seed, Timeout: f.timeout, MaxDepth: f.maxDepth, MaxNodes: f.maxNodes}
}

// targetOptions are the loop's options, progress its report after each
// round, and where its inputs go, of the model m.
func (f targetFlags) targetOptions(m *learn.Model, progress func(*targeting.Pursuit)) targeting.TargetOptions {
	return targeting.TargetOptions{
		Pursue: targeting.PursueOptions{Want: f.n, Budget: f.budget, Time: f.limit, MaxGini: f.maxGini, Solve: f.solveOptions(), Seed: f.seed, Progress: progress,
			Constraints: f.cons},
		Layout: f.layout(m.Grammar.Name),
		Out:    f.out,
	}
}

// modelRunner builds the program the model's inputs run on (modelProgram
// chose it) and starts a recording session.
func modelRunner(cmd *cobra.Command, target coverage.Target, memory memoryFlag) (*coverage.SessionRunner, error) {
	run, err := memory.runOptions()
	if err != nil {
		return nil, err
	}
	bin, err := coverage.Build(contextOf(cmd), target, coverage.DefaultCacheDir())
	if err != nil {
		return nil, fmt.Errorf("the model's subject %s cannot be built here: %w", target, err)
	}
	s, err := coverage.Start(bin, run)
	if err != nil {
		return nil, fmt.Errorf("the model's subject %s: %w", target, err)
	}
	return &coverage.SessionRunner{Session: s}, nil
}

// pursuitSummary is targeting.Summary as target prints it.
type pursuitSummary targeting.Summary

func (s pursuitSummary) text() string {
	line := fmt.Sprintf("%s: asked for %d, produced %d, verified %d (mean %.1f bytes); %d executions in %d rounds, %.1fs",
		s.Function, s.Requested, s.Produced, s.Verified, s.MeanSize, s.Executions, s.Rounds, s.Seconds)
	if s.Repaired+s.Dropped+s.BrokenRuns > 0 {
		line += fmt.Sprintf("; constraints: %d repaired, %d dropped, %d run broken", s.Repaired, s.Dropped, s.BrokenRuns)
	}
	switch s.Stopped {
	case "done":
	case "budget":
		line += fmt.Sprintf("; fell short by %d: the budget of executions ran out", s.Requested-s.Verified)
	case "time":
		line += fmt.Sprintf("; fell short by %d: the time ran out", s.Requested-s.Verified)
	case "stalled":
		line += fmt.Sprintf("; fell short by %d: nothing new to try", s.Requested-s.Verified)
	default:
		line += "; " + s.Stopped
	}
	return line
}

func targetLoop(cmd *cobra.Command, m *learn.Model, loop *targeting.Loop, f targetFlags) error {
	errw := cmd.ErrOrStderr()
	sum, err := loop.Target(contextOf(cmd), f.function, f.targetOptions(m, func(p *targeting.Pursuit) {
		fmt.Fprintf(errw, "target: round %d: %d of %d inputs ran %s, %d executions\n", p.Rounds, len(p.Inputs), p.Wanted, p.Function, p.Executions)
	}))
	if err != nil {
		return err
	}
	s := pursuitSummary(sum)
	if f.asJSON {
		if err := json.NewEncoder(cmd.OutOrStdout()).Encode(s); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(cmd.OutOrStdout(), s.text())
	}
	if s.Verified == 0 {
		return fmt.Errorf("no input ran %s within %d executions", f.function, s.Executions)
	}
	return nil
}

func targetRare(cmd *cobra.Command, m *learn.Model, loop *targeting.Loop, f targetFlags) error {
	funcs := loop.RareFunctions(f.below)
	if len(funcs) == 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "no function has a base rate below %v and none was never covered\n", f.below)
		return nil
	}
	opts := f.targetOptions(m, nil)
	errw := cmd.ErrOrStderr()
	opts.Pursued = func(i, n int, s targeting.Summary) {
		fmt.Fprintf(errw, "target: [%d/%d] %s\n", i+1, n, pursuitSummary(s).text())
	}
	sums, err := loop.Rare(contextOf(cmd), funcs, opts)
	if err != nil {
		return err
	}
	return printRare(cmd.OutOrStdout(), sums, f)
}

// printRare prints what target --rare reached: as JSON, or a table and
// the counts of functions reached.
func printRare(w io.Writer, sums []targeting.Summary, f targetFlags) error {
	reached, never := 0, 0
	for _, s := range sums {
		if s.Never {
			never++
			if s.Verified > 0 {
				reached++
			}
		}
	}
	if f.asJSON {
		return json.NewEncoder(w).Encode(struct {
			Functions    []targeting.Summary `json:"functions"`
			NeverCovered int                 `json:"never_covered"`
			Reached      int                 `json:"never_covered_reached"`
		}{sums, never, reached})
	}
	rows := make([][]string, 0, len(sums))
	hit := 0
	for _, s := range sums {
		rate := fmt.Sprintf("%.4f", s.BaseRate)
		if s.Never {
			rate = "never"
		} else if s.Verified > 0 {
			hit++
		}
		rows = append(rows, []string{s.Function, rate, fmt.Sprint(s.Requested), fmt.Sprint(s.Verified), fmt.Sprint(s.Executions), s.Stopped})
	}
	if err := renderTable(w, []string{"function", "base rate", "requested", "verified", "executions", "stopped"}, rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "reached %d of %d rare functions (base rate below %v)\n", hit, len(sums)-never, f.below)
	if never > 0 {
		fmt.Fprintf(w, "reached %d of %d never-covered functions\n", reached, never)
	}
	l := f.layout("")
	if f.gofuzz() {
		fmt.Fprintf(w, "inputs in %s, manifest %s\n", l.InputDir(f.out), l.SideFile(f.out, "manifest.jsonl"))
		return nil
	}
	fmt.Fprintf(w, "inputs and summary.json in %s\n", f.out)
	return nil
}

// targetOffline generates from the first tree's constraints without
// running the subject (--no-run, or a subject that cannot be built).
func targetOffline(cmd *cobra.Command, p *learn.Predictor, f targetFlags) error {
	m := p.Model
	fn, err := m.Function(f.function)
	if err != nil {
		return err
	}
	res := targeting.Offline(contextOf(cmd), p.Graph, m, fn, f.n, f.maxGini, f.solveOptions())
	w := cmd.OutOrStdout()
	cons := m.Constraints(fn, f.maxGini) // in the order targeting.Offline numbers them
	l := f.layout(m.Grammar.Name)
	files, err := targeting.WriteOffline(l, f.out, m, fn.Name, cons, res)
	if err != nil {
		return err
	}
	size := 0
	for _, in := range res.Inputs {
		size += len(in.Text)
	}
	fmt.Fprintf(w, "%s: %d constraints, %d unsolved; asked for %d, produced %d (mean %.1f bytes) in %s, not run\n",
		fn.Name, len(res.Constraints), len(res.Unsolved), f.n, len(res.Inputs), float64(size)/float64(max(1, len(res.Inputs))), l.InputDir(f.out))
	if len(res.Inputs) < f.n && len(res.Inputs) > 0 {
		fmt.Fprintf(w, "fell short by %d: the constraints gave no more distinct inputs\n", f.n-len(res.Inputs))
	}
	for k, i := range res.Unsolved {
		if k == 3 {
			fmt.Fprintf(w, "... and %d more unsolved constraints\n", len(res.Unsolved)-k)
			break
		}
		fmt.Fprintf(w, "unsolved constraint %d (%d literals):\n  %s\n", i, res.Constraints[i].Literals(),
			strings.ReplaceAll(m.Text(cons[i], false), "\n", "\n  "))
	}
	if len(res.Inputs) == 0 {
		return fmt.Errorf("no input satisfies any constraint of %s", fn.Name)
	}
	if f.verify {
		bin, err := buildVerifier(cmd, f.target)
		if err != nil {
			return err
		}
		ran, total, err := targeting.Verify(contextOf(cmd), bin, m, fn.Name, files, l.SideFile(f.out, "verify.cov.jsonl"))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "verified: %d of %d inputs ran %s\n", ran, total, fn.Name)
	}
	return nil
}

// buildVerifier builds the model's subject (modelProgram chose it) to
// verify offline targeting's inputs with.
func buildVerifier(cmd *cobra.Command, target coverage.Target) (*coverage.Binary, error) {
	bin, err := coverage.Build(contextOf(cmd), target, coverage.DefaultCacheDir())
	if err != nil {
		return nil, fmt.Errorf("--verify: the model's subject %s cannot be built here: %w", target, err)
	}
	return bin, nil
}
