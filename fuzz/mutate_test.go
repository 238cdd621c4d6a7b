package fuzz

import (
	"context"
	"crypto/sha256"
	"fmt"
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
	r := newRealizer(g, Bounds{}, newStreams())
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

// TestMutatorDraws pins the mutator's random draws: digests of the
// sequences and inputs that a fixed seed's mutations give, and of a
// campaign's corpus and failures, recorded from the mutator as it was
// before it came to share its geometric draw with synth.Mutator. A
// campaign's results for a seed depend on every one of these draws, so
// a change that moves one changes them: it must be deliberate, and
// record the new digests here.
func TestMutatorDraws(t *testing.T) {
	g := jsonGraph(t)
	r := newRealizer(g, Bounds{MaxNodes: 300}, newStreams())
	h := sha256.New()
	for _, m := range []*mutator{
		{r: rand.New(rand.NewPCG(1, 2)), meanSpans: 2, meanLength: 4},
		{r: rand.New(rand.NewPCG(3, 4)), meanSpans: 1, meanLength: 9},
	} {
		var pool []*derivation
		for salt := range uint64(8) {
			pool = append(pool, r.realize(&sequence{salt: salt}))
		}
		for i := range 300 {
			p := pool[(i*5)%len(pool)]
			slots := p.slots
			if i%3 == 1 && len(slots) > 0 {
				k := i % len(slots)
				slots = slots[k : k+1] // as for FairFuzz's trials
			}
			seq := m.mutate(p.seq, slots)
			d := r.realize(seq)
			fmt.Fprintf(h, "%d %v\n%q %v\n", seq.salt, seq.streams, d.text, d.choices)
			pool = append(pool, d)
		}
	}
	if got, want := fmt.Sprintf("%x", h.Sum(nil))[:16], "9c84c1baf0a9186c"; got != want {
		t.Errorf("the mutations' draws changed: digest %s, want %s", got, want)
	}

	res, err := Fuzz(context.Background(), g, &prefixRunner{}, Options{Seed: 3, Execs: 1500, Rare: true})
	if err != nil {
		t.Fatal(err)
	}
	h.Reset()
	for _, e := range res.Corpus {
		fmt.Fprintf(h, "%q %v\n", e.Input, e.Choices)
	}
	for _, f := range res.Failures {
		fmt.Fprintf(h, "%+v\n", f)
	}
	if got, want := fmt.Sprintf("%x", h.Sum(nil))[:16], "68e4f464ef3603ec"; got != want {
		t.Errorf("the campaign changed: digest %s, want %s", got, want)
	}
}
