package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
)

func newParseCmd(stdin io.Reader) *cobra.Command {
	var asJSON, asDOT, full bool
	var all int
	cmd := &cobra.Command{
		Use:   "parse GRAMMAR FILE...",
		Short: "Parse inputs and print their derivation trees",
		Long: `parse parses each FILE ('-' for standard input) by the grammar and prints
its derivation tree: an indented outline of grammar symbols by default
(--full adds the synthetic Alt, Cat and Quant nodes), JSON with --json
(one object per input and line: {"file":...,"trees":[...]} or
{"file":...,"error":...}), or a Graphviz digraph with --dot.

An ambiguous input has several trees; --all N prints up to N of them.
An input outside the language is reported with line:col, byte offset and
the terminals expected there; the other inputs are still parsed, and the
exit status is 1.`,
		Example: "  arbor parse expr input.txt\n  echo -n 'x+42' | arbor parse expr - --dot | dot -Tsvg > tree.svg",
		Args:    minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asDOT {
				return usageError{errors.New("--json and --dot exclude each other")}
			}
			if all < 1 {
				return usageError{fmt.Errorf("--all must be at least 1, not %d", all)}
			}
			g, err := datasets.LoadGrammar(args[0])
			if err != nil {
				return err
			}
			out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
			failed := 0
			files := args[1:]
			for _, file := range files {
				trees, err := parseFile(g, file, stdin, all)
				if err != nil {
					failed++
					if asJSON {
						if err := json.NewEncoder(out).Encode(map[string]string{"file": file, "error": err.Error()}); err != nil {
							return err
						}
					}
					fmt.Fprintln(errOut, err)
					continue
				}
				switch {
				case asJSON:
					err = json.NewEncoder(out).Encode(struct {
						File  string          `json:"file"`
						Trees []*grammar.Tree `json:"trees"`
					}{file, trees})
				case asDOT:
					for _, t := range trees {
						if err = t.WriteDOT(out); err != nil {
							break
						}
					}
				default:
					for i, t := range trees {
						if len(files) > 1 || len(trees) > 1 {
							fmt.Fprintf(out, "== %s (tree %d of %d)\n", file, i+1, len(trees))
						}
						if err = t.WriteText(out, !full); err != nil {
							break
						}
					}
				}
				if err != nil {
					return err
				}
			}
			if failed > 0 {
				fmt.Fprintf(errOut, "%d of %d inputs did not parse\n", failed, len(files))
				return errReported
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print trees as JSON, one line per input")
	cmd.Flags().BoolVar(&asDOT, "dot", false, "print trees as Graphviz digraphs")
	cmd.Flags().BoolVar(&full, "full", false, "show synthetic nodes (Alt, Cat, Quant) in the text outline")
	cmd.Flags().IntVar(&all, "all", 1, "print up to `N` trees of an ambiguous input")
	return cmd
}

func parseFile(g *grammar.Graph, file string, stdin io.Reader, limit int) ([]*grammar.Tree, error) {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	trees, err := g.ParseAll(data, limit)
	if err != nil {
		var pe *grammar.ParseError
		if errors.As(err, &pe) {
			pe.Pos.Filename = file
			return nil, pe
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return trees, nil
}
