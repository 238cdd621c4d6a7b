package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

func newTargetCmd() *cobra.Command {
	var modelPath, function, out string
	var n int
	var seed uint64
	var verify bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "target --model M --function F -n N --out DIR",
		Short: "Generate inputs aimed at a function, without running the program",
		Long: `target reads the function's covering constraints from the model (root-to-
leaf paths of its tree that end in a covered leaf with gini <= 0.3, as
conjunctions of features present and absent) and solves each: a greedy
completion steered by graph distances towards the missing required
k-paths, never completing a forbidden one, inside a best-first search over
partial trees. Literals over the other feature kinds steer the greedy too:
a terminal's learned value is drawn as it is, a character class steers
the terminal's character draws, a length, count or number threshold the
repetition counts, a sibling pair's symbols are goals like k-paths.
Constraints are taken round-robin, with a new seed each round, until -n
distinct inputs exist. Every input is parsed back and every literal of its
constraint checked on its features before it is kept; the constraints no
input could be found for are printed with their literals.

The inputs go to --out, one file each, with manifest.jsonl:
{"file":...,"constraint":i,"patterns":["∃ ...","∄ ..."]}. --verify runs the
model's subject on them and reports how many ran the function.`,
		Example: "  arbor target --model json.model.gz --function 'encoding/json.(*decodeState).object' -n 10 --out objects/ --verify",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if modelPath == "" || function == "" || out == "" {
				return usageError{errors.New("--model, --function and --out are required")}
			}
			if n < 1 {
				return usageError{errors.New("-n must be at least 1")}
			}
			p, err := loadPredictor(modelPath, "")
			if err != nil {
				return err
			}
			m := p.Model
			fn, err := m.Function(function)
			if err != nil {
				return err
			}
			res := synth.Target(contextOf(cmd), p.Graph, m, fn, n, synth.SolveOptions{Seed: seed, Timeout: timeout})
			w := cmd.OutOrStdout()
			cons := m.Constraints(fn) // in the order synth.Target numbers them
			if err := writeTargeted(out, m, cons, res); err != nil {
				return err
			}
			size := 0
			for _, in := range res.Inputs {
				size += len(in.Text)
			}
			fmt.Fprintf(w, "%s: %d covering constraints, %d unsolved; %d inputs (mean %.1f bytes) in %s\n",
				fn.Name, len(res.Constraints), len(res.Unsolved), len(res.Inputs), float64(size)/float64(max(1, len(res.Inputs))), out)
			for k, i := range res.Unsolved {
				if k == 3 {
					fmt.Fprintf(w, "... and %d more unsolved constraints\n", len(res.Unsolved)-k)
					break
				}
				fmt.Fprintf(w, "unsolved constraint %d (%d literals):\n  %s\n", i, res.Constraints[i].Literals(),
					strings.ReplaceAll(m.Text(cons[i], false), "\n", "\n  "))
			}
			if len(res.Inputs) == 0 {
				return fmt.Errorf("no input satisfies any covering constraint of %s", fn.Name)
			}
			if verify {
				ran, total, err := verifyTargeted(cmd, m, fn, out)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "verified: %d of %d inputs ran %s\n", ran, total, fn.Name)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&modelPath, "model", "", "model file from 'arbor train'")
	cmd.Flags().StringVar(&function, "function", "", "the function to aim at")
	cmd.Flags().IntVarP(&n, "n", "n", 10, "number of distinct inputs")
	cmd.Flags().StringVar(&out, "out", "", "folder for the inputs and manifest.jsonl")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	cmd.Flags().BoolVar(&verify, "verify", false, "run the model's subject on the inputs")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Second, "search time per constraint")
	return cmd
}

func writeTargeted(dir string, m *learn.Model, cons []learn.Constraint, res *synth.TargetResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	mf, err := os.Create(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		return err
	}
	defer mf.Close()
	enc := json.NewEncoder(mf)
	enc.SetEscapeHTML(false)
	ext := extensions[m.Grammar.Name]
	if ext == "" {
		ext = ".txt"
	}
	for i, in := range res.Inputs {
		name := fmt.Sprintf("%05d%s", i+1, ext)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(in.Text), 0o644); err != nil {
			return err
		}
		if err := enc.Encode(struct {
			File       string   `json:"file"`
			Constraint int      `json:"constraint"`
			Patterns   []string `json:"patterns"`
		}{name, in.Constraint, strings.Split(m.Text(cons[in.Constraint], false), "\n")}); err != nil {
			return err
		}
	}
	return nil
}

// verifyTargeted runs the model's subject on the files of dir and counts
// the inputs that ran the function.
func verifyTargeted(cmd *cobra.Command, m *learn.Model, fn *learn.FunctionModel, dir string) (ran, total int, err error) {
	target, err := eval.ModelTarget(m)
	if err != nil {
		return 0, 0, fmt.Errorf("--verify: %w", err)
	}
	bin, err := coverage.Build(contextOf(cmd), target, coverage.DefaultCacheDir())
	if err != nil {
		return 0, 0, fmt.Errorf("--verify: the model's subject %s cannot be built here: %w", target, err)
	}
	files, err := listFiles(dir)
	if err != nil {
		return 0, 0, err
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".jsonl") })
	out := filepath.Join(dir, "verify.cov.jsonl")
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
