package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

func newE7Cmd() *cobra.Command {
	var f fuzzExperiment
	var per time.Duration
	cmd := &cobra.Command{
		Use:   "E7 [--subjects a,b] [--time D] [--reps N]",
		Short: "Coverage over time: random generation, the bandit generator and Zest-style fuzzing at equal wall time",
		Long: `E7 runs three ways of making inputs on each subject, each for --time of
wall time, --reps times, on one recording session per subject:
  random  grammar-random inputs (no feedback)
  rl      the bandit generator, rewarded by the subject's validity
  zest    arbor fuzz: coverage- and validity-guided mutation of choice sequences
It reports, per subject and method, medians over repetitions of the
executions made, the units any input ran and the units accepted inputs
ran (Zest's semantic coverage), with the two-sided Mann–Whitney U test
of the latter against zest. Units are basic blocks where the subject's
coverage has them (Go programs; zest then fuzzes with block domains, as
Zest measures branches), functions elsewhere. Runs are timed, so executions (and with
them coverage) vary with the machine's load.

--out DIR gets e7.json, e7.csv (every run's final state), e7-curves.csv
(coverage whenever it grew) and e7-SUBJECT.svg (median valid coverage
over time). --json prints the result.`,
		Example: "  arbor eval E7 --subjects json,xml,url --time 10s --reps 5 --out e7/",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFuzzExperiment(cmd, &f, func(ctx context.Context, subjects []eval.SubjectSetup, progress func(string)) (*eval.E7Result, error) {
				return eval.E7(ctx, eval.E7Config{Subjects: subjects, Time: per, Reps: f.reps, Seed: f.seed, MaxDepth: f.maxDepth, Timeout: f.timeout,
					CacheDir: coverage.DefaultCacheDir(), Progress: progress})
			}, eval.WriteE7, []string{"subject", "units", "method", "executions", "covered", "valid covered", "p vs zest"}, e7Table)
		},
	}
	f.register(cmd.Flags(), "runs of each method on each subject")
	cmd.Flags().DurationVar(&per, "time", 30*time.Second, "wall time of each run")
	return cmd
}

func e7Table(res *eval.E7Result) [][]string {
	var rows [][]string
	for _, s := range res.Subjects {
		if s.Error != "" {
			rows = append(rows, []string{s.Subject, "", "error: " + s.Error, "", "", "", ""})
			continue
		}
		for _, r := range s.Rows {
			rows = append(rows, []string{s.Subject, fmt.Sprintf("%d %s", s.Units, s.Unit), r.Method, fmt.Sprintf("%.0f", r.Execs),
				fmt.Sprintf("%.1f", r.Covered), fmt.Sprintf("%.1f", r.ValidCovered), pValue(r.PvsZest)})
		}
	}
	return rows
}
