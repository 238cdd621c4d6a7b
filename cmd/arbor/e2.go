package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

func newE2Cmd() *cobra.Command {
	var subject subjectFlags
	var out string
	var maxK, sets, maxSize int
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "E2 --subject S",
		Short: "Does k-path coverage predict code coverage? Spearman's rho per k",
		Long: `E2 draws --sets forestation sets (grammar-random inputs that grow
structurally, of 1 to --max-size inputs) to span the whole range of k-path
coverage, runs each set, and reports Spearman's rank correlation between
each set's k-path coverage (k = 1..--max-k) and its block coverage.

With --out it writes E2-SUBJECT.csv, .json and one scatter plot per k.`,
		Example: "  arbor eval E2 --subject url --max-k 5 --out results",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxK < 1 || sets < 3 || maxSize < 1 {
				return usageError{errors.New("--max-k and --max-size must be at least 1, --sets at least 3")}
			}
			s, err := subject.setup(contextOf(cmd))
			if err != nil {
				return err
			}
			r, err := eval.E2(contextOf(cmd), eval.E2Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target, MaxK: maxK, Sets: sets,
				MaxSize: maxSize, Seed: seed, CacheDir: coverage.DefaultCacheDir(), Progress: lineProgress(cmd.ErrOrStderr())})
			if err != nil {
				return err
			}
			if out != "" {
				if _, err := eval.WriteE2(out, r); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(r)
			}
			fmt.Fprintf(w, "%s: %d sets\n", r.Subject, len(r.Points))
			return printTable(w, r)
		},
	}
	subject.register(cmd.Flags(), true)
	cmd.Flags().IntVar(&maxK, "max-k", 5, "k-path coverage for k = 1..`K`")
	cmd.Flags().IntVar(&sets, "sets", 40, "forestation sets")
	cmd.Flags().IntVar(&maxSize, "max-size", 80, "inputs in the largest set")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	cmd.Flags().StringVar(&out, "out", "", "folder for CSV, JSON and SVG")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
