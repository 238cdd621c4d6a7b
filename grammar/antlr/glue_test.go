package antlr_test

import (
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestGlueGap converts grammars in which two tokens glued together begin
// a hidden token ('-' '-' a line comment, '/' '*' a block comment) and
// checks that the gap between them is GlueGap, which the parser reads as
// any hidden material or none but from which the generator always draws
// some: every generated input parses back, no GlueGap is drawn empty.
func TestGlueGap(t *testing.T) {
	tests := []struct {
		name   string
		g4     string
		glue   []string // formatted rule text that must hold a GlueGap
		plain  []string // formatted rule text that must hold a plain Gap
		accept []string
	}{
		{name: "line comment",
			g4: `grammar G;
s : e EOF ;
e : e '-' e | e '+' e | '-' e | INT ;
INT : [0-9]+ ;
LC : '--' ~[\r\n]* -> skip ;
WS : [ \t\r\n]+ -> skip ;
`,
			glue:   []string{`"-" _g`},
			plain:  []string{`"+" _ `},
			accept: []string{"1-2", "1 - -2", "1+-2", "--c\n1"}},
		{name: "block comment",
			g4: `grammar G;
s : e* EOF ;
e : ID '/' e | '*' e | '(' e ')' | ID ;
ID : [a-z]+ ;
BC : '/*' .*? '*/' -> channel(HIDDEN) ;
WS : [ \n]+ -> skip ;
`,
			glue:   []string{`"/" _g`},
			plain:  []string{`"*" _ `, `"(" _ `},
			accept: []string{"a/b", "a/ *b", "a/*c*/ *b", "(*a)"}},
		{name: "next token starts with the second character",
			// A number may start with '-': '-' before it glues. No token
			// ends in '#', which also starts a comment: no GlueGap for it.
			g4: `grammar G;
s : (ID | '-' | NUM)* EOF ;
ID : [a-z]+ ;
NUM : '-'? [0-9]+ ;
LC : '-' '-' ~[\n]* -> skip ;
HC : '#' ~[\n]* -> skip ;
WS : [ \n]+ -> skip ;
`,
			glue:   []string{`"-" _g`},
			plain:  []string{`NUM _`, `ID _`},
			accept: []string{"a-1", "1 -1", "1-1", "- -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ast := convertG4(t, "G.g4", tt.g4)
			text := grammar.Format(ast)
			for _, s := range tt.glue {
				if !strings.Contains(text, s) {
					t.Errorf("want %q in\n%s", s, text)
				}
			}
			for _, s := range tt.plain {
				if !strings.Contains(text, s) {
					t.Errorf("want %q in\n%s", s, text)
				}
			}
			g, err := grammar.Build(ast)
			if err != nil {
				t.Fatalf("build: %v\n%s", err, text)
			}
			for _, in := range tt.accept {
				if _, err := g.Parse([]byte(in)); err != nil {
					t.Errorf("parse %q: %v", in, err)
				}
			}
			gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
			glued := 0
			for i := 0; i < 200; i++ {
				tree := gen.Generate()
				in := tree.String()
				if _, err := g.Parse([]byte(in)); err != nil {
					t.Errorf("generated %q does not parse back: %v", in, err)
				}
				var walk func(*grammar.Tree)
				walk = func(x *grammar.Tree) {
					if x.Node.Kind == grammar.KindRef && x.Node.Name == antlr.GlueGap {
						glued++
						if x.String() == "" {
							t.Errorf("generated %q has an empty GlueGap", in)
						}
						return
					}
					for _, c := range x.Children {
						walk(c)
					}
				}
				walk(tree)
			}
			if glued == 0 {
				t.Errorf("no GlueGap generated")
			}
		})
	}
}
