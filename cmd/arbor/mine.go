package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/mine"
)

func newGrammarMineCmd() *cobra.Command {
	var inputs, cov string
	var opts mine.Options
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "mine GRAMMAR --inputs D --coverage F",
		Short: "Propose where clauses that separate the inputs a program accepted from those it rejected",
		Long: `mine reads recorded inputs (--inputs, the folder 'arbor record' read, and
--coverage, its coverage file) and proposes constraints for the grammar:
relations between two places of an input that occur in the inputs the
program rejected (outcome error) and rarely in those it accepted (outcome
ok). A relation is a comparison of two rules' occurrences in one
occurrence of a third ("some HourItem: Hour[0].num > Hour[1].num"), or a
text of one rule that another rule's occurrences have or lack elsewhere
in the input (a reference with no definition, a repeated name).

Each candidate is printed as the where clause that forbids the relation,
in the grammar notation (docs/notation.md), ready to paste after the
rules, with what checking that clause on every input found:
  breaks     inputs that break it
  support    of them, the rejected ones (the rejections it explains)
  precision  support / breaks (1: it never breaks an accepted input)
  recall     support / all rejected inputs
  adds       the rejected inputs it breaks that no candidate above it
             breaks, with the precision among the inputs it breaks
             that no candidate above it breaks
Candidates are chosen by sequential covering: each next one is the most
precise (smoothed, so that 500 of 505 comes before 2 of 2) on the inputs
no candidate above it breaks, so that a relation that merely co-occurs
with a rejection another candidate explains drops out. They are proposals: a clause that explains
rejections in this corpus may be a coincidence of it, or stricter than
the format; review each against the format's specification.

Inputs that do not parse are counted and left out; records that made the
program panic or time out are left out. A corpus with no rejected (or no
accepted) parsed input has nothing to separate: mine says so and exits 1.`,
		Example: `  arbor record --grammar cron --inputs in --out cron.cov.jsonl -- ./cron-harness
  arbor grammar mine cron --inputs in --coverage cron.cov.jsonl`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := missingFlags(map[string]string{"--inputs": inputs, "--coverage": cov}); err != nil {
				return err
			}
			g, err := datasets.LoadGrammar(args[0])
			if err != nil {
				return err
			}
			file, err := coverage.ReadFile(cov)
			if err != nil {
				return err
			}
			data, err := readCorpus(inputs)
			if err != nil {
				return err
			}
			in, skipped := mine.Recorded(file, data)
			rep, err := mine.Clauses(contextOf(cmd), g, in, opts)
			if errors.Is(err, mine.ErrNothingToSeparate) {
				return fmt.Errorf("%d records, %d of them without input or with a panic or timeout: %w", len(file.Records), skipped, err)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			printMined(cmd.OutOrStdout(), rep, skipped)
			return nil
		},
	}
	cmd.Flags().StringVar(&inputs, "inputs", "", "folder of the recorded inputs")
	cmd.Flags().StringVar(&cov, "coverage", "", "coverage file from 'arbor record' (its outcomes say what was accepted)")
	cmd.Flags().IntVar(&opts.MinSupport, "min-support", 2, "fewest rejected inputs a candidate must explain")
	cmd.Flags().Float64Var(&opts.MinPrecision, "min-precision", 0.5, "least share of rejected inputs among those a candidate breaks")
	cmd.Flags().IntVar(&opts.Max, "max", 20, "most candidates to print")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON (docs/json.md)")
	return cmd
}

func printMined(w io.Writer, rep *mine.Report, skipped int) {
	fmt.Fprintf(w, "%d inputs: %d accepted, %d rejected, %d not parsed", rep.Inputs, rep.Accepted, rep.Rejected, rep.NotParsed)
	if skipped > 0 {
		fmt.Fprintf(w, " (%d records left out: no input, or a panic or timeout)", skipped)
	}
	fmt.Fprintf(w, "\n%d relations read, %d checked as clauses, %d candidates:\n", rep.Relations, rep.Considered, len(rep.Candidates))
	for i, c := range rep.Candidates {
		fmt.Fprintf(w, "\n%d. breaks %d, support %d, precision %.3f, recall %.3f; adds %d rejections (precision %.3f)\n   forbids: %s\n   %s\n",
			i+1, c.Breaks, c.Support, c.Precision, c.Recall, c.New, c.NewPrecision, c.Relation, c.Clause)
	}
	if len(rep.Candidates) == 0 {
		fmt.Fprintln(w, "no relation separates the rejected inputs from the accepted ones at these thresholds")
	}
}
