package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
)

// parseFlags are parse's flags.
type parseFlags struct {
	asJSON, asDOT, full bool
	trees, budget       int
	constraints         constraintsFlag
}

func newParseCmd(stdin io.Reader) *cobra.Command {
	var f parseFlags
	cmd := &cobra.Command{
		Use:   "parse GRAMMAR FILE...",
		Short: "Parse inputs and print their derivation trees",
		Long: `parse parses each FILE ('-' for standard input; a folder for every input
below it, as record and train read one) by the grammar and prints its
derivation tree: an indented outline of grammar symbols by default
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
refused. A FILE that does not exist is an error before anything is parsed.

Inputs that need the general parser (see 'arbor grammar check
--conflicts') are parsed within a budget of work: by default 1,000 Earley
items per input byte, at least 2^20 and at most 2^27, some 14 times what
the bundled grammars' inputs take. An input that needs more - almost always because
the grammar is ambiguous, where the work grows as the cube of the input -
is reported as not parsed, naming the ambiguous rule and a part of the
input it derives in several ways; --parse-budget N allows N items instead
(-1: no bound).

Ctrl-C or SIGTERM stops parse at once, also while it reads standard input
or parses, keeping what it printed; the exit status is then 1.`,
		Example: "  arbor parse expr input.txt\n  echo -n 'x+42' | arbor parse expr - --dot | dot -Tsvg > tree.svg",
		Args:    minArgs(2),
		RunE:    func(cmd *cobra.Command, args []string) error { return runParse(cmd, stdin, args, f) },
	}
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print trees as JSON, one line per input")
	cmd.Flags().BoolVar(&f.asDOT, "dot", false, "print trees as Graphviz digraphs")
	cmd.Flags().BoolVar(&f.full, "full", false, "show synthetic nodes (Alt, Cat, Quant) in the text outline")
	cmd.Flags().IntVar(&f.trees, "trees", 1, "print up to `N` trees of an ambiguous input")
	budgetFlag(cmd, &f.budget)
	f.constraints.register(cmd.Flags(), "each tree is followed by the constraint instances it breaks (in JSON, \"violations\"); they do not make the exit status 1")
	// --all was this flag's name; in predict --all lists every function.
	cmd.Flags().IntVar(&f.trees, "all", 1, "")
	renamedFlag(cmd, "all", "trees", "--all lists every function in predict")
	return cmd
}

