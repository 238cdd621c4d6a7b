package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

func newE11Cmd() *cobra.Command {
	var f fuzzExperiment
	var inputs, speed int
	cmd := &cobra.Command{
		Use:   "E11 [--subjects a,b] [--inputs N] [--seed S]",
		Short: "Constraints: accepted share and valid inputs per CPU-second, without and with the grammar's where clauses (repaired, and guided)",
		Long: `E11 measures what a grammar's constraints (where clauses, docs/notation.md)
buy generation, on every bundled subject whose grammar has some (others
are left out). Each side generates --inputs grammar-random inputs from
the same --seed, without the constraints, with them (repaired by
arbor's search), and with them drawn by a guide that learns from the
constraint checker which choices satisfy them (generate --guided), and
the program judges them: the accepted share. Then
each side generates --speed-inputs inputs --reps times, the program not
running, and E11 reports the median CPU time per input and the inputs
that satisfy every constraint per CPU-second: with constraints, the
inputs the search repaired; without, random inputs filtered by the
constraint checker (the rejection-sampling baseline, which pays for the
check). It also counts the grammar's 2-paths the accepted inputs hold:
what they say, not only whether they pass, since a generator can reach
a high accepted share by writing a narrow part of the language, and
how many of the inputs are distinct.

--out DIR gets e11.json and e11.csv; --json prints the result.`,
		Example: "  arbor eval E11 --seed 7\n  arbor eval E11 --subjects graphql,template --inputs 1000",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFuzzExperiment(cmd, &f, func(ctx context.Context, subjects []subject.Setup, progress func(string)) (*eval.E11Result, error) {
				return eval.E11(ctx, eval.E11Config{Subjects: subjects, Inputs: inputs, SpeedInputs: speed, Reps: f.reps, Seed: f.seed,
					MaxDepth: f.maxDepth, Timeout: f.timeout, CacheDir: coverage.DefaultCacheDir(), Progress: progress})
			}, eval.WriteE11)
		},
	}
	f.register(cmd.Flags(), "timing runs of each side's generator (the median is reported)", 3)
	cmd.Flags().IntVar(&inputs, "inputs", 300, "inputs of each side the program judges")
	cmd.Flags().IntVar(&speed, "speed-inputs", 2000, "inputs of each side generated per timing run")
	return cmd
}
