package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/atomicfile"
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
			maxGini, err := checkMaxGini(f.maxGini)
			if err != nil {
				return err
			}
			f.maxGini = maxGini
			p, err := loadPredictor(f.model, "")
			if err != nil {
				return err
			}
			// One run at a time writes a folder, and a run again into
			// a folder replaces what the last one wrote there.
			release, err := claimOutput(contextOf(cmd), f.outputFormat, f.out, f.wait)
			if err != nil {
				return err
			}
			defer release()
			if !f.gofuzz() {
				n, err := clearTargetRun(f.out)
				if err != nil {
					return err
				}
				if n > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "target: removed the %d inputs an earlier run wrote into %s\n", n, f.out)
				}
			}
			// What runs is decided before anything is built, and only
			// when something is to run: --no-run alone never needs it.
			var target coverage.Target
			if !f.noRun || f.verify {
				offline := "\n(Or --no-run generates from the model's constraints without running anything.)"
				if f.noRun {
					offline = "\n(Or leave out --verify: --no-run alone runs nothing.)"
				}
				if target, _, err = modelProgram(cmd, p.Model, &f.subject, f.trust, offline); err != nil {
					return err
				}
			}
			f.target = target
			var runner *coverage.SessionRunner
			if !f.noRun {
				runner, err = modelRunner(cmd, target, f.memoryFlag)
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
			loop, err := targeting.NewLoop(p, runner)
			if err != nil {
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
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", "", "model file from 'arbor train'")
	fl.StringVar(&f.function, "function", "", "the function to aim at")
	fl.BoolVar(&f.rare, "rare", false, "aim at every function whose share of training inputs is below --below, and at the never-covered ones")
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

func (f targetFlags) solveOptions() synth.SolveOptions {
	return synth.SolveOptions{Seed: f.seed, Timeout: f.timeout, MaxDepth: f.maxDepth, MaxNodes: f.maxNodes}
}

func (f targetFlags) pursueOptions(progress func(*targeting.Pursuit)) targeting.PursueOptions {
	return targeting.PursueOptions{Want: f.n, Budget: f.budget, Time: f.limit, MaxGini: f.maxGini, Solve: f.solveOptions(), Seed: f.seed, Progress: progress}
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

// pursuitSummary is what target reports of one function's loop.
type pursuitSummary struct {
	Function   string         `json:"function"`
	BaseRate   float64        `json:"base_rate"` // share of training inputs that ran it
	Never      bool           `json:"never_covered,omitempty"`
	Requested  int            `json:"requested"`
	Produced   int            `json:"produced"`
	Verified   int            `json:"verified"`
	Executions int            `json:"executions"`
	FirstHit   int            `json:"first_hit"`
	Rounds     int            `json:"rounds"`
	Seconds    float64        `json:"seconds"`
	Stopped    string         `json:"stopped"`
	MeanSize   float64        `json:"mean_size"`
	Sources    map[string]int `json:"executions_by_source"`
	Hits       map[string]int `json:"hits_by_source"`
	Out        string         `json:"out"`
}

func summarize(pr *targeting.Pursuit, baseRate float64, out string) pursuitSummary {
	size := 0
	for _, in := range pr.Inputs {
		size += len(in.Text)
	}
	return pursuitSummary{Function: pr.Function, BaseRate: baseRate, Requested: pr.Wanted, Produced: pr.Produced, Verified: len(pr.Inputs),
		Executions: pr.Executions, FirstHit: pr.FirstHit, Rounds: pr.Rounds, Seconds: pr.Elapsed.Seconds(), Stopped: pr.Stopped,
		MeanSize: float64(size) / float64(max(1, len(pr.Inputs))), Sources: pr.Sources, Hits: pr.Hits, Out: out}
}

func (s pursuitSummary) text() string {
	line := fmt.Sprintf("%s: asked for %d, produced %d, verified %d (mean %.1f bytes); %d executions in %d rounds, %.1fs",
		s.Function, s.Requested, s.Produced, s.Verified, s.MeanSize, s.Executions, s.Rounds, s.Seconds)
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

// baseRate is a function's share of the model's training rows.
func baseRate(m *learn.Model, fn *learn.FunctionModel) float64 {
	return float64(fn.Positives) / float64(max(1, m.Stats.Rows))
}

func targetLoop(cmd *cobra.Command, m *learn.Model, loop *targeting.Loop, f targetFlags) error {
	name := f.function
	rate := 0.0 // a never-covered function's
	if fn, err := m.Function(name); err == nil {
		rate = baseRate(m, fn)
	} else if !slices.Contains(loop.Functions(), name) {
		return err
	}
	errw := cmd.ErrOrStderr()
	pr, err := loop.Pursue(contextOf(cmd), name, f.pursueOptions(func(p *targeting.Pursuit) {
		fmt.Fprintf(errw, "target: round %d: %d of %d inputs ran %s, %d executions\n", p.Rounds, len(p.Inputs), p.Wanted, p.Function, p.Executions)
	}))
	if pr != nil {
		if werr := writePursued(f.outputFormat, f.out, m, pr); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	s := summarize(pr, rate, f.inputDir(f.out))
	if f.asJSON {
		if err := json.NewEncoder(cmd.OutOrStdout()).Encode(s); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(cmd.OutOrStdout(), s.text())
	}
	if s.Verified == 0 {
		return fmt.Errorf("no input ran %s within %d executions", name, s.Executions)
	}
	return nil
}

func targetRare(cmd *cobra.Command, m *learn.Model, loop *targeting.Loop, f targetFlags) error {
	type pick struct {
		name  string
		rate  float64
		never bool
	}
	var picks []pick
	for i := range m.Functions {
		if r := baseRate(m, &m.Functions[i]); r < f.below {
			picks = append(picks, pick{m.Functions[i].Name, r, false})
		}
	}
	slices.SortStableFunc(picks, func(a, b pick) int {
		switch {
		case a.rate < b.rate:
			return -1
		case a.rate > b.rate:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	for _, name := range loop.Functions()[len(m.Functions):] {
		picks = append(picks, pick{name, 0, true})
	}
	if len(picks) == 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "no function has a base rate below %v and none was never covered\n", f.below)
		return nil
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	errw := cmd.ErrOrStderr()
	var sums []pursuitSummary
	reached, never := 0, 0
	for i, pk := range picks {
		// Each function's inputs get a folder of their own, but with
		// gofuzz all join the one seed corpus.
		dir := filepath.Join(f.out, fmt.Sprintf("%03d-%s", i+1, folderName(pk.name)))
		if f.gofuzz() {
			dir = f.out
		}
		pr, err := loop.Pursue(contextOf(cmd), pk.name, f.pursueOptions(nil))
		if pr != nil {
			if werr := writeFunctionFolder(f.outputFormat, dir, m, pr); werr != nil && err == nil {
				err = werr
			}
		}
		if err != nil {
			return err
		}
		s := summarize(pr, pk.rate, f.inputDir(dir))
		s.Never = pk.never
		sums = append(sums, s)
		if pk.never {
			never++
			if s.Verified > 0 {
				reached++
			}
		}
		fmt.Fprintf(errw, "target: [%d/%d] %s\n", i+1, len(picks), s.text())
		if f.gofuzz() {
			continue
		}
		if err := writeJSONFile(filepath.Join(f.out, "summary.json"), sums); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	if f.asJSON {
		return json.NewEncoder(w).Encode(struct {
			Functions    []pursuitSummary `json:"functions"`
			NeverCovered int              `json:"never_covered"`
			Reached      int              `json:"never_covered_reached"`
		}{sums, never, reached})
	}
	rows := make([][]string, 0, len(sums))
	for _, s := range sums {
		rate := fmt.Sprintf("%.4f", s.BaseRate)
		if s.Never {
			rate = "never"
		}
		rows = append(rows, []string{s.Function, rate, fmt.Sprint(s.Requested), fmt.Sprint(s.Verified), fmt.Sprint(s.Executions), s.Stopped})
	}
	if err := renderTable(w, []string{"function", "base rate", "requested", "verified", "executions", "stopped"}, rows); err != nil {
		return err
	}
	rare := len(sums) - never
	hit := 0
	for _, s := range sums {
		if !s.Never && s.Verified > 0 {
			hit++
		}
	}
	fmt.Fprintf(w, "reached %d of %d rare functions (base rate below %v)\n", hit, rare, f.below)
	if never > 0 {
		fmt.Fprintf(w, "reached %d of %d never-covered functions\n", reached, never)
	}
	if f.gofuzz() {
		fmt.Fprintf(w, "inputs in %s, manifest %s\n", f.inputDir(f.out), f.sideFile(f.out, "manifest.jsonl"))
		return nil
	}
	fmt.Fprintf(w, "inputs and summary.json in %s\n", f.out)
	return nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// folderName turns a function name into a folder name.
func folderName(fn string) string {
	s := strings.Trim(unsafeName.ReplaceAllString(fn, "_"), "_")
	if len(s) > 100 {
		s = s[len(s)-100:]
	}
	return s
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}

// writeFunctionFolder writes a function's inputs and manifest for
// --rare: into a hidden folder first, renamed to dir once complete, so
// that a run killed midway leaves no folder that disagrees with its
// manifest (the hidden one is removed by the next run). With gofuzz all
// join the one seed corpus.
func writeFunctionFolder(o outputFormat, dir string, m *learn.Model, pr *targeting.Pursuit) error {
	if o.gofuzz() {
		return writePursued(o, dir, m, pr)
	}
	tmp := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	if err := writePursued(o, tmp, m, pr); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	return nil
}

// writePursued writes the inputs a loop kept, with their manifest.
func writePursued(o outputFormat, out string, m *learn.Model, pr *targeting.Pursuit) error {
	function := ""
	if o.gofuzz() {
		function = pr.Function // the manifest gathers every run's
	}
	_, err := writeManifest(o, out, len(pr.Inputs), extensionOf(m.Grammar.Name), func(i int) string { return pr.Inputs[i].Text },
		func(i int, name string) any {
			in := pr.Inputs[i]
			return struct {
				File      string `json:"file"`
				Function  string `json:"function,omitempty"`
				Source    string `json:"source"`
				Round     int    `json:"round"`
				Execution int    `json:"execution"`
				Choices   []int  `json:"choices,omitempty"`
			}{name, function, in.Source, in.Round, in.Execution, in.Choices}
		})
	return err
}

// writeManifest writes n inputs, input i's text given by text, and a
// line each, given by line from the input's file name, to the manifest:
// with raw output numbered files in out and out/manifest.jsonl, with
// gofuzz files of Go's format in the seed corpus folder and
// FuzzX.manifest.jsonl beside it. It returns the inputs' paths.
func writeManifest(o outputFormat, out string, n int, ext string, text func(i int) string, line func(i int, name string) any) ([]string, error) {
	dir := o.inputDir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	mf, err := o.openSide(o.sideFile(out, "manifest.jsonl"))
	if err != nil {
		return nil, err
	}
	defer mf.Close()
	enc := json.NewEncoder(mf)
	enc.SetEscapeHTML(false)
	paths := make([]string, 0, n)
	for i := range n {
		name, err := o.write(dir, inputName(i, n, ext), []byte(text(i)))
		if err != nil {
			return nil, err
		}
		if err := enc.Encode(line(i, name)); err != nil {
			return nil, err
		}
		paths = append(paths, filepath.Join(dir, name))
	}
	return paths, mf.Close()
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
	cons := m.Constraints(fn, f.maxGini) // in the order synth.Target numbers them
	files, err := writeTargetedAs(f.outputFormat, f.out, m, fn.Name, cons, res)
	if err != nil {
		return err
	}
	size := 0
	for _, in := range res.Inputs {
		size += len(in.Text)
	}
	fmt.Fprintf(w, "%s: %d constraints, %d unsolved; asked for %d, produced %d (mean %.1f bytes) in %s, not run\n",
		fn.Name, len(res.Constraints), len(res.Unsolved), f.n, len(res.Inputs), float64(size)/float64(max(1, len(res.Inputs))), f.inputDir(f.out))
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
		ran, total, err := verifyFiles(cmd, f.target, m, fn, files, f.sideFile(f.out, "verify.cov.jsonl"))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "verified: %d of %d inputs ran %s\n", ran, total, fn.Name)
	}
	return nil
}

// writeTargeted writes offline targeting's inputs to dir, raw.
func writeTargeted(dir string, m *learn.Model, cons []learn.Constraint, res *targeting.OfflineResult) error {
	_, err := writeTargetedAs(outputFormat{format: "raw"}, dir, m, "", cons, res)
	return err
}

// writeTargetedAs writes offline targeting's inputs for function in the
// given format and returns their paths.
func writeTargetedAs(o outputFormat, out string, m *learn.Model, function string, cons []learn.Constraint, res *targeting.OfflineResult) ([]string, error) {
	if !o.gofuzz() {
		function = ""
	}
	return writeManifest(o, out, len(res.Inputs), extensionOf(m.Grammar.Name), func(i int) string { return res.Inputs[i].Text },
		func(i int, name string) any {
			in := res.Inputs[i]
			return struct {
				File       string   `json:"file"`
				Function   string   `json:"function,omitempty"`
				Constraint int      `json:"constraint"`
				Patterns   []string `json:"patterns"`
			}{name, function, in.Constraint, strings.Split(m.Text(cons[in.Constraint], false), "\n")}
		})
}

// verifyTargeted runs target, the model's subject, on the inputs in dir,
// records their coverage to dir/verify.cov.jsonl, and counts the inputs
// that ran the function.
func verifyTargeted(cmd *cobra.Command, target coverage.Target, m *learn.Model, fn *learn.FunctionModel, dir string) (ran, total int, err error) {
	files, err := corpus.List(dir)
	if err != nil {
		return 0, 0, err
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".jsonl") })
	return verifyFiles(cmd, target, m, fn, files, filepath.Join(dir, "verify.cov.jsonl"))
}

// verifyFiles runs target, the model's subject (modelProgram chose it),
// on files, records their coverage to out, and counts the inputs that
// ran the function.
func verifyFiles(cmd *cobra.Command, target coverage.Target, m *learn.Model, fn *learn.FunctionModel, files []string, out string) (ran, total int, err error) {
	bin, err := coverage.Build(contextOf(cmd), target, coverage.DefaultCacheDir())
	if err != nil {
		return 0, 0, fmt.Errorf("--verify: the model's subject %s cannot be built here: %w", target, err)
	}
	os.Remove(out)
	if _, err := coverage.RecordInputs(contextOf(cmd), bin, files, out, coverage.Options{Subject: m.Subject}); err != nil {
		return 0, 0, err
	}
	f, err := coverage.ReadFile(out)
	if err != nil {
		return 0, 0, err
	}
	id := slices.Index(f.Functions, fn.Name)
	for _, r := range f.Records {
		total++
		if id >= 0 && slices.Contains(r.Covered, id) {
			ran++
		}
	}
	return ran, total, nil
}
