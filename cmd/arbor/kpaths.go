package main

import (
	"bytes"
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

// maxK bounds --k and --max-k for commands that list k-paths of inputs.
const maxK = 16

func checkK(flag string, k int) error {
	if k < 1 || k > maxK {
		return usageError{fmt.Errorf("%s must be between 1 and %d, not %d", flag, maxK, k)}
	}
	return nil
}

type pathJSON struct {
	IDs     []int  `json:"ids"`
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
}

// treeLimit is how many trees of an ambiguous input a command takes the
// union of: all of them up to grammar.DefaultTreeLimit, or with --first one.
func treeLimit(first bool) int {
	if first {
		return 1
	}
	return grammar.DefaultTreeLimit
}

func newKPathsCmd(stdin io.Reader) *cobra.Command {
	var k, budget int
	var asJSON, first bool
	cmd := &cobra.Command{
		Use:   "kpaths GRAMMAR FILE...",
		Short: "List the k-paths of inputs, as node ids and as patterns",
		Long: `kpaths parses each FILE ('-' for standard input; a folder for every
input below it) and lists its distinct k-paths: paths of k grammar
symbols in its derivation tree, the features arbor learns from. Each is
shown by node ids (AddExpr_0→"+"_10) and as a pattern of grammar text.
An ambiguous input's k-paths are the union over its trees (the first
16; --first takes only the first tree). Inputs that need the general
parser are parsed within a budget of work, as in parse (--parse-budget).

Ctrl-C or SIGTERM stops kpaths at once, also while it reads standard
input or parses, keeping what it printed; the exit status is then 1.

With --json, one object per input and line:
{"file":...,"k":K,"kpaths":[{"ids":[0,10],"path":"...","pattern":"..."},...]}.`,
		Example: "  echo -n 'x+42' | arbor kpaths expr - --k 2",
		Args:    minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkK("--k", k); err != nil {
				return err
			}
			g, err := datasets.LoadGrammar(args[0])
			if err != nil {
				return err
			}
			files, err := listInputs(args[1:])
			if err != nil {
				return err
			}
			opts := grammar.ParseOptions{Trees: treeLimit(first), Budget: budget}
			ctx := contextOf(cmd)
			workers := workerCount()
			if countOf(files, "-") > 1 {
				workers = 1 // the first '-' reads standard input, as before
			}
			out, errOut := newOut(cmd.OutOrStdout()), cmd.ErrOrStderr()
			failed := 0
			// Each input is parsed and printed on its own processor; the
			// texts go out in order, through one buffer.
			err = parallel.Ordered(ctx, len(files), workers, func(_, i int) predicted {
				var b bytes.Buffer
				err := printKPaths(ctx, &b, g, files[i], stdin, k, opts, asJSON)
				return predicted{b.Bytes(), err}
			}, func(i int, r predicted) error {
				if err := ctx.Err(); err != nil {
					// Interrupted: the input was not parsed to its end.
					return err
				}
				if r.err == nil {
					_, err := out.Write(r.text)
					return err
				}
				failed++
				// The error goes after the lines printed before it.
				if err := out.Flush(); err != nil {
					return err
				}
				fmt.Fprintln(errOut, showInputError(files[i], r.err))
				return nil
			})
			if err := flushed(out, err); err != nil {
				return err
			}
			if failed > 0 {
				fmt.Fprintf(errOut, "%d of %d inputs did not parse\n", failed, len(files))
				return errReported
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&k, "k", 2, "path length `K` (number of grammar symbols)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON, one line per input")
	cmd.Flags().BoolVar(&first, "first", false, "use only the first tree of an ambiguous input")
	budgetFlag(cmd, &budget)
	return cmd
}

// printKPaths prints the k-paths of one input.
func printKPaths(ctx context.Context, out io.Writer, g *grammar.Graph, file string, stdin io.Reader, k int, opts grammar.ParseOptions, asJSON bool) error {
	parsed, err := parseInput(ctx, g, file, stdin, opts)
	if err != nil {
		return err
	}
	cov := features.NewCoverage(g, k)
	cov.AddParsed(parsed)
	paths := cov.CoveredPaths(k)
	if asJSON {
		rec := struct {
			File   string     `json:"file"`
			K      int        `json:"k"`
			KPaths []pathJSON `json:"kpaths"`
		}{file, k, make([]pathJSON, len(paths))}
		for i, p := range paths {
			rec.KPaths[i] = pathJSON{p, p.Format(g), features.Pattern(g, p)}
		}
		return json.NewEncoder(out).Encode(rec)
	}
	fmt.Fprintf(out, "== %s: %d distinct %d-paths\n", showName(file), len(paths), k)
	rows := make([][]string, len(paths))
	for i, p := range paths {
		rows[i] = []string{p.Format(g), features.Pattern(g, p)}
	}
	return renderTable(out, []string{"k-path", "pattern"}, rows)
}

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
			errOut := cmd.ErrOrStderr()
			cov := features.NewCoverage(g, maxKFlag)
			rejected := 0
			// The files are read and parsed on every processor; their
			// k-paths join the coverage in order, on this goroutine.
			type parseResult struct {
				parsed *grammar.Parsed
				err    error
			}
			ctx := contextOf(cmd)
			err = parallel.Ordered(ctx, len(files), workerCount(), func(_, i int) parseResult {
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
			if err != nil {
				return err
			}
			out := newOut(cmd.OutOrStdout())
			report := make(byK[*kCoverage], maxKFlag)
			for k := 1; k <= maxKFlag; k++ {
				kc := &kCoverage{Total: cov.Total(k).String(), Covered: cov.Covered(k), Coverage: cov.Fraction(k),
					MissingTotal: cov.MissingCount(k).String()}
				if missing > 0 {
					for _, p := range cov.FirstMissing(k, missing) {
						kc.Missing = append(kc.Missing, pathJSON{p, p.Format(g), features.Pattern(g, p)})
					}
				}
				report[k-1] = kc
			}
			if asJSON {
				return flushed(out, json.NewEncoder(out).Encode(struct {
					Inputs   int             `json:"inputs"`
					Rejected int             `json:"rejected"`
					KPaths   byK[*kCoverage] `json:"kpaths"`
				}{cov.Inputs(), rejected, report}))
			}
			fmt.Fprintf(out, "%s: %d inputs parsed, %d rejected\n", showName(args[1]), cov.Inputs(), rejected)
			var rows [][]string
			for k := 1; k <= maxKFlag; k++ {
				kc := report[k-1]
				rows = append(rows, []string{strconv.Itoa(k), kc.Total, strconv.Itoa(kc.Covered), fmt.Sprintf("%.4f", kc.Coverage)})
			}
			if err := renderTable(out, []string{"k", "k-paths", "covered", "coverage"}, rows); err != nil {
				return flushed(out, err)
			}
			for k := 1; k <= maxKFlag; k++ {
				kc := report[k-1]
				if len(kc.Missing) > 0 {
					fmt.Fprintf(out, "\nmissing %d-paths (%s; the first %d):\n", k, kc.MissingTotal, len(kc.Missing))
					for _, m := range kc.Missing {
						fmt.Fprintf(out, "  %s\n      %s\n", m.Pattern, m.Path)
					}
				}
			}
			return out.Flush()
		},
	}
	cmd.Flags().IntVar(&maxKFlag, "max-k", 3, "report k = 1..`K`")
	cmd.Flags().IntVar(&missing, "missing", 10, "list up to `N` missing k-paths per k")
	cmd.Flags().BoolVar(&first, "first", false, "use only the first tree of an ambiguous input")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
