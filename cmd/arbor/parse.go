package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/corpus"
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

The outline indents by two spaces a level down to level 64; deeper lines
start with their level instead, as in "·[5123] Value_2", so that the
outline of a deeply nested input stays proportional to its tree.

An ambiguous input has several trees; --trees N prints up to N of them.
An input outside the language is reported with line:col, byte offset and
the terminals expected there; the other inputs are still parsed, and the
exit status is 1. Inputs nested more than 50,000 rule expansions deep are
refused.`,
		Example: "  arbor parse expr input.txt\n  echo -n 'x+42' | arbor parse expr - --dot | dot -Tsvg > tree.svg",
		Args:    minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asDOT {
				return usageError{errors.New("--json and --dot exclude each other")}
			}
			if all < 1 {
				return usageError{fmt.Errorf("--trees must be at least 1, not %d", all)}
			}
			g, err := datasets.LoadGrammar(args[0])
			if err != nil {
				return err
			}
			// Trees are written as they are walked, through one buffer;
			// a large input's tree is never built where the deterministic
			// parser takes it (grammar.Parsed).
			out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
			errOut := cmd.ErrOrStderr()
			var tw *grammar.TreeWriter
			switch {
			case asJSON:
				tw = grammar.NewJSONWriter(out)
			case asDOT:
				tw = grammar.NewDOTWriter(out)
			default:
				tw = grammar.NewTextWriter(out, !full)
			}
			failed := 0
			files := args[1:]
			ctx := contextOf(cmd)
			for _, file := range files {
				// Ctrl-C stops between inputs, keeping the trees printed.
				if err := ctx.Err(); err != nil {
					return flushed(out, err)
				}
				parsed, err := parseInput(g, file, stdin, all)
				if err != nil {
					failed++
					if asJSON {
						if err := json.NewEncoder(out).Encode(map[string]string{"file": file, "error": err.Error()}); err != nil {
							return err
						}
					}
					// Keep the error after what was printed before it.
					if err := out.Flush(); err != nil {
						return fmt.Errorf("write output: %w", err)
					}
					fmt.Fprintln(errOut, err)
					continue
				}
				if asJSON {
					out.WriteString(`{"file":`)
					name, _ := json.Marshal(file) // a string always marshals
					out.Write(name)
					out.WriteString(`,"trees":[`)
				}
				for i := range parsed.Len() {
					switch {
					case asJSON && i > 0:
						out.WriteByte(',')
					case !asJSON && !asDOT && (len(files) > 1 || parsed.Len() > 1):
						fmt.Fprintf(out, "== %s (tree %d of %d)\n", file, i+1, parsed.Len())
					}
					parsed.Visit(i, tw)
				}
				if asJSON {
					out.WriteString("]}\n")
				}
			}
			if err := out.Flush(); err != nil {
				return fmt.Errorf("write output: %w", err)
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
	cmd.Flags().IntVar(&all, "trees", 1, "print up to `N` trees of an ambiguous input")
	// --all was this flag's name; in predict --all lists every function.
	cmd.Flags().IntVar(&all, "all", 1, "")
	renamedFlag(cmd, "all", "trees", "--all lists every function in predict")
	return cmd
}

// parseInput reads and parses one input ('-' for stdin), keeping up to
// limit trees of an ambiguous input. Its trees are built only where the
// general parser is needed: the others are read off the input again.
func parseInput(g *grammar.Graph, file string, stdin io.Reader, limit int) (*grammar.Parsed, error) {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = corpus.Read(file)
	}
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	parsed, err := g.ParseLazy(data, limit)
	if err != nil {
		var pe *grammar.ParseError
		if errors.As(err, &pe) {
			pe.Pos.Filename = file
			return nil, pe
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return parsed, nil
}
