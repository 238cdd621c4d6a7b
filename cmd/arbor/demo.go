package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// demoFunctions are the functions the demo would rather explain, in
// order: each has a calling condition a JSON user recognises.
var demoFunctions = []string{
	"encoding/json.stateInStringEscU",
	"encoding/json.(*decodeState).object",
	"encoding/json.unquoteBytes",
}

func newDemoCmd() *cobra.Command {
	var out string
	var subject subjectFlags
	var train, test int
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on a subject (the bundled encoding/json by default)",
		Long: `demo runs arbor end to end on a real library: it generates grammar-random
training and test inputs, records which functions each one runs, trains
one decision tree per function, reports how well the trees predict the
test inputs' coverage, explains one function's calling condition as
grammar patterns, generates inputs aimed at it without running the
program, runs them to verify, and compares targeted with random inputs
over every function. Everything it writes goes to one folder (--out; by
default arbor-demo-<date>-<time> in the current folder), named at the
end. It takes a few seconds (the first run also builds the harness).
With --json the story goes to stderr and stdout gets the numbers
(docs/json.md).

The subject is a bundled one (--subject, json by default), or any Go
function, function of another language or command with a grammar of its
inputs (--go importpath.Func, --c, --java, --python or --cmd, each with
--grammar G; see 'arbor record --help').`,
		Example: "  arbor demo\n  arbor demo --subject gjson\n  arbor demo --go example.com/semver.Run --grammar semver.grammar --dir ./semver",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			w := cmd.OutOrStdout()
			if asJSON {
				w = cmd.ErrOrStderr()
			}
			var result demoResult
			if out == "" {
				out = "arbor-demo-" + time.Now().Format("20060102-150405")
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			if !cmd.Flags().Changed("subject") {
				// json is the default only when no other subject is named.
				subject.subject = ""
				if !subject.hasSubject() {
					subject.subject = "json"
				}
			}
			s, err := subject.setup()
			if err != nil {
				return err
			}
			what := s.Target.String()
			if b, err := datasets.LookupSubject(subject.subject); err == nil {
				what = b.Library + " " + b.Version()
			}
			step := 0
			say := func(format string, args ...any) {
				step++
				fmt.Fprintf(w, "\n[%d/6] "+format+"\n", append([]any{step}, args...)...)
			}
			progress := func(msg string) {
				fmt.Fprintf(cmd.ErrOrStderr(), "      %s (%.1fs)\n", msg, time.Since(start).Seconds())
			}

			say("Learn which inputs make which functions of %s run", what)
			cfg := eval.E3Config{Subject: s.Name, GrammarName: s.GrammarName, Grammar: s.Grammar, Target: s.Target, Train: train, Test: test,
				Seed: seed, WorkDir: out, CacheDir: coverage.DefaultCacheDir(), Progress: progress}
			e3, err := eval.E3(contextOf(cmd), cfg)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "      %d training inputs recorded; %d functions ran at least once, %d sometimes (one tree each)\n",
				e3.TrainInputs, e3.FunctionsObserved, e3.FunctionsTrainable)

			say("Predict the coverage of %d new inputs without running them", e3.TestInputs)
			fmt.Fprintf(w, "      mean over %d functions: accuracy %.3f (always guessing the majority: %.3f), balanced accuracy %.3f, precision %.3f, recall %.3f\n",
				e3.FunctionsTrainable, e3.Accuracy, e3.Baseline, e3.Balanced, e3.Precision, e3.Recall)
			if mr := e3.MidRate; mr.Functions > 0 {
				fmt.Fprintf(w, "      over the %d functions that run on 5-95%% of inputs: accuracy %.3f (majority: %.3f), precision %.3f, recall %.3f\n",
					mr.Functions, mr.Accuracy, mr.Baseline, mr.Precision, mr.Recall)
			}

			m, err := learn.LoadModel(e3.Model)
			if err != nil {
				return err
			}
			fn := pickDemoFunction(m)
			if fn == nil {
				return errors.New("the model has no function with a covering constraint to show")
			}
			say("Explain when %s runs", fn.Name)
			writeTreeText(indented{w}, m, fn, false)
			covering := m.Covering(fn)
			fmt.Fprintf(w, "      covering constraints (%d):\n", len(covering))
			for i, c := range covering {
				fmt.Fprintf(w, "      %d. %s\n", i+1, indent(m.Text(c, false), "         "))
			}

			say("Generate inputs aimed at %s, without running the program", fn.Name)
			dir := filepath.Join(out, "targeted")
			cons := m.Constraints(fn, learn.EveryLeaf)
			res := synth.Target(contextOf(cmd), s.Grammar, m, fn, 10, learn.EveryLeaf, synth.SolveOptions{Seed: seed})
			if err := writeTargeted(dir, m, cons, res); err != nil {
				return err
			}
			for _, in := range res.Inputs[:min(5, len(res.Inputs))] {
				fmt.Fprintf(w, "      %q\n", in.Text)
			}
			if len(res.Inputs) > 5 {
				fmt.Fprintf(w, "      ... %d inputs in all, in %s\n", len(res.Inputs), dir)
			}

			say("Run them to verify")
			ran, total, err := verifyTargeted(cmd, m, fn, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "      %d of %d targeted inputs ran %s\n", ran, total, fn.Name)
			result.Function, result.Targeted.Dir, result.Targeted.Ran, result.Targeted.Total = fn.Name, dir, ran, total
			for _, c := range covering {
				result.Constraints = append(result.Constraints, m.Text(c, false))
			}
			for _, in := range res.Inputs {
				result.Targeted.Inputs = append(result.Targeted.Inputs, in.Text)
			}

			say("Targeted against grammar-random inputs, over every function (E4)")
			cfg.Progress = progress
			tr, err := eval.Targeted(contextOf(cmd), eval.TargetConfig{E3Config: cfg, Model: m, Solve: synth.SolveOptions{Seed: seed}})
			if err != nil {
				return err
			}
			if err := renderTable(indented{w}, []string{fmt.Sprintf("%d inputs asked for per function, at most %d executions", tr.Requested, tr.Budget), "targeted", "random, equal executions", "random expected"}, [][]string{
				{"share of the inputs asked for that were verified (median)", fmt.Sprintf("%.2f", tr.HitRate), "", ""},
				{"functions reached, of all trainable", fmt.Sprintf("%.2f", tr.Absolute.Targeted), fmt.Sprintf("%.2f", tr.Absolute.Random), fmt.Sprintf("%.2f", tr.ExpectedRandom)},
				{fmt.Sprintf("rare functions reached (%d with base rate < %.2f)", tr.Rare.Functions, eval.RareLimit), fmt.Sprintf("%.2f", tr.Rare.Targeted), fmt.Sprintf("%.2f", tr.Rare.Random), fmt.Sprintf("%.2f", tr.Rare.Expected)},
				{"mean input size (bytes)", fmt.Sprintf("%.1f", tr.Size.Targeted), fmt.Sprintf("%.1f", tr.Size.Random), ""},
			}); err != nil {
				return err
			}
			if asJSON {
				result.Out, result.Seconds, result.Prediction, result.Comparison = out, time.Since(start).Seconds(), e3, tr
				result.Subject = what
				return writeJSON(cmd.OutOrStdout(), result)
			}
			fmt.Fprintf(w, "\nDone in %.1fs. Everything is in %s: train/ and test/ inputs, their coverage files, the model (model.json.gz), targeted/ inputs with manifest.jsonl.\n",
				time.Since(start).Seconds(), out)
			fmt.Fprintf(w, "Try: arbor explain --model %s\n", filepath.Join(out, "model.json.gz"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder to write to (default arbor-demo-<time> here)")
	subject.register(cmd.Flags(), true)
	cmd.Flags().Lookup("subject").DefValue = "json"
	subject.subject = "json"
	cmd.Flags().IntVar(&train, "train", learn.DefaultTrainInputs, "training inputs")
	cmd.Flags().IntVar(&test, "test", 500, "test inputs")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results as JSON on stdout, the story on stderr")
	return cmd
}

// demoResult is what demo found, as --json prints it.
type demoResult struct {
	Out         string             `json:"out"` // the folder everything was written to
	Subject     string             `json:"subject"`
	Seconds     float64            `json:"seconds"`
	Prediction  *eval.E3Result     `json:"prediction"` // trees against the recorded coverage of new inputs
	Function    string             `json:"function"`   // the function explained and targeted
	Constraints []string           `json:"covering_constraints"`
	Targeted    demoTargeted       `json:"targeted"`
	Comparison  *eval.TargetResult `json:"comparison"` // targeted against random inputs over every function (E4)
}

type demoTargeted struct {
	Dir    string   `json:"dir"`
	Inputs []string `json:"inputs"`
	Ran    int      `json:"ran"`   // inputs that, run, ran the function
	Total  int      `json:"total"` // inputs run
}

// pickDemoFunction prefers a well-known function, else the function whose
// constraints use the most features among those learned well.
func pickDemoFunction(m *learn.Model) *learn.FunctionModel {
	for _, name := range demoFunctions {
		if fn, err := m.Function(name); err == nil && len(m.Covering(fn)) > 0 && fn.TrainAccuracy >= 0.95 {
			return fn
		}
	}
	var best *learn.FunctionModel
	score := -1
	for i := range m.Functions {
		fn := &m.Functions[i]
		n := 0
		for _, c := range m.Covering(fn) {
			n = max(n, len(c.Literals))
		}
		if n > 0 && fn.TrainAccuracy >= 0.95 && n > score {
			best, score = fn, n
		}
	}
	return best
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
		if _, err := fmt.Fprint(i.w, "      "+l); err != nil {
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
