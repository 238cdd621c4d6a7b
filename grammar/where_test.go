package grammar

import (
	"strings"
	"testing"
)

func TestParseWhere(t *testing.T) {
	tests := []struct {
		name, src         string
		scope, expr       string
		exprLine, exprCol int
		err               string // substring of the error, "" for none
	}{
		{name: "scoped", src: "S := R ;\nR := \"a\" ;\nwhere R: len(R.text) <= 3 ;\n",
			scope: "R", expr: "len(R.text) <= 3", exprLine: 3, exprCol: 10},
		{name: "unscoped", src: "S := \"a\" ;\nwhere len(S) > 0 ;", expr: "len(S) > 0", exprLine: 2, exprCol: 7},
		{name: "semicolon inside braces and strings", src: "S := \"a\" ;\nwhere S: all(S, {let x = #; x.text != \";\"}) ;",
			scope: "S", expr: `all(S, {let x = #; x.text != ";"})`, exprLine: 2, exprCol: 10},
		{name: "ternary is not a scope", src: "S := \"a\" ;\nwhere x ? a : b ;", expr: "x ? a : b", exprLine: 2, exprCol: 7},
		{name: "rule named where", src: "S := where ;\nwhere := \"w\" ;", expr: ""},
		{name: "comment with semicolon", src: "S := \"a\" ;\nwhere S: true // a;b\n ;", scope: "S", expr: "true // a;b", exprLine: 2, exprCol: 10},
		{name: "not finished", src: "S := \"a\" ;\nwhere S: true", err: "2:10: the constraint is not finished"},
		{name: "empty", src: "S := \"a\" ;\nwhere S: ;", err: "2:10: the constraint has no expression"},
		{name: "open string", src: "S := \"a\" ;\nwhere S: S.text == \"a ;", err: "string in constraint is not closed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Parse("t.grammar", []byte(tc.src))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.expr == "" {
				if len(g.Where) != 0 {
					t.Fatalf("got %d clauses, want none", len(g.Where))
				}
				return
			}
			if len(g.Where) != 1 {
				t.Fatalf("got %d clauses, want 1", len(g.Where))
			}
			w := g.Where[0]
			if w.Scope != tc.scope || w.Expr != tc.expr || w.ExprPos.Line != tc.exprLine || w.ExprPos.Col != tc.exprCol {
				t.Errorf("got scope %q expr %q at %d:%d, want %q %q at %d:%d",
					w.Scope, w.Expr, w.ExprPos.Line, w.ExprPos.Col, tc.scope, tc.expr, tc.exprLine, tc.exprCol)
			}
			// Formatting and parsing again keeps the clause.
			again, err := Parse("t.grammar", []byte(Format(g)))
			if err != nil {
				t.Fatalf("formatted grammar does not parse: %v\n%s", err, Format(g))
			}
			if len(again.Where) != 1 || again.Where[0].Expr != w.Expr || again.Where[0].Scope != w.Scope {
				t.Errorf("format round trip changed the clause: %s", Format(g))
			}
		})
	}
}
