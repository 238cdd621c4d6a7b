package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

// parseKs reads a list such as "1,2,3".
func parseKs(s string) ([]int, error) {
	var ks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, usageError{fmt.Errorf("--k wants positive integers separated by commas, as in 1,2,3, not %q", s)}
		}
		ks = append(ks, k)
	}
	return ks, nil
}

func newE1Cmd() *cobra.Command {
	var subject subjectFlags
	var ks, out string
	var reps, depth int
	var seed uint64
	var asJSON bool
	var cons constraintsFlag
	cmd := &cobra.Command{
		Use:   "E1 --subject S",
		Short: "k-path covering sets against grammar-random sets of the same size",
		Long: `E1 builds, for each k in --k and each of --reps repetitions, a set of
inputs that covers every k-path of the subject's grammar, and a set of as
many grammar-random inputs (depth --depth; they satisfy the grammar's
constraints unless --constraints off, and the k-path sets are left as
generate --mode kpath makes them). It runs both sets and reports
the subject's function and block coverage (Go coverage blocks), their
means over repetitions, the two-sided Mann-Whitney U test of k-path
against random block coverage per k, and each distinct panic (by stack
hash) with the share of repetitions in which each technique found it.

With --out it writes E1-SUBJECT.csv, .json and an SVG of block coverage
over repetitions into that folder.`,
		Example: "  arbor eval E1 --subject json --k 1,2,3 --reps 50 --out results",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reps < 2 {
				return usageError{errors.New("--reps must be at least 2 for the U test")}
			}
			if err := cons.check(); err != nil {
				return err
			}
			kl, err := parseKs(ks)
			if err != nil {
				return err
			}
			s, err := subject.setup(contextOf(cmd))
			if err != nil {
				return err
			}
			r, err := eval.E1(contextOf(cmd), eval.E1Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target, Ks: kl, Reps: reps,
				Seed: seed, MaxDepth: depth, NoConstraints: cons.off(), CacheDir: coverage.DefaultCacheDir(), Progress: lineProgress(cmd.ErrOrStderr())})
			if err != nil {
				return err
			}
			if out != "" {
				if _, err := eval.WriteE1(out, r); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(r)
			}
			fmt.Fprintf(w, "%s: %d functions, %d blocks; %d repetitions\n", r.Subject, r.TotalFunctions, r.TotalBlocks, reps)
			if err := printTable(w, r); err != nil {
				return err
			}
			if len(r.Panics) == 0 {
				fmt.Fprintln(w, "no panics found")
				return nil
			}
			header, rows := r.PanicTable()
			return renderTable(w, header, rows)
		},
	}
	subject.register(cmd.Flags(), true)
	cmd.Flags().StringVar(&ks, "k", "1,2,3", "values of k, separated by commas")
	cmd.Flags().IntVar(&reps, "reps", 50, "repetitions")
	cmd.Flags().IntVar(&depth, "depth", 30, "depth of the random inputs")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	cmd.Flags().StringVar(&out, "out", "", "folder for CSV, JSON and SVG")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cons.register(cmd.Flags(), "the random sets' inputs satisfy them (the k-path covering sets are left as generate --mode kpath makes them)")
	return cmd
}
