package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/parallel"
)

// kCoverage is the JSON form of one k in 'arbor coverage'.
type kCoverage struct {
	Total        string     `json:"total"`
	Covered      int        `json:"covered"`
	Coverage     float64    `json:"coverage"`
	MissingTotal string     `json:"missing_total"`
	Missing      []pathJSON `json:"missing,omitempty"`
}

func newCoverageCmd() *cobra.Command {
	var maxKFlag, missing int
	var asJSON, first bool
	cmd := &cobra.Command{
		Use:   "coverage GRAMMAR DIR",
		Short: "k-path coverage of a corpus, and the k-paths it misses",
		Long: `coverage parses every file below DIR and reports, for k = 1..K, how many of
the grammar's k-paths the corpus covers (pathcov_k: the union over the
inputs, divided by the number of k-paths of the grammar), and lists up to
--missing of the k-paths it misses, as patterns.

Files that do not parse are reported on standard error and counted as
rejected; coverage is that of the rest. A file that cannot be read (no
permission, an I/O error) is an error that stops coverage, naming it:
the corpus measured would not be the one named. An ambiguous input
counts with the union of its trees' k-paths (the first 16; --first takes
only the first). File names are printed as they are, or quoted as Go
strings if they hold control characters or invalid UTF-8.

With --json: {"inputs":n,"rejected":r,"kpaths":{"1":{"total":t,"covered":c,
"coverage":f,"missing_total":m,"missing":[{"ids":...,"path":...,"pattern":...}]},...}}.
"total" and "missing_total" are decimal strings, as k-path counts outgrow
JSON numbers. Missing k-paths are listed in increasing order of node ids.`,
		Example: "  arbor coverage json corpus/ --max-k 3\n  arbor coverage url urls/ --max-k 2 --json --missing 0",
		Args:    exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkK("--max-k", maxKFlag); err != nil {
				return err
			}
			g, err := datasets.LoadGrammar(args[0])
			if err != nil {
				return err
			}
			files, err := corpus.List(args[1])
			if err != nil {
				return err
			}
			cov, rejected, err := corpusCoverage(contextOf(cmd), cmd.ErrOrStderr(), g, files, maxKFlag, first)
			if err != nil {
				return err
			}
			report := coverageReport(g, cov, maxKFlag, missing)
			out := newOut(cmd.OutOrStdout())
			if asJSON {
				return flushed(out, json.NewEncoder(out).Encode(struct {
					Inputs   int             `json:"inputs"`
					Rejected int             `json:"rejected"`
					KPaths   byK[*kCoverage] `json:"kpaths"`
				}{cov.Inputs(), rejected, report}))
			}
			fmt.Fprintf(out, "%s: %d inputs parsed, %d rejected\n", showName(args[1]), cov.Inputs(), rejected)
			return flushed(out, printCoverage(out, report))
		},
	}
	cmd.Flags().IntVar(&maxKFlag, "max-k", 3, "report k = 1..`K`")
	cmd.Flags().IntVar(&missing, "missing", 10, "list up to `N` missing k-paths per k")
	cmd.Flags().BoolVar(&first, "first", false, "use only the first tree of an ambiguous input")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// corpusCoverage is the k-path coverage, for k = 1..maxK, of the inputs
// in files that parse (with first, of an ambiguous input's first tree
// only), and how many did not, each told of on errOut. The files are
// read and parsed on every processor; their k-paths join the coverage
// in order, on this goroutine. A file that cannot be read is an error.
func corpusCoverage(ctx context.Context, errOut io.Writer, g *grammar.Graph, files []string, maxK int, first bool) (*features.Coverage, int, error) {
	cov := features.NewCoverage(g, maxK)
	rejected := 0
	type parseResult struct {
		parsed *grammar.Parsed
		err    error
	}
	err := parallel.Ordered(ctx, len(files), workerCount(), func(_, i int) parseResult {
		parsed, err := parseInput(ctx, g, files[i], nil, grammar.ParseOptions{Trees: treeLimit(first)})
		return parseResult{parsed, err}
	}, func(i int, r parseResult) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.err != nil {
			if err := readError(files[i], r.err); err != nil {
				return err
			}
			rejected++
			fmt.Fprintln(errOut, showInputError(files[i], r.err))
			return nil
		}
		cov.AddParsed(r.parsed)
		return nil
	})
	return cov, rejected, err
}

// coverageReport is cov for every k = 1..maxK, with up to missing of the
// k-paths it misses.
func coverageReport(g *grammar.Graph, cov *features.Coverage, maxK, missing int) byK[*kCoverage] {
	report := make(byK[*kCoverage], maxK)
	for k := 1; k <= maxK; k++ {
		kc := &kCoverage{Total: cov.Total(k).String(), Covered: cov.Covered(k), Coverage: cov.Fraction(k),
			MissingTotal: cov.MissingCount(k).String()}
		if missing > 0 {
			for _, p := range cov.FirstMissing(k, missing) {
				kc.Missing = append(kc.Missing, pathJSON{p, p.Format(g), features.Pattern(g, p)})
			}
		}
		report[k-1] = kc
	}
	return report
}

// printCoverage prints the report as a table, then the k-paths missed.
func printCoverage(out io.Writer, report byK[*kCoverage]) error {
	var rows [][]string
	for i, kc := range report {
		rows = append(rows, []string{strconv.Itoa(i + 1), kc.Total, strconv.Itoa(kc.Covered), fmt.Sprintf("%.4f", kc.Coverage)})
	}
	if err := renderTable(out, []string{"k", "k-paths", "covered", "coverage"}, rows); err != nil {
		return err
	}
	for i, kc := range report {
		if len(kc.Missing) > 0 {
			fmt.Fprintf(out, "\nmissing %d-paths (%s; the first %d):\n", i+1, kc.MissingTotal, len(kc.Missing))
			for _, m := range kc.Missing {
				fmt.Fprintf(out, "  %s\n      %s\n", m.Pattern, m.Path)
			}
		}
	}
	return nil
}