// runParse parses the inputs args name with the grammar args[0] names
// and prints their trees; inputs that do not parse are told of on
// stderr, after the trees printed before them.
func runParse(cmd *cobra.Command, stdin io.Reader, args []string, f parseFlags) error {
	if f.asJSON && f.asDOT {
		return usageError{errors.New("--json and --dot exclude each other")}
	}
	if f.trees < 1 {
		return usageError{fmt.Errorf("--trees must be at least 1, not %d", f.trees)}
	}
	if err := f.constraints.check(); err != nil {
		return err
	}
	g, err := datasets.LoadGrammar(args[0])
	if err != nil {
		return err
	}
	set, err := f.constraints.set(g)
	if err != nil {
		return err
	}
	var check *constraint.Checker
	if set != nil {
		check = constraint.NewChecker(set)
	}
	broken := 0
	files, err := listInputs(args[1:])
	if err != nil {
		return err
	}
	opts := grammar.ParseOptions{Trees: f.trees, Budget: f.budget}
	// Trees are written as they are walked, through one buffer; a large
	// input's tree is never built where the deterministic parser takes
	// it (grammar.Parsed).
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	errOut := cmd.ErrOrStderr()
	tw := f.treeWriter(out)
	failed := 0
	ctx := contextOf(cmd)
	for _, file := range files {
		// Ctrl-C stops reading and parsing, keeping the trees printed.
		parsed, err := parseInput(ctx, g, file, stdin, opts)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return flushed(out, ctxErr)
		}
		if err != nil {
			failed++
			if f.asJSON {
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
		vs, err := violations(check, parsed)
		if err != nil {
			return flushed(out, err)
		}
		for _, v := range vs {
			if len(v) > 0 {
				broken++
				break
			}
		}
		f.printTrees(out, tw, file, parsed, len(files) > 1, vs)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if broken > 0 {
		fmt.Fprintf(errOut, "%d of %d inputs break a constraint\n", broken, len(files))
	}
	if failed > 0 {
		fmt.Fprintf(errOut, "%d of %d inputs did not parse\n", failed, len(files))
		return errReported
	}
	return nil
}

// treeWriter writes trees to out in the form the flags ask for.
func (f parseFlags) treeWriter(out *bufio.Writer) *grammar.TreeWriter {
	switch {
	case f.asJSON:
		return grammar.NewJSONWriter(out)
	case f.asDOT:
		return grammar.NewDOTWriter(out)
	}
	return grammar.NewTextWriter(out, !f.full)
}

// printTrees writes the trees of one input with tw; as text, each
// headed by the file's name where there are several (more inputs, or
// more trees).
func (f parseFlags) printTrees(out *bufio.Writer, tw *grammar.TreeWriter, file string, parsed *grammar.Parsed, more bool, vs [][]constraint.Broken) {
	if f.asJSON {
		out.WriteString(`{"file":`)
		name, _ := json.Marshal(file) // a string always marshals
		out.Write(name)
		out.WriteString(`,"trees":[`)
	}
	for i := range parsed.Len() {
		switch {
		case f.asJSON && i > 0:
			out.WriteByte(',')
		case !f.asJSON && !f.asDOT && (more || parsed.Len() > 1):
			fmt.Fprintf(out, "== %s (tree %d of %d)\n", file, i+1, parsed.Len())
		}
		parsed.Visit(i, tw)
		if !f.asJSON && vs != nil {
			for _, b := range vs[i] {
				fmt.Fprintf(out, "breaks %s: %s at offset %d (%q)", b.Pos, b.Clause, b.At, b.Text)
				if b.Error != "" {
					fmt.Fprintf(out, ": %s", b.Error)
				}
				out.WriteByte('\n')
			}
		}
	}
	if f.asJSON {
		out.WriteString("]")
		if vs != nil {
			out.WriteString(`,"violations":`)
			// Clauses hold < and &: keep them readable.
			var data bytes.Buffer
			enc := json.NewEncoder(&data)
			enc.SetEscapeHTML(false)
			enc.Encode(vs) // strings and ints always encode
			out.Write(bytes.TrimSuffix(data.Bytes(), []byte("\n")))
		}
		out.WriteString("}\n")
	}
}

// violations returns, with a checker, the constraint instances each of
// the trees of an input breaks (an empty list for a tree that breaks
// none); without one, nil.
func violations(check *constraint.Checker, parsed *grammar.Parsed) ([][]constraint.Broken, error) {
	if check == nil {
		return nil, nil
	}
	trees, err := parsed.Trees()
	if err != nil {
		return nil, err
	}
	out := make([][]constraint.Broken, len(trees))
	for i, t := range trees {
		out[i] = []constraint.Broken{}
		for _, v := range check.Check(t) {
			out[i] = append(out[i], v.Broken())
		}
	}
	return out, nil
}

// budgetFlag adds --parse-budget, the general parser's budget of Earley
// items per input.
func budgetFlag(cmd *cobra.Command, budget *int) {
	cmd.Flags().IntVar(budget, "parse-budget", 0, "let the general parser take up to `N` Earley items per input (0: 1,000 per input byte, at least 2^20, at most 2^27; -1: no bound)")
}

// listInputs lists the inputs the arguments name: '-' for standard
// input, a file, or every input below a folder (corpus.List). A missing
// file is an error that names it.
func listInputs(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		if arg == "-" {
			files = append(files, arg)
			continue
		}
		// The error of a missing file names it (os.Stat's *PathError).
		if _, err := os.Stat(arg); err != nil {
			return nil, fmt.Errorf("read input: %w", err)
		}
		list, err := corpus.List(arg)
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("%s: the folder holds no inputs", arg)
		}
		files = append(files, list...)
	}
	return files, nil
}

// parseInput reads and parses one input ('-' for stdin) with the
// options. Its trees are built only where the general parser is needed:
// the others are read off the input again. When ctx is done it returns
// at once with ctx's error, from reading as from parsing.
func parseInput(ctx context.Context, g *grammar.Graph, file string, stdin io.Reader, opts grammar.ParseOptions) (*grammar.Parsed, error) {
	read := func() ([]byte, error) { return corpus.Read(file) }
	if file == "-" {
		read = func() ([]byte, error) { return io.ReadAll(stdin) }
	}
	data, err := readContext(ctx, read)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("read input: %w", err)
	}
	parsed, err := g.ParseLazyContext(ctx, data, opts)
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

// readContext returns what read reads, or ctx's error as soon as ctx is
// done. Reading may block for as long as the other end likes (standard
// input from a terminal, or a pipe or a FIFO whose writer neither writes
// nor closes; opening a FIFO blocks until a writer opens it too), so it
// runs on a goroutine of its own, which is left blocked when ctx ends
// first: the command is ending then, and the process with it.
func readContext(ctx context.Context, read func() ([]byte, error)) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := read()
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
