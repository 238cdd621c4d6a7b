package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

func newEvalBenchCmd() *cobra.Command {
	var out string
	var quick, asJSON bool
	var seed uint64
	cmd := &cobra.Command{
		Use:   "bench [--quick] [--json] [--out DIR]",
		Short: "Performance ratios: command line vs engine, parser vs encoding/json and encoding/xml, features, prediction, recording, grammar analyses",
		Long: `bench measures the ratios that say whether each layer of arbor costs what
it should, in one run:

  generate             arbor generate json (run in process, output discarded)
                       against the synth engine generating the same inputs
  parse json corpus    arbor's parser (ParseLazy) against encoding/json.Valid
  parse json document  the same on one large document
  parse xml corpus     arbor's parser against encoding/xml decoding every token
  features             parsing plus k-path features (k <= 4) against parsing
  record               recording coverage of the json subject per input
                       against the subject's own time per input
  predict              prediction with a model trained in process against parsing
  grammar analyses     loading and checking a synthetic grammar of 5000 rules
                       against one of 1000 rules (ratio time/time/5: 1 is linear)

Where two things are compared they are timed alternately in the same run
and the medians are compared (11 runs each; --quick: 5, with smaller
inputs), so that a busy machine slows both sides alike. Every input is
generated with --seed. Goals, where the issue that asked for the ratios
set one, are shown with whether this run met them. The json subject's
harness is built first (cached) and its build is not timed.
--out DIR writes bench.csv and bench.json.`,
		Example: "  arbor eval bench --quick\n  arbor eval bench --json --out results/bench",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			progress, finish := allProgress(cmd.ErrOrStderr())
			res, err := eval.Bench(contextOf(cmd), eval.BenchConfig{Quick: quick, Seed: seed, CacheDir: coverage.DefaultCacheDir(),
				CLIGenerate: generateInProcess, Progress: progress})
			finish()
			if err != nil {
				return err
			}
			if out != "" {
				if err := eval.WriteBench(out, res); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(res)
			}
			return printBench(w, res)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder for bench.csv and bench.json")
	cmd.Flags().BoolVar(&quick, "quick", false, "smaller inputs and fewer runs")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// generateInProcess runs "arbor generate NAME -n N --seed S --out -" in
// this process with its output discarded: the command line's whole path
// (flags, loading the grammar, JSON Lines) without a process start.
func generateInProcess(ctx context.Context, name string, n int, seed uint64) error {
	root := newRoot(strings.NewReader(""))
	root.SetArgs([]string{"generate", name, "-n", strconv.Itoa(n), "--seed", strconv.FormatUint(seed, 10), "--out", "-"})
	var errOut bytes.Buffer
	root.SetOut(io.Discard)
	root.SetErr(&errOut)
	if err := root.ExecuteContext(ctx); err != nil {
		return fmt.Errorf("arbor generate: %w (%s)", err, strings.TrimSpace(errOut.String()))
	}
	return nil
}

// printBench prints the bench's table.
func printBench(w io.Writer, res *eval.BenchResult) error {
	fmt.Fprintf(w, "eval bench (%s): seed %d, medians of %d alternating runs; %.1f s (harness build %.1f s, not timed)\n",
		res.Preset, res.Seed, res.Sizes.Rounds, res.Seconds, res.HarnessSeconds)
	if err := printTable(w, res); err != nil {
		return err
	}
	for _, r := range res.Rows {
		if r.Note != "" {
			fmt.Fprintf(w, "%s: %s\n", r.Name, r.Note)
		}
	}
	return nil
}
