package load

import (
	"testing"
)

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		name, src string
		want      Format
	}{
		{"a.g4", "", ANTLR},
		{"a.JSON", "", JSON},
		{"a.grammar", "grammar X;", Arbor},
		{"a.txt", " \n{\"<start>\": [\"a\"]}", JSON},
		{"a.txt", "// c\n/* d */ grammar X;", ANTLR},
		{"a.txt", "lexer grammar X;", ANTLR},
		{"a.txt", "parser /* c */ grammar X;", ANTLR},
		{"a.txt", "grammarRule := \"x\" ;", Arbor},
		{"a", "S := \"x\" ;", Arbor},
	}
	for _, tt := range tests {
		if got := DetectFormat(tt.name, []byte(tt.src)); got != tt.want {
			t.Errorf("DetectFormat(%q, %q) = %v, want %v", tt.name, tt.src, got, tt.want)
		}
	}
}

// FuzzDetectFormat checks that no content makes DetectFormat panic, that
// the extension decides whatever the content, and that comments and
// white space before the content do not change what it tells.
func FuzzDetectFormat(f *testing.F) {
	for _, s := range []string{"grammar X;", "lexer/**/grammar L;", "parser\ngrammar P;", "{}", "// c\n{", "/* x", "//", "\ufeffS := \"x\";", "lexer", "parser/"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got := DetectFormat("g.txt", src)
		if got < Arbor || got > JSON {
			t.Fatalf("DetectFormat(%q) = %d", src, got)
		}
		for _, prefix := range []string{" \n", "// comment\n", "/* comment */"} {
			if p := DetectFormat("g.txt", append([]byte(prefix), src...)); p != got {
				t.Errorf("DetectFormat(%q) = %v, but %v after %q", src, got, p, prefix)
			}
		}
		for name, want := range map[string]Format{"g.g4": ANTLR, "g.json": JSON, "g.grammar": Arbor} {
			if f := DetectFormat(name, src); f != want {
				t.Errorf("DetectFormat(%q, %q) = %v", name, src, f)
			}
		}
	})
}
