package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/subject"
)

func newE9Cmd() *cobra.Command {
	var f fuzzExperiment
	var execs, levels int
	var top fuzz.Bounds
	var cons constraintsFlag
	cmd := &cobra.Command{
		Use:   "E9 [--subjects a,b] [--execs N] [--reps N] [--top-distinct M --top-repeat N --top-depth D] [--bonsai-levels L]",
		Short: "Bonsai's bounded lattice against unbounded fuzzing: corpus size and the coverage it keeps, at equal executions",
		Long: `E9 compares Bonsai fuzzing with one unbounded Zest-style campaign at an
equal budget of --execs executions per run. Bonsai runs a lattice of
bounded campaigns ('arbor fuzz --bonsai'): --bonsai-levels bounds per
axis, from 1 to --top-distinct distinct values per regex terminal, from
1 to --top-repeat repetitions, and from the grammar's smallest depth to
--top-depth, each campaign seeded with its predecessors' corpora,
smallest inputs first; its corpus is the top campaign's. The unbounded
campaign uses --max-depth and the generator's usual repetitions. A third
method, top, is one campaign with the lattice's top bounds and the whole
budget: what the bounds do without the lattice. All use Zest's domains
and the same seed per run, and every input they run satisfies the
grammar's constraints unless --constraints off.

It reports per subject and method the medians over runs of the coverage
the corpus keeps (its inputs run again; blocks where the subject records
them, else functions), the valid inputs' part of it, the corpus's files
and bytes, its largest input, and bytes per covered unit; p is the
two-sided Mann-Whitney U of coverage and of bytes against zest. --out
DIR gets e9.json and e9.csv.`,
		Example: "  arbor eval E9 --subjects csv,fastjson --reps 5 --execs 10000",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cons.check(); err != nil {
				return err
			}
			return runFuzzExperiment(cmd, &f, func(ctx context.Context, subjects []subject.Setup, progress func(string)) (*eval.E9Result, error) {
				return eval.E9(ctx, eval.E9Config{Subjects: subjects, Execs: execs, Reps: f.reps, Seed: f.seed, MaxDepth: f.maxDepth,
					Top: top, Levels: levels, Timeout: f.timeout, NoConstraints: cons.off(), CacheDir: coverage.DefaultCacheDir(), Progress: progress})
			}, eval.WriteE9)
		},
	}
	f.register(cmd.Flags(), "runs per method and subject", 10)
	fl := cmd.Flags()
	fl.IntVar(&execs, "execs", 20000, "executions per run (the lattice's whole budget)")
	fl.IntVar(&top.MaxDistinct, "top-distinct", 3, "the lattice's top: distinct values per regex terminal in an input")
	fl.IntVar(&top.MaxRepeat, "top-repeat", 3, "the lattice's top: repetitions of an unbounded quantifier")
	fl.IntVar(&top.MaxDepth, "top-depth", 0, "the lattice's top depth (0: the generator's default, as --max-depth)")
	fl.IntVar(&levels, "bonsai-levels", fuzz.DefaultBonsaiLevels, "bounds per axis of the lattice")
	cons.register(fl, "every campaign repairs or drops the inputs that break one (counted in --json)")
	return cmd
}
