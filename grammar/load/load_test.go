package load_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/load"
)

// TestFileFormats loads a .g4, a .json and an extensionless grammar,
// with the conversion's warnings kept.
func TestFileFormats(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	g4 := write("S.g4", "grammar S;\ns : 'a' {act();} B ;\nB : 'b' ;\nWS : ' ' -> skip ;\n")
	js := write("s.json", `{"<start>": ["a<b>"], "<b>": ["b"]}`)
	raw := write("s", `{"<start>": ["ab"]}`)
	for _, path := range []string{g4, js, raw} {
		g, err := load.File(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, err := g.Parse([]byte("ab")); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	g, _ := load.File(g4)
	if len(g.Warnings) == 0 || !strings.Contains(g.Warnings[0].String(), "action {...} dropped") {
		t.Errorf("warnings %v", g.Warnings)
	}
	if _, err := load.File(filepath.Join(dir, "none.g4")); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "read grammar: ") {
		t.Errorf("err %v", err)
	}
}

// TestParserGrammar loads an ANTLR parser grammar with its lexer grammar,
// found beside it or given.
func TestParserGrammar(t *testing.T) {
	parser := filepath.Join("..", "antlr", "testdata", "ListParser.g4")
	for _, opts := range []load.Options{{}, {Lexers: []string{filepath.Join("..", "antlr", "testdata", "ListLexer.g4")}}} {
		ast, _, err := load.Import(parser, opts)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		if _, err := grammar.Build(ast); err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
	}
	_, _, err := load.Source("s.grammar", []byte(`S := "a" ;`), load.Options{Lexers: []string{"L.g4"}})
	if err == nil || err.Error() != "s.grammar: only an ANTLR parser grammar takes a lexer grammar as well" {
		t.Errorf("a lexer for an arbor grammar: %v", err)
	}
}

// TestStart: another start rule leaves out what it does not reach, with
// a warning for each rule, in every notation.
func TestStart(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // the rules kept
	}{
		{"a.grammar", "S := A B ;\nA := \"a\" B ;\nB := \"b\" ;\n", "A B"},
		{"a.json", `{"<start>": ["<a><b>"], "<a>": ["a<b>"], "<b>": ["b"]}`, "a b"},
		{"A.g4", "grammar A;\ns : a B ;\na : 'a' B ;\nB : 'b' ;\n", "a B"},
	}
	for _, tt := range tests {
		start := strings.Fields(tt.want)[0]
		ast, warnings, err := load.Source(tt.name, []byte(tt.src), load.Options{Start: start})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var kept []string
		for _, r := range ast.Rules {
			kept = append(kept, r.Name)
		}
		if got := strings.Join(kept, " "); got != tt.want {
			t.Errorf("%s: rules %q, want %q", tt.name, got, tt.want)
		}
		if tt.name != "A.g4" && (len(warnings) != 1 || !strings.Contains(warnings[0].Msg, "is not reachable from "+start)) {
			t.Errorf("%s: warnings %v", tt.name, warnings)
		}
		if _, _, err := load.Source(tt.name, []byte(tt.src), load.Options{Start: "Nope"}); err == nil {
			t.Errorf("%s: no error for a start rule that does not exist", tt.name)
		}
	}
}

// FuzzSource checks that no text, in whatever notation its content
// says, with or without another start rule, makes Source panic, and that
// what it returns builds or fails with an error.
func FuzzSource(f *testing.F) {
	f.Add([]byte("S := A | \"b\" ;\nA := \"a\" S? ;\n"), "A")
	f.Add([]byte(`{"<start>": ["<a>"], "<a>": ["a", "<a>a"]}`), "a")
	f.Add([]byte("grammar G;\ns : 'a' t? ;\nt : 'b' ;\n"), "t")
	f.Add([]byte("lexer grammar L;\nA : 'a' ;\n"), "")
	f.Fuzz(func(t *testing.T, src []byte, start string) {
		ast, warnings, err := load.Source("fuzz.txt", src, load.Options{Start: start})
		if err != nil {
			return
		}
		if start != "" && (len(ast.Rules) == 0 || ast.Rules[0].Name != start) {
			t.Fatalf("start %q, rules %v", start, ast.Rules)
		}
		load.Build(ast, warnings)
	})
}
