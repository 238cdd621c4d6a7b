package constraint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
)

// graphOf builds a grammar written in a test.
func graphOf(t *testing.T, src string) *grammar.Graph {
	t.Helper()
	g, _, err := build(t, src)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestOccurrences checks how often a rule occurs in one occurrence of a
// scope, recursion included: a chain of unary operators derives one
// operand however long it is, a nested occurrence of the scope holds its
// own operands, and a repetition many. (The search this replaced said
// many and optional wherever a rule recursed: x in - - x.)
func TestOccurrences(t *testing.T) {
	g := graphOf(t, `
S := E ";" L ";" O ";" P ;
E := E "+" T | T ;
T := "-" T | "(" E ")" | Id ;
Id := /[a-z]/ ;
L := Id ("," Id)* ;
O := Id? "." ;
P := Id "=" Id ;
`)
	tests := []struct {
		scope, sym string
		most       int
		optional   bool
	}{
		{"T", "Id", 1, true},    // - - x, or ( E ), whose Id is E's
		{"E", "Id", 1, true},    // E + T: the nested E's are its own
		{"E", "T", many, false}, // - - x is three Ts, none a scope
		{"L", "Id", many, false},
		{"O", "Id", 1, true},
		{"P", "Id", many, false},
		{"S", "E", many, false},  // E + T nests an E, which is no scope here
		{"S", "Id", many, false}, // L's and P's
		{"S", "T", many, false},
		{"E", "Nothing", 0, true},
	}
	for _, tt := range tests {
		most, optional := occurrences(g, tt.scope, tt.sym)
		if most != tt.most || optional != tt.optional {
			t.Errorf("%s in %s: at most %d, optional %v; want %d, %v", tt.sym, tt.scope, most, optional, tt.most, tt.optional)
		}
	}
}

// TestOccurrencesLargeCycle: 40 rules that all reach one another, as an
// expression language's do. A search along every path through them took
// exponential time (cel's grammar did not compile in 9 minutes); the
// fixpoint takes a few rounds.
func TestOccurrencesLargeCycle(t *testing.T) {
	const n = 40
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "R%d := R%d \"a\" R%d | \"(\" R%d \")\" | Leaf ;\n", i, (i+1)%n, (i+2)%n, (i+3)%n)
	}
	b.WriteString("Leaf := /[0-9]/ ;\nTop := R0 ;\n")
	g := graphOf(t, "Start := Top ;\n"+b.String())
	if most, optional := occurrences(g, "Top", "Leaf"); most != many || optional {
		t.Errorf("Leaf in Top: at most %d, optional %v; want many and not optional", most, optional)
	}
	// In R0 itself, parentheses nest R3, R6, ... and, 3 steps at a time
	// round the cycle of 40, R0 again: a nested scope, whose leaves are
	// its own, so R0 may hold none.
	if most, optional := occurrences(g, "R0", "Leaf"); most != many || !optional {
		t.Errorf("Leaf in R0: at most %d, optional %v; want many and optional", most, optional)
	}
}
