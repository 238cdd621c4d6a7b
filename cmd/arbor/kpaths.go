package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

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
			return printEachKPaths(cmd, stdin, g, files, k, grammar.ParseOptions{Trees: treeLimit(first), Budget: budget}, asJSON)
		},
	}
	cmd.Flags().IntVar(&k, "k", 2, "path length `K` (number of grammar symbols)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON, one line per input")
	cmd.Flags().BoolVar(&first, "first", false, "use only the first tree of an ambiguous input")
	budgetFlag(cmd, &budget)
	return cmd
}

// printEachKPaths prints the k-paths of every file, in order; files that
// do not parse are told of on stderr, after the lines printed before
// them. Each input is parsed and printed on its own processor; the texts
// go out in order, through one buffer.
func printEachKPaths(cmd *cobra.Command, stdin io.Reader, g *grammar.Graph, files []string, k int, opts grammar.ParseOptions, asJSON bool) error {
	ctx := contextOf(cmd)
	workers := workerCount()
	if countOf(files, "-") > 1 {
		workers = 1 // the first '-' reads standard input, as before
	}
	out, errOut := newOut(cmd.OutOrStdout()), cmd.ErrOrStderr()
	failed := 0
	err := parallel.Ordered(ctx, len(files), workers, func(_, i int) predicted {
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
