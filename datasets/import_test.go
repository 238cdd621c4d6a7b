package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		name, src string
		want      GrammarFormat
	}{
		{"a.g4", "", FormatANTLR},
		{"a.JSON", "", FormatJSON},
		{"a.grammar", "grammar X;", FormatArbor},
		{"a.txt", " \n{\"<start>\": [\"a\"]}", FormatJSON},
		{"a.txt", "// c\n/* d */ grammar X;", FormatANTLR},
		{"a.txt", "lexer grammar X;", FormatANTLR},
		{"a.txt", "parser /* c */ grammar X;", FormatANTLR},
		{"a.txt", "grammarRule := \"x\" ;", FormatArbor},
		{"a", "S := \"x\" ;", FormatArbor},
	}
	for _, tt := range tests {
		if got := DetectFormat(tt.name, []byte(tt.src)); got != tt.want {
			t.Errorf("DetectFormat(%q, %q) = %v, want %v", tt.name, tt.src, got, tt.want)
		}
	}
}

// TestLoadGrammarFormats loads a .g4, a .json and an extensionless
// grammar, with the conversion's warnings kept.
func TestLoadGrammarFormats(t *testing.T) {
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
		g, err := LoadGrammar(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, err := g.Parse([]byte("ab")); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	g, _ := LoadGrammar(g4)
	if len(g.Warnings) == 0 || !strings.Contains(g.Warnings[0].String(), "action {...} dropped") {
		t.Errorf("warnings %v", g.Warnings)
	}
	if _, err := LoadGrammar(filepath.Join(dir, "none.g4")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("err %v", err)
	}
}
