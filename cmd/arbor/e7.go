package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

func newE7Cmd() *cobra.Command {
	var f fuzzExperiment
	var per time.Duration
	var methods []string
	var fresh float64
	var cons constraintsFlag
	var shard string
	var resume bool
	cmd := &cobra.Command{
		Use:   "E7 [--subjects a,b] [--time D] [--reps N] [--methods m,n]",
		Short: "Coverage over time: random generation, the bandit generator, Zest-style fuzzing and Go's fuzzer at equal wall time",
		Long: `E7 runs ways of making inputs on each subject, each for --time of wall
time, --reps times, each run in a fresh process of the subject (so that
every run is credited alike with the work a process does only once),
measured alike. --methods picks some (default random,rl,zest,zest-fresh,gofuzz):
  random      grammar-random inputs (no feedback)
  rl          the bandit generator, rewarded by the subject's validity
  zest        arbor fuzz: coverage- and validity-guided mutation of choice
              sequences
  zest-fresh  the same with a share --fresh of executions given to fresh
              random inputs: arbor fuzz's default (--fresh 0.25)
  bonsai      arbor fuzz --bonsai: a lattice of bounded campaigns sharing
              the time, each seeded with the smaller ones' corpora (not
              run unless named)
  gofuzz      Go's own fuzzer (go test -fuzz, one worker, minimization off)
              on the grammar-aware fuzz target synth.ByteGenerator makes of
              the subject's grammar; afterwards the inputs it kept are run
              through the session, at the times their files appeared
Every method's inputs satisfy the grammar's constraints (where clauses)
unless --constraints off: zest repairs or drops a mutant that breaks
one (counted in --json), random and rl repair each input and run the
few the search cannot repair as they are (counted in --json as
unrepaired), and gofuzz's generator repairs each tree the bytes make,
the same way for the same bytes (synth.ByteGenerator's Constraints), so
that Go's fuzzer still keeps and mutates what decides an input.
It reports, per subject and method, medians over repetitions of the
executions made, the units any input ran and the units accepted inputs
ran (Zest's semantic coverage), what the latter grew in the last tenth
of a run (above 0: still rising when the time ran out), with the two-sided Mann–Whitney U tests
of the latter against zest and against random (when they run; the
p-value is exact for up to 50 runs together: 3 runs against 3 cannot go
below 0.10, 5 against 5 below 0.008). Units are basic blocks
where the subject's coverage has them (Go programs; zest then fuzzes with
block domains, as Zest measures branches), functions elsewhere. Runs are
timed, so executions (and with them coverage) vary with the machine's
load.

gofuzz builds its fuzz test once per subject, before its runs, and its
clock starts when Go's fuzzer starts, so compiling is not in its time;
its executions are Go's count. It needs the go command and arbor's source
(the checkout this arbor was built from), and applies to Go subjects
only: otherwise it is skipped, and the table says why. Go's fuzzer
stops at its first failure (a crash it cannot recover from, a hang):
with time left it is started again for the time left on the corpus it
kept, the failing inputs set aside, so that the run lasts its time;
e7.json keeps the first failing input, the fuzzer's message and the
counts of failures and restarts. A run whose fuzzer fails within a
second of a start is not started again, and is left out of the medians
(the table says how many).

--out DIR gets e7.json, e7.csv (every run's final state), e7-curves.csv
(coverage whenever it grew) and e7-SUBJECT.svg (median valid coverage
over time), rewritten after every run, so that an interrupted campaign
keeps the runs it finished. Interrupted (Ctrl-C), E7 prints the
subjects it finished, with or without --out, and exits 1. Progress goes
to standard error: one line per run when it is not a terminal. --json
prints the result.

Long campaigns: --resume continues the campaign whose e7.json is in
--out (the same settings), keeping the runs it finished and running the
rest; a run cut off is run again from its start. --shard i/n runs only
every n-th repetition of a subject (all methods of a repetition stay
together, so a faster machine favours no method), for shards on
separate processes or machines (docs/scale.md); 'arbor eval E7 merge'
joins their e7.json files.`,
		Example: "  arbor eval E7 --subjects json,xml,url --time 10s --reps 5 --out e7/\n" +
			"  arbor eval E7 --subjects csv,cron --methods zest,zest-fresh --fresh 0.25 --time 10s",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, m := range methods {
				if !slices.Contains(eval.E7Methods, m) {
					return usageError{fmt.Errorf("--methods: no method %q (methods: %s)", m, strings.Join(eval.E7Methods, ", "))}
				}
			}
			if fresh <= 0 || fresh >= 1 {
				return usageError{fmt.Errorf("--fresh must be in (0, 1), not %v", fresh)}
			}
			if err := cons.check(); err != nil {
				return err
			}
			var i, n int
			if shard != "" {
				var err error
				if i, n, err = parseShard(shard); err != nil {
					return usageError{err}
				}
			}
			var done *eval.E7Result
			if resume {
				if f.out == "" {
					return usageError{errors.New("--resume continues the campaign in --out: give --out")}
				}
				path := filepath.Join(f.out, "e7.json")
				r, err := eval.ReadE7(path)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					fmt.Fprintf(cmd.ErrOrStderr(), "arbor: no %s yet: starting the campaign\n", path)
				case err != nil:
					return err
				default:
					done = r
				}
			}
			return runFuzzExperiment(cmd, &f, func(ctx context.Context, subjects []subject.Setup, progress func(string)) (*eval.E7Result, error) {
				var checkpoint func(*eval.E7Result) error
				if f.out != "" {
					checkpoint = func(r *eval.E7Result) error { _, err := eval.WriteE7(f.out, r); return err }
				}
				return eval.E7(ctx, eval.E7Config{Subjects: subjects, Time: per, Reps: f.reps, Seed: f.seed, MaxDepth: f.maxDepth, Timeout: f.timeout,
					Methods: methods, Fresh: fresh, NoConstraints: cons.off(), CacheDir: coverage.DefaultCacheDir(), Progress: progress, Checkpoint: checkpoint,
					Shard: i, Shards: n, Done: done})
			}, func(dir string, r *eval.E7Result) ([]string, error) {
				if contextOf(cmd).Err() != nil {
					// Interrupted: the checkpoint in dir holds the
					// finished runs of the unfinished subject too,
					// which --resume keeps; r does not.
					return nil, nil
				}
				return eval.WriteE7(dir, r)
			})
		},
	}
	f.register(cmd.Flags(), "runs of each method on each subject", 10)
	cmd.Flags().DurationVar(&per, "time", 30*time.Second, "wall time of each run")
	cmd.Flags().StringSliceVar(&methods, "methods", eval.E7DefaultMethods, "methods to run, of "+strings.Join(eval.E7Methods, ","))
	cmd.Flags().Float64Var(&fresh, "fresh", eval.DefaultE7Fresh, "zest-fresh's share of executions given to fresh random inputs (as arbor fuzz --fresh)")
	cons.register(cmd.Flags(), "every method's inputs satisfy them (zest's mutants repaired or dropped, gofuzz's trees repaired)")
	cmd.Flags().StringVar(&shard, "shard", "", "run only shard `i/n` of the repetitions (join the shards with 'eval E7 merge')")
	cmd.Flags().BoolVar(&resume, "resume", false, "continue the campaign whose e7.json is in --out, keeping its finished runs")
	cmd.AddCommand(newE7MergeCmd())
	return cmd
}

