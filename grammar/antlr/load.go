package antlr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Load reads and converts the .g4 file at path with the default Config.
func Load(path string, lexers ...string) (*grammar.Grammar, []grammar.Warning, error) {
	var c Config
	return c.Load(path, lexers...)
}

// Load reads the .g4 file at path and converts it. A parser grammar
// needs its lexer grammar: the files named by lexers, or else the file
// beside it that its tokenVocab option names, or else FooLexer.g4 beside
// FooParser.g4.
func (c *Config) Load(path string, lexers ...string) (*grammar.Grammar, []grammar.Warning, error) {
	f, err := parseFile(path)
	if err != nil {
		return nil, nil, err
	}
	files := []*File{f}
	for _, l := range lexers {
		lf, err := parseFile(l)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, lf)
	}
	if f.Kind == Parser && len(lexers) == 0 {
		lexer, err := findLexer(path, f)
		if err != nil {
			return nil, nil, err
		}
		lf, err := parseFile(lexer)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, lf)
	}
	return c.Convert(files...)
}

func parseFile(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read grammar: %w", err)
	}
	return Parse(path, src)
}

// findLexer finds the lexer grammar of a parser grammar beside it.
func findLexer(path string, f *File) (string, error) {
	dir := filepath.Dir(path)
	var tried []string
	if vocab := strings.Trim(strings.TrimSpace(f.Options["tokenVocab"]), `'"`); vocab != "" {
		tried = append(tried, filepath.Join(dir, vocab+".g4"))
	}
	base := filepath.Base(path)
	if stem, ok := strings.CutSuffix(strings.TrimSuffix(base, filepath.Ext(base)), "Parser"); ok {
		tried = append(tried, filepath.Join(dir, stem+"Lexer.g4"))
	}
	for _, p := range tried {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("read grammar: %w", err)
		}
	}
	if len(tried) == 0 {
		return "", fmt.Errorf("%s: parser grammar %s has no tokenVocab option and is not named FooParser.g4: give its lexer grammar as well", f.Pos, f.Name)
	}
	return "", fmt.Errorf("%s: parser grammar %s needs its lexer grammar: %s does not exist; give it as well", f.Pos, f.Name, strings.Join(tried, " or "))
}
