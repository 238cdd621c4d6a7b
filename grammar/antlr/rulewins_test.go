package antlr_test

import (
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
)

// TestFirstRuleWins checks that a one-character token loses to earlier
// one-character tokens the characters they match, as in ANTLR's lexer,
// so that a catch-all token makes no second reading of them.
func TestFirstRuleWins(t *testing.T) {
	tests := []struct {
		name, g4 string
		want     string // the converted OTHER rule
		unique   []string
	}{
		{name: "catch-all after literals",
			g4: `grammar G;
s : (A | B | D | OTHER)* EOF ;
A : 'a' ;
B : 'b' ;
D : [0-9] ;
OTHER : . ;
`,
			want:   `OTHER := /[^0-9ab]/ ;`,
			unique: []string{"ab1", "a-b", "zz9"}},
		{name: "case-insensitive and hidden",
			g4: `grammar G;
options { caseInsensitive = true; }
s : (X | OTHER)* EOF ;
X : 'x' ;
WS : ' ' -> skip ;
OTHER : ~[\n] ;
`,
			want:   `OTHER := /[^\n Xx]/ ;`,
			unique: []string{"xX y", " q"}},
		{name: "earlier longer token is left alone",
			// 'ab' matches more than one character: not a set, not taken.
			g4: `grammar G;
s : (AB | OTHER)* EOF ;
AB : 'ab' ;
OTHER : [a-c] ;
`,
			want: `OTHER := /[a-c]/ ;`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ast := convertG4(t, "G.g4", tt.g4)
			text := grammar.Format(ast)
			if !strings.Contains(text, tt.want) {
				t.Fatalf("want %q in\n%s", tt.want, text)
			}
			g, err := grammar.Build(ast)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range tt.unique {
				trees, err := g.ParseAll([]byte(in), 2)
				if err != nil {
					t.Errorf("parse %q: %v", in, err)
					continue
				}
				if len(trees) != 1 {
					t.Errorf("%q has %d parses, want 1", in, len(trees))
				}
			}
			checkGenerated(t, g, 100, 100)
		})
	}
}
