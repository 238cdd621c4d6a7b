package synth_test

import (
	"testing"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// branching is a precedence-stratified expression grammar as the ANTLR
// importer writes one, with a gap of hidden material after every token:
// its binary alternatives branch, so that the depth bound alone lets a
// tree grow to the size budget, and each gap is one regex terminal that
// draws a run of runs of white space.
const branching = `
expr := expr_1 "^" _ expr_2 | expr "+" _ expr_1 | expr_1 "*" _ expr_2 | "(" _ expr ")" _ | Num ;
expr_1 := expr_1 "*" _ expr_2 | expr_2 "^" _ expr_2 | "(" _ expr ")" _ | Num ;
expr_2 := "(" _ expr ")" _ | "-" _ expr_2 | Num ;
Num := /[0-9]+(?:\.[0-9]+)?/ _ ;
_ := /(?:[\t\n\r ]+)*/ ;
`

// TestSizeBudgetCountsCharacters checks that an input's length stays
// within its node budget: a terminal counts as many nodes as it has
// characters, so that a gap of 25 spaces is not one node. Past the
// budget the generator closes the tree off with the shortest choices,
// which adds a few nodes for each open level; the tree's other nodes
// count too, so that an input is no longer than the budget, and a tree
// at most twice as many nodes. (Counting a gap as one node, a
// budget of 10,000 made inputs of 10,800 characters, most of them white
// space.)
func TestSizeBudgetCountsCharacters(t *testing.T) {
	g := fixture.Build(t, "branching.grammar", branching)
	for _, budget := range []int{100, 1000, 10000} {
		gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
		gen.MaxNodes = budget
		longest := 0
		for i := 0; i < 50; i++ {
			tr := gen.Generate()
			text := tr.String()
			n := utf8.RuneCountInString(text)
			longest = max(longest, n)
			if n > budget {
				t.Fatalf("budget %d: input of %d characters", budget, n)
			}
			if s := tr.Size(); s > 2*budget {
				t.Fatalf("budget %d: tree of %d nodes", budget, s)
			}
		}
		t.Logf("budget %d: longest input %d characters", budget, longest)
	}
}
