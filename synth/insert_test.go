package synth

import (
	"strings"
	"testing"
)

// TestInsert: insert adds one repetition, generated anew, right before
// the one that holds the broken node, to a quantifier that allows one
// more; the tree stays an input of the grammar; undoing it gives the
// tree back; a quantifier at its bound gets none.
func TestInsert(t *testing.T) {
	const src = `Prog := Stmt{1,3} ;
Stmt := "d" Name ";" | "u" Use ";" ;
Use := Name ;
Name := "a" | "b" ;
where all(Use, {let u = #; any(Name, {before(#, u) && .text == u.text})}) ;`
	tests := []struct {
		input string
		ok    bool   // a quantifier allows one more
		after string // the text after the inserted statement
	}{
		{"ua;", true, "ua;"},
		{"da;ub;", true, "ub;"},
		{"db;db;ua;", false, ""}, // Stmt{1,3} is full
	}
	for _, tc := range tests {
		t.Run(tc.input, func(t *testing.T) {
			g, set := constrained(t, src)
			sat := NewSatisfier(set, 5, nil)
			for range 20 {
				tree, err := g.Parse([]byte(tc.input))
				if err != nil {
					t.Fatal(err)
				}
				vs := sat.check.Check(tree)
				if len(vs) != 1 {
					t.Fatalf("violations %v", vs)
				}
				sat.undo = sat.undo[:0]
				if got := sat.insert(tree, vs[0].At); got != tc.ok {
					t.Fatalf("insert = %v, want %v", got, tc.ok)
				}
				if !tc.ok {
					continue
				}
				text := tree.String()
				if _, err := g.Parse([]byte(text)); err != nil {
					t.Fatalf("%q is not an input of the grammar: %v", text, err)
				}
				before := strings.TrimSuffix(tc.input, tc.after)
				stmt, ok := strings.CutPrefix(strings.TrimSuffix(text, tc.after), before)
				if !ok || !strings.HasSuffix(text, tc.after) || strings.Count(stmt, ";") != 1 {
					t.Fatalf("%q: want one statement inserted before %q", text, tc.after)
				}
				for i := len(sat.undo) - 1; i >= 0; i-- {
					sat.undo[i]()
				}
				if got := tree.String(); got != tc.input {
					t.Fatalf("undone: %q, want %q", got, tc.input)
				}
			}
		})
	}
}
