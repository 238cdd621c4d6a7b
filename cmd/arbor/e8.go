package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

func newE8Cmd() *cobra.Command {
	var f fuzzExperiment
	var execs, base int
	var cons constraintsFlag
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
Mann–Whitney U tests of the first and last against zest. Every input
(the random sample's and the campaigns') satisfies the grammar's
constraints unless --constraints off.

--out DIR gets e8.json and e8.csv; --json prints the result.`,
		Example: "  arbor eval E8 --subjects json,xml --execs 5000 --reps 5",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cons.check(); err != nil {
				return err
			}
			return runFuzzExperiment(cmd, &f, func(ctx context.Context, subjects []subject.Setup, progress func(string)) (*eval.E8Result, error) {
				return eval.E8(ctx, eval.E8Config{Subjects: subjects, Execs: execs, Reps: f.reps, BaseInputs: base, Seed: f.seed, MaxDepth: f.maxDepth,
					Timeout: f.timeout, NoConstraints: cons.off(), CacheDir: coverage.DefaultCacheDir(), Progress: progress})
			}, eval.WriteE8)
		},
	}
	f.register(cmd.Flags(), "runs of each variant on each subject", 10)
	cmd.Flags().IntVar(&execs, "execs", 5000, "executions of each run")
	cmd.Flags().IntVar(&base, "base-inputs", 1000, "random inputs that give the functions' base rates")
	cons.register(cmd.Flags(), "the random sample's inputs satisfy them, and the campaigns repair or drop the inputs that break one (counted in --json)")
	return cmd
}
