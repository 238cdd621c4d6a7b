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
	"github.com/arbor-fuzz/arbor/grammar/load"
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
// the conversion come first in the graph's Warnings. A program that
// loads only files of its own can use load.File, which needs none of
// this package's subjects.
func LoadGrammar(arg string) (*grammar.Graph, error) {
	ast, warnings, err := ImportGrammar(arg, ImportOptions{})
	if err != nil {
		return nil, err
	}
	return load.Build(ast, warnings)
}

// GrammarFormat is the notation a grammar file is written in: a
// load.Format.
type GrammarFormat = load.Format

// The notations of grammar files, as package load names them.
const (
	FormatArbor = load.Arbor // arbor's notation (.grammar)
	FormatANTLR = load.ANTLR // ANTLR 4 (.g4)
	FormatJSON  = load.JSON  // fuzzingbook-style JSON (.json)
)

// DetectFormat tells a grammar file's notation by its extension or its
// content, as load.DetectFormat does.
func DetectFormat(filename string, src []byte) GrammarFormat {
	return load.DetectFormat(filename, src)
}

// ImportOptions are the choices ImportGrammar offers: the start rule and
// an ANTLR parser grammar's lexer grammars (load.Options).
type ImportOptions = load.Options

// ImportGrammar reads the grammar named by arg (a file in any of the
// notations DetectFormat tells apart, or a bundled grammar's name) and
// returns it in arbor's terms, with the warnings of its conversion
// (load.Source).
func ImportGrammar(arg string, opts ImportOptions) (*grammar.Grammar, []grammar.Warning, error) {
	src, err := os.ReadFile(arg)
	if fi, serr := os.Stat(arg); serr == nil && fi.IsDir() && !strings.ContainsAny(arg, `/\.`) {
		// A folder named like a bundled grammar (cron/ of cron inputs)
		// is no grammar file: the name means the bundled grammar.
		err = fs.ErrNotExist
	}
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
	return load.Source(arg, src, opts)
}

func build(filename string, src []byte) (*grammar.Graph, error) {
	ast, err := grammar.Parse(filename, src)
	if err != nil {
		return nil, err
	}
	return grammar.Build(ast)
}
