package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/synth"
)

func newE8Cmd() *cobra.Command {
	var subjects []string
	var out string
	var timeout time.Duration
	var execs, reps, base, maxDepth int
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "E8 [--subjects a,b] [--execs N] [--reps N]",
		Short: "FairFuzz and PerfFuzz against plain Zest-style fuzzing: rare functions reached, most calls of one function",
		Long: `E8 runs three variants of arbor fuzz for --execs executions each, --reps
times per subject:
  zest      block and valid-block coverage (functions where the subject
            has no blocks)
  fairfuzz  the same with --rare (FairFuzz's search)
  perffuzz  the same with the perf domain (PerfFuzz)
It reports medians over repetitions of the rare functions reached (base
rate below 0.05 in --base-inputs random inputs), the functions covered,
and the most calls one input made of one function, with two-sided
Mann–Whitney U tests of the first and last against zest.

--out DIR gets e8.json and e8.csv; --json prints the result.`,
		Example: "  arbor eval E8 --subjects json,xml --execs 5000 --reps 5",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(subjects) == 0 {
				for _, s := range datasets.Subjects() {
					subjects = append(subjects, s.Name)
				}
			}
			var setups []eval.SubjectSetup
			for _, name := range subjects {
				s, err := eval.LoadSubject(name)
				if err != nil {
					return usageError{err}
				}
				setups = append(setups, s)
			}
			errOut := cmd.ErrOrStderr()
			cfg := eval.E8Config{Subjects: setups, Execs: execs, Reps: reps, BaseInputs: base, Seed: seed, MaxDepth: maxDepth,
				Timeout: timeout, CacheDir: coverage.DefaultCacheDir()}
			if isTerminal(errOut) {
				cfg.Progress = func(s string) { fmt.Fprintf(errOut, "\r\033[K%s", s) }
			}
			res, err := eval.E8(contextOf(cmd), cfg)
			if cfg.Progress != nil {
				fmt.Fprintln(errOut)
			}
			if err != nil {
				return err
			}
			if out != "" {
				if _, err := eval.WriteE8(out, res); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(res)
			}
			return renderTable(w, []string{"subject", "rare functions", "variant", "rare reached", "p", "functions", "most calls", "p"}, e8Table(res))
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&subjects, "subjects", nil, "bundled subjects to run (default: all)")
	fl.IntVar(&execs, "execs", 5000, "executions of each run")
	fl.IntVar(&reps, "reps", 10, "runs of each variant on each subject")
	fl.IntVar(&base, "base-inputs", 1000, "random inputs that give the functions' base rates")
	fl.Uint64Var(&seed, "seed", 1, "random seed")
	fl.IntVar(&maxDepth, "max-depth", synth.DefaultMaxDepth, "depth bound of grammar generation")
	fl.DurationVar(&timeout, "timeout", time.Second, "time limit per input")
	fl.StringVar(&out, "out", "", "folder for JSON and CSV")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func e8Table(res *eval.E8Result) [][]string {
	p := func(x *float64) string {
		if x == nil {
			return ""
		}
		return fmt.Sprintf("%.2g", *x)
	}
	var rows [][]string
	for _, s := range res.Subjects {
		if s.Error != "" {
			rows = append(rows, []string{s.Subject, "", "error: " + s.Error, "", "", "", "", ""})
			continue
		}
		for _, r := range s.Rows {
			rows = append(rows, []string{s.Subject, fmt.Sprint(len(s.Rare)), r.Variant, fmt.Sprintf("%.1f", r.RareReached), p(r.RareP),
				fmt.Sprintf("%.1f", r.Functions), fmt.Sprintf("%.0f", r.MaxCalls), p(r.CallsP)})
		}
	}
	return rows
}
