package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

func newEvalMineCmd() *cobra.Command {
	var out string
	var subjects []string
	var sizes []int
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "mine [--subjects S,...] [--sizes N,...]",
		Short: "Measure 'grammar mine' against the bundled grammars' hand-written constraints",
		Long: `mine measures constraint mining ('arbor grammar mine') on every bundled
subject whose grammar has where clauses, which are the answer key. Per
subject it records one grammar-random corpus that ignores the clauses
(so that the program rejects some inputs), mines from its first N inputs
for every N of --sizes, and compares each hand-written clause H with
the mined clauses on the inputs that break H, those that break other
clauses only, and those that break none:
  recovered    a mined clause breaks at least 0.9 of the inputs that
               break H (hit), and at most 0.1 of each other group (stray)
  partly       at least 0.5 hit, at most 0.1 stray
  unexercised  fewer than 5 inputs in one of the groups: the corpus cannot
               judge H (a clause nearly every grammar-random input breaks
               cannot be told from "the input is grammar-random")
The stray share keeps "the input breaks something" from counting as H. The corpus alternates
grammar-random inputs that ignore the clauses with inputs that keep
them, so that it has both verdicts (every random graphql query fails
validation); the program's outcomes alone say which is which.
It also prints the mined clauses that match no hand-written one (novel):
a check the program makes that nobody wrote, or a coincidence of the
corpus, to be told apart by reading them.`,
		Example: "  arbor eval mine --subjects cron,xml --sizes 300,1000",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, s := range subjects {
				if _, err := subject.Load(contextOf(cmd), s); err != nil {
					return usageError{err}
				}
			}
			for _, n := range sizes {
				if n < 2 {
					return usageError{fmt.Errorf("--sizes: %d is too few inputs to mine from", n)}
				}
			}
			dir := out
			if dir == "" {
				tmp, err := os.MkdirTemp("", "arbor-mine-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			}
			progress, finish := allProgress(cmd.ErrOrStderr())
			res, errs, err := eval.MineSuite(contextOf(cmd), eval.MineSuiteConfig{Subjects: subjects, Sizes: sizes, Seed: seed,
				Out: dir, CacheDir: coverage.DefaultCacheDir(), Progress: progress})
			finish()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(struct {
					Results []eval.MineResult `json:"results"`
					Errors  map[string]string `json:"errors,omitempty"`
				}{res, errs})
			}
			return printMine(w, res, errs)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder for work files (default: a temporary one, removed)")
	cmd.Flags().StringSliceVar(&subjects, "subjects", nil, "bundled subjects to run (default: every one whose grammar has where clauses)")
	cmd.Flags().IntSliceVar(&sizes, "sizes", eval.DefaultMineSizes, "corpus sizes to mine from")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random `seed`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printMine(w io.Writer, res []eval.MineResult, errs map[string]string) error {
	header := []string{"subject", "clauses", "inputs", "accepted / rejected", "recovered", "partly", "unexercised", "candidates", "mean precision", "novel"}
	var rows [][]string
	for _, r := range res {
		for _, at := range r.Sizes {
			row := []string{r.Subject, strconv.Itoa(r.Clauses), strconv.Itoa(at.Inputs), fmt.Sprintf("%d / %d", at.Accepted, at.Rejected)}
			if at.Error != "" {
				row = append(row, "–", "–", "–", "–", "–", at.Error)
			} else {
				row = append(row, strconv.Itoa(at.Recovered), strconv.Itoa(at.Partial), strconv.Itoa(at.Unexercised),
					strconv.Itoa(at.Candidates), fmt.Sprintf("%.3f", at.MeanPrecision), strconv.Itoa(len(at.Novel)))
			}
			rows = append(rows, row)
		}
	}
	if err := renderTable(w, header, rows); err != nil {
		return err
	}
	for _, r := range res {
		if len(r.Sizes) == 0 {
			continue
		}
		at := r.Sizes[len(r.Sizes)-1]
		fmt.Fprintf(w, "\n%s, from %d inputs:\n", r.Subject, at.Inputs)
		for _, m := range at.Matches {
			switch {
			case !m.Judged:
				fmt.Fprintf(w, "  cannot be judged from this corpus (%d inputs break it): %s\n", m.Breaks, oneLine(m.Clause))
			case m.Hit >= eval.PartialShare && m.Stray <= eval.MaxStray:
				fmt.Fprintf(w, "  hit %.2f, stray %.2f: %s\n       mined: %s\n", m.Hit, m.Stray, oneLine(m.Clause), m.Mined)
			default:
				fmt.Fprintf(w, "  not recovered (best: hit %.2f, stray %.2f): %s\n", m.Hit, m.Stray, oneLine(m.Clause))
			}
		}
		for _, c := range at.Novel {
			fmt.Fprintf(w, "  novel (support %d, precision %.3f): %s\n", c.Support, c.Precision, c.Clause)
		}
	}
	for name, e := range errs {
		fmt.Fprintf(w, "%s: %s\n", name, e)
	}
	return nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
