package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
	"github.com/arbor-fuzz/arbor/grammar/bnf"
	"github.com/arbor-fuzz/arbor/internal/atomicfile"
)

// maxStatsK bounds --max-k: counts are exact big integers, but beyond this
// they only say "astronomically many".
const maxStatsK = 64

func newGrammarCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "grammar",
		Short: "Check, measure and convert grammars",
	}
	cmd.AddCommand(newGrammarCheckCmd(), newGrammarStatsCmd(), newGrammarConvertCmd(), newGrammarMineCmd())
	return cmd
}

func newGrammarCheckCmd() *cobra.Command {
	var conflicts, asJSON bool
	var cons constraintsFlag
	cmd := &cobra.Command{
		Use:   "check GRAMMAR [SAMPLE...]",
		Short: "Report a grammar's errors and warnings, and a table of its size",
		Long: `check parses and builds a grammar. It prints every error with file:line:col
(and exits 1), the warnings (duplicate alternatives, left recursion), and a
table: rules, graph nodes by kind, nullable and left-recursive rules, the
decisions one byte of lookahead cannot make (inputs that meet them are
parsed by the general parser; --conflicts lists them), the number of
k-paths for k = 1..3, and the number of constraints (where clauses).

SAMPLE files (or folders of them) are inputs the grammar should accept:
each is parsed, and one that does not parse is reported with its
line:col and makes the exit status 1; each constraint instance a sample
breaks is reported (a constraint stricter than the format, or a sample
outside it), which does not change the exit status.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cons.check(); err != nil {
				return err
			}
			g, err := datasets.LoadGrammar(args[0])
			var samples []sampleCheck
			if err == nil && len(args) > 1 {
				if samples, err = checkSamples(contextOf(cmd), g, args[1:], cons); err != nil {
					return err
				}
			}
			if asJSON {
				return checkJSON(cmd.OutOrStdout(), args[0], g, err, samples)
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, w := range g.Warnings {
				fmt.Fprintln(out, w)
			}
			st := g.Stats()
			counts := features.CountUpTo(g, 3)
			rows := [][]string{
				{"start symbol", g.Start},
				{"rules", strconv.Itoa(st.Rules)},
				{"nodes", strconv.Itoa(st.Nodes)},
				{"symbolic nodes (Ref/Lit/Regex)", fmt.Sprintf("%d (%d/%d/%d)", st.Symbolic, st.ByKind[grammar.KindRef], st.ByKind[grammar.KindLit], st.ByKind[grammar.KindRegex])},
				{"synthetic nodes (Alt/Cat/Quant)", fmt.Sprintf("%d (%d/%d/%d)", st.Nodes-st.Symbolic, st.ByKind[grammar.KindAlt], st.ByKind[grammar.KindCat], st.ByKind[grammar.KindQuant])},
				{"nullable rules", listOrNone(st.Nullable)},
				{"left-recursive rules", listOrNone(st.LeftRec)},
				{"lookahead conflicts", strconv.Itoa(st.Conflicts)},
			}
			for k, c := range counts {
				rows = append(rows, []string{fmt.Sprintf("%d-paths", k+1), c.String()})
			}
			rows = append(rows, []string{"constraints", strconv.Itoa(len(g.Source.Where))})
			fmt.Fprintf(out, "%s: ok\n", args[0])
			if err := renderTable(out, []string{"property", "value"}, rows); err != nil {
				return err
			}
			if conflicts {
				for _, c := range g.Conflicts() {
					fmt.Fprintln(out, "conflict:", c)
				}
			}
			return printSamples(out, samples)
		},
	}
	cmd.Flags().BoolVar(&conflicts, "conflicts", false, "list the decisions one byte of lookahead cannot make")
	cons.register(cmd.Flags(), "report the instances each SAMPLE breaks")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings and sizes as JSON (docs/json.md); a grammar with errors still exits 1")
	return cmd
}

// grammarCheck is what check finds, as --json prints it.
type grammarCheck struct {
	Grammar  string           `json:"grammar"`
	OK       bool             `json:"ok"`
	Errors   []grammarFinding `json:"errors"`
	Warnings []grammarFinding `json:"warnings"`
	// The sizes, for a grammar without errors:
	Start     string            `json:"start,omitempty"`
	Rules     int               `json:"rules,omitempty"`
	Nodes     map[string]int    `json:"nodes,omitempty"` // by kind, and "all"
	Nullable  []string          `json:"nullable"`
	LeftRec   []string          `json:"left_recursive"`
	Conflicts []string          `json:"conflicts"` // decisions one byte of lookahead cannot make
	KPaths    map[string]string `json:"kpaths,omitempty"`
	// Constraints is the number of where clauses; Samples what was found
	// of the SAMPLE inputs (omitted without any).
	Constraints int           `json:"constraints"`
	Samples     []sampleCheck `json:"samples,omitempty"`
}

type grammarFinding struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

// checkJSON writes check's findings; a grammar that does not build
// exits 1 after its errors are printed.
func checkJSON(w io.Writer, arg string, g *grammar.Graph, err error, samples []sampleCheck) error {
	res := grammarCheck{Grammar: arg, Errors: []grammarFinding{}, Warnings: []grammarFinding{}, Nullable: []string{}, LeftRec: []string{}, Conflicts: []string{}, Samples: samples}
	if err != nil {
		var list grammar.ErrorList
		if !errors.As(err, &list) {
			return err // not a finding in the grammar: the file could not be read
		}
		for _, e := range list {
			res.Errors = append(res.Errors, grammarFinding{e.Pos.Filename, e.Pos.Line, e.Pos.Col, e.Msg})
		}
		if werr := writeJSON(w, res); werr != nil {
			return werr
		}
		return errReported
	}
	res.OK = true
	for _, x := range g.Warnings {
		res.Warnings = append(res.Warnings, grammarFinding{x.Pos.Filename, x.Pos.Line, x.Pos.Col, x.Msg})
	}
	st := g.Stats()
	res.Start, res.Rules = g.Start, st.Rules
	res.Nodes = map[string]int{"all": st.Nodes}
	for kind, n := range st.ByKind {
		res.Nodes[kind.String()] = n
	}
	res.Nullable = append(res.Nullable, st.Nullable...)
	res.LeftRec = append(res.LeftRec, st.LeftRec...)
	res.Conflicts = append(res.Conflicts, g.Conflicts()...)
	res.KPaths = map[string]string{}
	for k, c := range features.CountUpTo(g, 3) {
		res.KPaths[strconv.Itoa(k+1)] = c.String()
	}
	res.Constraints = len(g.Source.Where)
	if err := writeJSON(w, res); err != nil {
		return err
	}
	return samplesStatus(samples)
}

// sampleCheck is what check finds of one sample input.
type sampleCheck struct {
	File       string              `json:"file"`
	Error      string              `json:"error,omitempty"` // why it does not parse
	Violations []constraint.Broken `json:"violations"`      // of its first tree
}

// checkSamples parses the samples args names and checks their first
// trees against g's constraints (unless cons is off).
func checkSamples(ctx context.Context, g *grammar.Graph, args []string, cons constraintsFlag) ([]sampleCheck, error) {
	files, err := listInputs(args)
	if err != nil {
		return nil, err
	}
	set, err := cons.set(g)
	if err != nil {
		return nil, err
	}
	var check *constraint.Checker
	if set != nil {
		check = constraint.NewChecker(set)
	}
	out := make([]sampleCheck, 0, len(files))
	for _, file := range files {
		res := sampleCheck{File: file, Violations: []constraint.Broken{}}
		parsed, err := parseInput(ctx, g, file, nil, grammar.ParseOptions{})
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if err != nil {
			res.Error = err.Error()
			out = append(out, res)
			continue
		}
		if vs, err := violations(check, parsed); err != nil {
			return nil, err
		} else if vs != nil {
			res.Violations = vs[0]
		}
		out = append(out, res)
	}
	return out, nil
}

// printSamples prints what check found of the samples, and a summary.
func printSamples(w io.Writer, samples []sampleCheck) error {
	if len(samples) == 0 {
		return nil
	}
	for _, s := range samples {
		if s.Error != "" {
			fmt.Fprintf(w, "sample %s\n", s.Error)
		}
		for _, b := range s.Violations {
			fmt.Fprintf(w, "sample %s breaks %s: %s at offset %d (%q)\n", s.File, b.Pos, b.Clause, b.At, b.Text)
		}
	}
	failed, broken := 0, 0
	for _, s := range samples {
		if s.Error != "" {
			failed++
		}
		if len(s.Violations) > 0 {
			broken++
		}
	}
	fmt.Fprintf(w, "samples: %d, %d do not parse, %d break a constraint\n", len(samples), failed, broken)
	return samplesStatus(samples)
}

// samplesStatus is errReported if a sample does not parse.
func samplesStatus(samples []sampleCheck) error {
	for _, s := range samples {
		if s.Error != "" {
			return errReported
		}
	}
	return nil
}

func newGrammarConvertCmd() *cobra.Command {
	var to, start, outFile string
	cmd := &cobra.Command{
		Use:   "convert IN [LEXER] [--to arbor|g4|json] [--start RULE] [--out FILE]",
		Short: "Convert a grammar between arbor's notation, ANTLR 4 and fuzzingbook JSON",
		Long: `convert reads a grammar in any notation arbor reads and writes it in
another: arbor's notation (--to arbor, the default), ANTLR 4 (--to g4) or
fuzzingbook-style JSON (--to json). The input's notation is told by its
extension (.grammar, .g4, .json) or else by its content; a bundled
grammar's name works too. Every command that takes a GRAMMAR reads .g4
and .json files the same way.

ANTLR 4 input: combined, parser and lexer grammars. A parser grammar's
lexer is LEXER, or the grammar its tokenVocab option names beside it, or
FooLexer.g4 beside FooParser.g4. The start rule is the first parser rule
(--start picks another); only rules reachable from it are kept. Supported:
parser and lexer rules, fragments, literals with ANTLR's escapes, sets
[a-z\u00e9] and \p{..}, ranges 'a'..'z', ~, ., ? * + and their non-greedy
forms, element labels (dropped: rule names name the parts), alternative
labels (# Name becomes a rule Name holding those alternatives),
-> skip and -> channel(..) tokens, -> type(T), EOF, caseInsensitive.
Approximations, as arbor parses without a lexer:
  - hidden tokens (white space, comments) become one regular expression
    H and a gap after every token of a parser rule: _ (any hidden
    material or none), or where characters could extend the token
    ('if' before a name), __ (hidden material required: only such
    characters follow) or _w (none only before a non-word character);
  - a keyword is not taken out of an identifier's regular expression:
    where ANTLR's lexer would read the keyword, arbor accepts either;
  - a non-greedy loop followed by fixed text ('/*' .*? '*/') stops at
    the first such text; other non-greedy loops become greedy;
  - directly left-recursive rules keep ANTLR's precedence and
    associativity (one rule per level); indirect left recursion is
    converted as written and parses ambiguously.
Refused, with file:line:col: unsupported ...: lexer modes, pushMode,
popMode, more, semantic predicates, import, tokens made only by actions.
Actions {...} are dropped with a warning. docs/importing.md has the rest.

JSON input: {"<start>": ["<a> b", ...], ...}: text in angle brackets
without spaces is a nonterminal, everything else literal. The start
symbol is <start>, or else the first key.

Output: g4 writes every rule as an ANTLR lexer rule (fragments but the
start rule), so ANTLR reads characters as arbor does; json writes groups,
repetitions and regular expressions as nonterminals of their own, and
wide character classes by their printable ASCII members. Warnings go to
stderr. Exit status 1 for a grammar with errors, 2 for bad usage.`,
		Example: "  arbor grammar convert JSON.g4\n  arbor grammar convert SQLiteParser.g4 SQLiteLexer.g4 --out sqlite.grammar\n  arbor grammar convert json --to g4\n  arbor grammar convert expr.json --to arbor --start expr",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.RangeArgs(1, 2)(cmd, args); err != nil {
				return usageError{fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runGrammarConvert(cmd, args, to, start, outFile) },
	}
	cmd.Flags().StringVar(&to, "to", "arbor", "output notation: `arbor`, g4 or json")
	cmd.Flags().StringVar(&start, "start", "", "start from `RULE` instead of the notation's default")
	cmd.Flags().StringVar(&outFile, "out", "", "write to `FILE` instead of standard output")
	return cmd
}

// runGrammarConvert converts the grammar args name (a grammar, and the
// lexer grammars of an ANTLR parser grammar) to notation to, starting
// from rule start if given, and writes it to outFile or standard output;
// the warnings go to standard error.
func runGrammarConvert(cmd *cobra.Command, args []string, to, start, outFile string) error {
	switch to {
	case "arbor", "g4", "json":
	default:
		return usageError{fmt.Errorf("--to must be arbor, g4 or json, not %q", to)}
	}
	opts := datasets.ImportOptions{Start: start, Lexers: args[1:]}
	if len(opts.Lexers) > 0 {
		if src, err := os.ReadFile(args[0]); err == nil && datasets.DetectFormat(args[0], src) != datasets.FormatANTLR {
			return usageError{fmt.Errorf("a second grammar is only taken as the lexer of an ANTLR parser grammar; %s is not one", args[0])}
		}
	}
	text, warnings, err := convertGrammar(args[0], opts, to)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), w)
	}
	if outFile == "" || outFile == "-" {
		_, err := cmd.OutOrStdout().Write(text)
		return err
	}
	if err := atomicfile.Write(outFile, text, 0o644); err != nil {
		return fmt.Errorf("write grammar: %w", err)
	}
	return nil
}

// convertGrammar reads the grammar at path, checks that it builds, and
// writes it in notation to (arbor, g4 or json), with the warnings of
// reading it, building it and writing it.
func convertGrammar(path string, opts datasets.ImportOptions, to string) ([]byte, []grammar.Warning, error) {
	ast, warnings, err := datasets.ImportGrammar(path, opts)
	if err != nil {
		return nil, nil, err
	}
	g, err := grammar.Build(ast)
	if err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, g.Warnings...)
	var text []byte
	var w []grammar.Warning
	switch to {
	case "arbor":
		text = []byte(grammar.Format(ast))
	case "g4":
		text, w = antlr.Format(ast)
	case "json":
		text, w = bnf.FormatJSON(ast)
	}
	return text, append(warnings, w...), nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// grammarStats is the JSON form of 'arbor grammar stats'.
type grammarStats struct {
	Nodes   int           `json:"nodes"`
	Symbols int           `json:"symbols"`
	KPaths  byK[*big.Int] `json:"kpaths"`
}

func newGrammarStatsCmd() *cobra.Command {
	var maxK int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats GRAMMAR",
		Short: "Count the graph's nodes, symbols and k-paths for k = 1..K",
		Long: `stats prints the number of nodes of the grammar graph, the number of
symbols (symbolic nodes: Ref, Lit and Regex, which are also the 1-paths),
and the number of k-paths for every k = 1..K. k-paths are counted, not
listed, so large K is instant; counts are exact.

With --json it prints {"nodes":N,"symbols":S,"kpaths":{"1":n1,"2":n2,...}}.`,
		Example: "  arbor grammar stats expr --max-k 4\n  arbor grammar stats json --max-k 5 --json",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxK < 1 || maxK > maxStatsK {
				return usageError{fmt.Errorf("--max-k must be between 1 and %d, not %d", maxStatsK, maxK)}
			}
			g, err := datasets.LoadGrammar(args[0])
			if err != nil {
				return err
			}
			counts := features.CountUpTo(g, maxK)
			st := grammarStats{Nodes: len(g.Nodes), Symbols: g.Stats().Symbolic, KPaths: counts}
			out := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(out).Encode(st)
			}
			fmt.Fprintf(out, "%s: %d nodes, %d symbols\n", args[0], st.Nodes, st.Symbols)
			rows := make([][]string, len(counts))
			for k, c := range counts {
				rows[k] = []string{strconv.Itoa(k + 1), c.String()}
			}
			return renderTable(out, []string{"k", "k-paths"}, rows)
		},
	}
	cmd.Flags().IntVar(&maxK, "max-k", 4, "count k-paths for k = 1..`K`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
