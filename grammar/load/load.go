package load

import (
	"fmt"
	"os"

	"github.com/arbor-fuzz/arbor/constraint"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
	"github.com/arbor-fuzz/arbor/grammar/bnf"
)

// Options are the choices Import and Source offer.
type Options struct {
	// Start names the start rule; empty keeps the notation's own choice:
	// the first rule of arbor's notation, the first parser rule of an
	// ANTLR grammar, <start> or else the first key of a JSON grammar.
	Start string
	// Lexers are the files of an ANTLR parser grammar's lexer grammars.
	// Without them, the lexer is looked for beside it (tokenVocab,
	// FooLexer.g4).
	Lexers []string
}

// File reads the grammar file at path, in any notation DetectFormat
// tells apart, and builds its graph. The warnings of the conversion come
// first in the graph's Warnings.
func File(path string) (*grammar.Graph, error) {
	ast, warnings, err := Import(path, Options{})
	if err != nil {
		return nil, err
	}
	return Build(ast, warnings)
}

// Build builds the graph of a grammar Import or Source returned, with
// the warnings of its conversion first in the graph's Warnings, so that
// they are told with the grammar's own. Its constraints (where
// clauses) are compiled too, so that a malformed one is an error of
// the grammar's, with its position, whatever the command; callers that
// use them compile them again (constraint.Compile), which is cheap.
func Build(ast *grammar.Grammar, warnings []grammar.Warning) (*grammar.Graph, error) {
	g, err := grammar.Build(ast)
	if err != nil {
		return nil, err
	}
	if _, err := constraint.Compile(g); err != nil {
		return nil, err
	}
	g.Warnings = append(warnings, g.Warnings...)
	return g, nil
}

// Import reads the grammar file at path and returns it in arbor's terms,
// with the warnings of its conversion.
func Import(path string, opts Options) (*grammar.Grammar, []grammar.Warning, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read grammar: %w", err)
	}
	return Source(path, src, opts)
}

// Source is Import of src, the text of the grammar file filename: the
// name tells the notation (DetectFormat) and positions in messages. An
// ANTLR parser grammar is read again from filename, as its lexer grammar
// is another file: the one opts.Lexers name, or else one beside it.
func Source(filename string, src []byte, opts Options) (*grammar.Grammar, []grammar.Warning, error) {
	format := DetectFormat(filename, src)
	if len(opts.Lexers) > 0 && format != ANTLR {
		return nil, nil, fmt.Errorf("%s: only an ANTLR parser grammar takes a lexer grammar as well", filename)
	}
	var ast *grammar.Grammar
	var err error
	switch format {
	case ANTLR:
		return importANTLR(filename, src, opts)
	case JSON:
		ast, err = bnf.ParseJSON(filename, src)
	default:
		ast, err = grammar.Parse(filename, src)
	}
	if err != nil {
		return nil, nil, err
	}
	if opts.Start == "" {
		return ast, nil, nil
	}
	if err := moveFirst(ast, opts.Start); err != nil {
		return nil, nil, err
	}
	return ast, keepReachable(ast), nil
}

// importANTLR converts an ANTLR grammar; the converter chooses the start
// rule and keeps only the rules it reaches.
func importANTLR(filename string, src []byte, opts Options) (*grammar.Grammar, []grammar.Warning, error) {
	c := antlr.Config{Start: opts.Start}
	f, err := antlr.Parse(filename, src)
	if err != nil {
		return nil, nil, err
	}
	if f.Kind == antlr.Parser || len(opts.Lexers) > 0 {
		return c.Load(filename, opts.Lexers...)
	}
	return c.Convert(f)
}

// moveFirst makes the named rule the start rule.
func moveFirst(g *grammar.Grammar, name string) error {
	for i, r := range g.Rules {
		if r.Name == name {
			copy(g.Rules[1:i+1], g.Rules[:i])
			g.Rules[0] = r
			return nil
		}
	}
	return fmt.Errorf("%s: no rule named %s to start from", g.Filename, name)
}

// keepReachable leaves out the rules the start rule does not reach,
// which another start rule may leave behind, with a warning for each.
func keepReachable(g *grammar.Grammar) []grammar.Warning {
	bodies := map[string]grammar.Expr{}
	for _, r := range g.Rules {
		bodies[r.Name] = r.Body
	}
	reached := map[string]bool{}
	var visit func(e grammar.Expr)
	visit = func(e grammar.Expr) {
		switch e := e.(type) {
		case *grammar.Ref:
			if !reached[e.Name] {
				reached[e.Name] = true
				visit(bodies[e.Name])
			}
		case *grammar.Seq:
			for _, x := range e.Items {
				visit(x)
			}
		case *grammar.Alt:
			for _, x := range e.Alts {
				visit(x)
			}
		case *grammar.Repeat:
			visit(e.X)
		}
	}
	start := g.Rules[0].Name
	visit(&grammar.Ref{Name: start})
	var warnings []grammar.Warning
	kept := g.Rules[:0]
	for _, r := range g.Rules {
		if reached[r.Name] {
			kept = append(kept, r)
			continue
		}
		warnings = append(warnings, grammar.Warning{Pos: r.Pos, Msg: fmt.Sprintf("rule %s is not reachable from %s; left out", r.Name, start)})
	}
	g.Rules = kept
	return warnings
}
