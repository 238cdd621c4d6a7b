package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

func newE10Cmd() *cobra.Command {
	var f fuzzExperiment
	var trials, seeds, execs int
	var cons constraintsFlag
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
of the generator plus --seeds. Unless --constraints off, the seedless
campaign's inputs satisfy the grammar's constraints, and candidates
that break one are left out before the filters choose (the bandit
generator cannot repair them; counted in --json).

It reports per subject and filter the median coverage of the seeds, the
share of repetitions in which seedless fuzzing caught up, and the median
executions it took when it did. --out DIR gets e10.json and e10.csv.`,
		Example: "  arbor eval E10 --subjects json,url --reps 5",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cons.check(); err != nil {
				return err
			}
			return runFuzzExperiment(cmd, &f, func(ctx context.Context, subjects []subject.Setup, progress func(string)) (*eval.E10Result, error) {
				return eval.E10(ctx, eval.E10Config{Subjects: subjects, Trials: trials, Seeds: seeds, Execs: execs, Reps: f.reps, Seed: f.seed,
					MaxDepth: f.maxDepth, Timeout: f.timeout, NoConstraints: cons.off(), CacheDir: coverage.DefaultCacheDir(), Progress: progress})
			}, eval.WriteE10)
		},
	}
	f.register(cmd.Flags(), "repetitions per subject", 10)
	cmd.Flags().IntVar(&trials, "trials", 2000, "trials of the bandit generator per repetition")
	cmd.Flags().IntVar(&seeds, "seeds", 20, "seeds each filter keeps")
	cmd.Flags().IntVar(&execs, "execs", 20000, "executions the seedless campaign may take")
	cons.register(cmd.Flags(), "the seedless campaign repairs or drops the inputs that break one, and candidates that break one are left out")
	return cmd
}
