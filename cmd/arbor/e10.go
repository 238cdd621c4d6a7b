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

func newE10Cmd() *cobra.Command {
	var subjects []string
	var out string
	var timeout time.Duration
	var trials, seeds, execs, reps, maxDepth int
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "E10 [--subjects a,b] [--trials N] [--seeds N] [--execs N] [--reps N]",
		Short: "Kummer's seeding: how long seedless fuzzing takes to run what the bandit generator's seeds run, per filter",
		Long: `E10 measures seeding a fuzzer with the bandit generator's output, as
Kummer does. Per repetition and subject, the bandit generator makes
--trials inputs judged by the subject; each filter (rnd, par, cho, cov;
see 'arbor fuzz --help') keeps --seeds of the distinct valid ones, and
their coverage is measured; then one seedless campaign (Zest's domains)
runs up to --execs executions, and E10 records when it first ran as
much as each filter's seeds. The seeds' own cost is --trials executions
of the generator plus --seeds.

It reports per subject and filter the median coverage of the seeds, the
share of repetitions in which seedless fuzzing caught up, and the median
executions it took when it did. --out DIR gets e10.json and e10.csv.`,
		Example: "  arbor eval E10 --subjects json,url --reps 5",
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
			cfg := eval.E10Config{Subjects: setups, Trials: trials, Seeds: seeds, Execs: execs, Reps: reps, Seed: seed, MaxDepth: maxDepth,
				Timeout: timeout, CacheDir: coverage.DefaultCacheDir()}
			if isTerminal(errOut) {
				cfg.Progress = func(s string) { fmt.Fprintf(errOut, "\r\033[K%s", s) }
			}
			res, err := eval.E10(contextOf(cmd), cfg)
			if cfg.Progress != nil {
				fmt.Fprintln(errOut)
			}
			if err != nil {
				return err
			}
			if out != "" {
				if _, err := eval.WriteE10(out, res); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(res)
			}
			return renderTable(w, []string{"subject", "unit", "filter", "seeds cover", "seedless caught up", "executions to catch up"}, e10Table(res))
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&subjects, "subjects", nil, "bundled subjects to run (default: all)")
	fl.IntVar(&trials, "trials", 2000, "trials of the bandit generator per repetition")
	fl.IntVar(&seeds, "seeds", 20, "seeds each filter keeps")
	fl.IntVar(&execs, "execs", 20000, "executions the seedless campaign may take")
	fl.IntVar(&reps, "reps", 10, "repetitions per subject")
	fl.Uint64Var(&seed, "seed", 1, "random seed")
	fl.IntVar(&maxDepth, "max-depth", synth.DefaultMaxDepth, "depth bound of grammar generation")
	fl.DurationVar(&timeout, "timeout", time.Second, "time limit per input")
	fl.StringVar(&out, "out", "", "folder for JSON and CSV")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func e10Table(res *eval.E10Result) [][]string {
	var rows [][]string
	for _, s := range res.Subjects {
		if s.Error != "" {
			rows = append(rows, []string{s.Subject, "", "error: " + s.Error, "", "", ""})
			continue
		}
		for _, r := range s.Rows {
			execs := "not within the budget"
			if r.ExecsToMeet >= 0 {
				execs = fmt.Sprintf("%.0f", r.ExecsToMeet)
			}
			rows = append(rows, []string{s.Subject, s.Unit, r.Filter, fmt.Sprintf("%.1f", r.Covered), fmt.Sprintf("%.0f%%", 100*r.CaughtUp), execs})
		}
	}
	return rows
}
