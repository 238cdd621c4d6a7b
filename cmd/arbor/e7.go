package main

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/synth"
)

func newE7Cmd() *cobra.Command {
	var subjects []string
	var out string
	var per, timeout time.Duration
	var reps, maxDepth int
	var seed uint64
	var asJSON bool
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
			cfg := eval.E7Config{Subjects: setups, Time: per, Reps: reps, Seed: seed, MaxDepth: maxDepth, Timeout: timeout, CacheDir: coverage.DefaultCacheDir()}
			if isTerminal(errOut) {
				cfg.Progress = func(s string) { fmt.Fprintf(errOut, "\r\033[K%s", s) }
			}
			res, err := eval.E7(contextOf(cmd), cfg)
			if cfg.Progress != nil {
				fmt.Fprintln(errOut)
			}
			if err != nil {
				return err
			}
			if out != "" {
				if _, err := eval.WriteE7(out, res); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(res)
			}
			return renderTable(w, []string{"subject", "units", "method", "executions", "covered", "valid covered", "p vs zest"}, e7Table(res))
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&subjects, "subjects", nil, "bundled subjects to run (default: all)")
	fl.DurationVar(&per, "time", 30*time.Second, "wall time of each run")
	fl.IntVar(&reps, "reps", 10, "runs of each method on each subject")
	fl.Uint64Var(&seed, "seed", 1, "random seed")
	fl.IntVar(&maxDepth, "max-depth", synth.DefaultMaxDepth, "depth bound of grammar generation")
	fl.DurationVar(&timeout, "timeout", time.Second, "time limit per input")
	fl.StringVar(&out, "out", "", "folder for JSON, CSV and SVG")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
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
			p := ""
			if r.PvsZest != nil && !math.IsNaN(*r.PvsZest) {
				p = fmt.Sprintf("%.2g", *r.PvsZest)
			}
			rows = append(rows, []string{s.Subject, fmt.Sprintf("%d %s", s.Units, s.Unit), r.Method, fmt.Sprintf("%.0f", r.Execs),
				fmt.Sprintf("%.1f", r.Covered), fmt.Sprintf("%.1f", r.ValidCovered), p})
		}
	}
	return rows
}
