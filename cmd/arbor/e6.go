package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

func newE6Cmd() *cobra.Command {
	var out string
	var bstTrials, subjectTrials int
	var seed uint64
	var asJSON bool
	var cons constraintsFlag
	cmd := &cobra.Command{
		Use:   "E6",
		Short: "Bandit generator: valid, unique valid and diverse valid inputs, rl against random",
		Long: `E6 runs uniformly random choices, the bandit guide with RLCheck's published
settings (rlcheck) and with the improved settings (rl) on three benchmarks:
the binary-search-tree example; JSON documents that must match a
schema-like rule (an object of at least two members, all numbers, with
distinct keys), checked by a Go function; and XML documents that the xml
subject (encoding/xml, strict) must accept. The JSON and XML documents
satisfy their grammars' constraints (each guided tree repaired) unless
--constraints off. It prints a table and writes CSV and an SVG curve of
unique valid inputs over trials per benchmark.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cons.check(); err != nil {
				return err
			}
			if out == "" {
				out = "arbor-e6"
			}
			benchmarks, done, err := eval.E6Benchmarks(contextOf(cmd), eval.E6BenchmarkConfig{Seed: seed, BSTTrials: bstTrials, Trials: subjectTrials,
				NoConstraints: cons.off(), CacheDir: coverage.DefaultCacheDir()})
			if err != nil {
				return err
			}
			defer done()
			res, err := eval.E6(contextOf(cmd), benchmarks, seed, out)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(res)
			}
			if err := printTable(w, res); err != nil {
				return err
			}
			fmt.Fprintf(w, "curves and CSV in %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder for CSV and SVG (default arbor-e6)")
	cmd.Flags().IntVar(&bstTrials, "bst-trials", 100000, "trials of the BST example")
	cmd.Flags().IntVar(&subjectTrials, "trials", 3000, "trials of the JSON and XML benchmarks")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cons.register(cmd.Flags(), "the JSON and XML benchmarks' documents satisfy them (each guided tree repaired)")
	return cmd
}