func newE7MergeCmd() *cobra.Command {
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge --out DIR SHARD...",
		Short: "Join the results of E7's shards into one campaign's",
		Long: `merge reads the e7.json of each SHARD (a folder that 'eval E7 --shard i/n
--out' wrote, or the file itself), checks that they are of the same
campaign (settings and subjects) and that no run is in two of them, and
writes the joined e7.json, e7.csv, e7-curves.csv and plots to --out and
the table to standard output: each subject's medians and tests computed
again over all its runs. Runs no shard has (a shard not run, or stopped
before it finished) are counted, the rest is written, and the exit
status is 1.`,
		Example: "  arbor eval E7 merge --out e7 e7-shard-*",
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError{errors.New("--out is required")}
			}
			var results []*eval.E7Result
			for _, a := range args {
				r, err := eval.ReadE7(resultFile(a, "e7.json"))
				if err != nil {
					return err
				}
				results = append(results, r)
			}
			merged, missing, err := eval.MergeE7(results)
			if err != nil {
				return err
			}
			if _, err := eval.WriteE7(out, merged); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				err = json.NewEncoder(w).Encode(merged)
			} else {
				err = printTable(w, merged)
			}
			if err != nil {
				return err
			}
			if missing > 0 {
				return fmt.Errorf("the shards lack %s of the campaign (the others are in %s)", plural(missing, "run", "runs"), filepath.Join(out, "e7.json"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder for the joined results")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
