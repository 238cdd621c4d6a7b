package fuzz

import (
	"math/rand/v2"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
)

// TestMutantsGrowAfresh checks that mutants which grow a repetition
// their parent left empty draw the new elements afresh, as Zest does,
// rather than all from their parent's salt: with the parent's salt every
// mutant that added an element added the same one.
func TestMutantsGrowAfresh(t *testing.T) {
	ast, err := grammar.Parse("letters", []byte(`S := X* ;
X := "a" | "b" | "c" | "d" | "e" | "f" | "g" | "h" ;`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	r := newRealizer(g, Bounds{})
	var parent *derivation
	for salt := uint64(1); parent == nil; salt++ {
		if d := r.realize(&sequence{salt: salt}); len(d.text) == 0 {
			parent = d
		}
	}
	m := &mutator{r: rand.New(rand.NewPCG(1, 2)), meanSpans: 2, meanLength: 4}
	firsts := map[byte]int{}
	grown := 0
	for range 200 {
		d := r.realize(m.mutate(parent.seq, parent.slots))
		if len(d.text) > 0 {
			grown++
			firsts[d.text[0]]++
		}
	}
	if grown < 20 {
		t.Fatalf("only %d of 200 mutants grew the list: the test checks nothing", grown)
	}
	if len(firsts) < 4 {
		t.Errorf("the %d mutants that grew the list began it with %d distinct letters (%v), want most of the 8", grown, len(firsts), firsts)
	}
}
