package datasets

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
	"github.com/arbor-fuzz/arbor/grammar/bnf"
)

//go:embed grammars/*.grammar
var grammarFiles embed.FS

// GrammarInfo describes a bundled grammar.
type GrammarInfo struct {
	Name        string // e.g. "json"
	File        string // e.g. "grammars/json.grammar"
	Description string // the first comment line of the file
}

// Grammars lists the bundled grammars, sorted by name.
func Grammars() []GrammarInfo {
	entries, err := fs.ReadDir(grammarFiles, "grammars")
	if err != nil {
		return nil // the directory is embedded: it always exists
	}
	var out []GrammarInfo
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".grammar")
		if !ok {
			continue
		}
		file := path.Join("grammars", e.Name())
		src, _ := grammarFiles.ReadFile(file)
		out = append(out, GrammarInfo{Name: name, File: file, Description: firstComment(src)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// firstComment returns the first sentence of the file's leading comment.
func firstComment(src []byte) string {
	var text []string
	for _, line := range strings.Split(string(src), "\n") {
		c, ok := strings.CutPrefix(strings.TrimSpace(line), "//")
		if !ok {
			break
		}
		text = append(text, strings.TrimSpace(c))
	}
	s := strings.Join(text, " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// GrammarSource returns the text of a bundled grammar.
func GrammarSource(name string) ([]byte, error) {
	src, err := grammarFiles.ReadFile(path.Join("grammars", name+".grammar"))
	if err != nil {
		return nil, fmt.Errorf("no bundled grammar named %q (bundled: %s)", name, strings.Join(grammarNames(), ", "))
	}
	return src, nil
}

func grammarNames() []string {
	var names []string
	for _, g := range Grammars() {
		names = append(names, g.Name)
	}
	return names
}

// Grammar parses and builds a bundled grammar.
func Grammar(name string) (*grammar.Graph, error) {
	src, err := GrammarSource(name)
	if err != nil {
		return nil, err
	}
	return build(name+".grammar", src)
}

// LoadGrammar builds the grammar named by arg: a file path if such a file
// exists, else a bundled grammar's name. A file may be in arbor's
// notation, an ANTLR 4 grammar (.g4) or a fuzzingbook-style JSON grammar
// (.json); other extensions are told apart by their content (see
// ImportGrammar). The start rule of an ANTLR grammar is its first parser
// rule, and of a JSON grammar <start> or else its first key. Warnings of
// the conversion come first in the graph's Warnings.
func LoadGrammar(arg string) (*grammar.Graph, error) {
	ast, warnings, err := ImportGrammar(arg, ImportOptions{})
	if err != nil {
		return nil, err
	}
	g, err := grammar.Build(ast)
	if err != nil {
		return nil, err
	}
	g.Warnings = append(warnings, g.Warnings...)
	return g, nil
}

// GrammarFormat is the notation a grammar file is written in.
type GrammarFormat int

const (
	FormatArbor GrammarFormat = iota // arbor's notation (.grammar)
	FormatANTLR                      // ANTLR 4 (.g4)
	FormatJSON                       // fuzzingbook-style JSON (.json)
)

func (f GrammarFormat) String() string {
	switch f {
	case FormatANTLR:
		return "g4"
	case FormatJSON:
		return "json"
	}
	return "arbor"
}

// DetectFormat tells a grammar file's notation by its extension (.g4,
// .json, .grammar) or, for any other name, by its content: a JSON object
// is JSON, text that starts with "grammar", "lexer grammar" or "parser
// grammar" after comments is ANTLR, anything else arbor's notation.
func DetectFormat(filename string, src []byte) GrammarFormat {
	switch strings.ToLower(path.Ext(strings.ReplaceAll(filename, `\`, "/"))) {
	case ".g4":
		return FormatANTLR
	case ".json":
		return FormatJSON
	case ".grammar":
		return FormatArbor
	}
	s := skipComments(string(src))
	switch {
	case strings.HasPrefix(s, "{"):
		return FormatJSON
	case hasWord(s, "grammar"), strings.HasPrefix(s, "lexer") && hasWord(skipComments(s[5:]), "grammar"),
		strings.HasPrefix(s, "parser") && hasWord(skipComments(s[6:]), "grammar"):
		return FormatANTLR
	}
	return FormatArbor
}

func hasWord(s, w string) bool {
	rest, ok := strings.CutPrefix(s, w)
	return ok && rest != "" && strings.ContainsRune(" \t\r\n/", rune(rest[0]))
}

// skipComments drops leading white space and // and /* */ comments.
func skipComments(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n\ufeff")
		switch {
		case strings.HasPrefix(s, "//"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return ""
			}
			s = s[i+4:]
		default:
			return s
		}
	}
}

// ImportOptions are the choices ImportGrammar offers.
type ImportOptions struct {
	// Start names the start rule; empty keeps the notation's own choice.
	Start string
	// Lexers are the lexer grammars of an ANTLR parser grammar. Without
	// them, the lexer is looked for beside it (tokenVocab, FooLexer.g4).
	Lexers []string
}

// ImportGrammar reads the grammar named by arg (a file in any of the
// notations DetectFormat tells apart, or a bundled grammar's name) and
// returns it in arbor's terms, with the warnings of its conversion.
func ImportGrammar(arg string, opts ImportOptions) (*grammar.Grammar, []grammar.Warning, error) {
	src, err := os.ReadFile(arg)
	switch {
	case err == nil:
	case !errors.Is(err, fs.ErrNotExist):
		return nil, nil, fmt.Errorf("read grammar: %w", err)
	case strings.ContainsAny(arg, `/\.`):
		return nil, nil, fmt.Errorf("grammar file %s does not exist (bundled grammars: %s)", arg, strings.Join(grammarNames(), ", "))
	default:
		if src, err = GrammarSource(arg); err != nil {
			return nil, nil, err
		}
		arg += ".grammar"
	}
	format := DetectFormat(arg, src)
	if len(opts.Lexers) > 0 && format != FormatANTLR {
		return nil, nil, fmt.Errorf("%s: only an ANTLR parser grammar takes a lexer grammar as well", arg)
	}
	var ast *grammar.Grammar
	var warnings []grammar.Warning
	switch format {
	case FormatANTLR:
		c := antlr.Config{Start: opts.Start}
		ast, warnings, err = c.Load(arg, opts.Lexers...)
		return ast, warnings, err
	case FormatJSON:
		ast, err = bnf.ParseJSON(arg, src)
	default:
		ast, err = grammar.Parse(arg, src)
	}
	if err != nil {
		return nil, nil, err
	}
	if opts.Start != "" {
		if err := moveFirst(ast, opts.Start); err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, keepReachable(ast)...)
	}
	return ast, warnings, nil
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

func build(filename string, src []byte) (*grammar.Graph, error) {
	ast, err := grammar.Parse(filename, src)
	if err != nil {
		return nil, err
	}
	return grammar.Build(ast)
}
