package fuzz

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestSeedsFromInputs: seeds derived from inputs make a campaign's first
// executions run exactly those inputs, under the bounds they were
// derived for (a distinct-value bound included, whose reuse decisions
// the seeds must carry); inputs that do not parse or do not fit the
// bounds get an error naming their index, and no seed.
func TestSeedsFromInputs(t *testing.T) {
	g := jsonGraph(t)
	for _, b := range []Bounds{{}, {MaxDepth: 14, MaxDistinct: 2}} {
		gen := synth.NewGenerator(g, synth.NewRandom(11), synth.RandomPolicy)
		b.configure(gen)
		inputs := [][]byte{
			[]byte(`{"a": [1, 2.5E+3], "b": "a"}`),
			[]byte(`[1, 2`),                    // does not parse
			[]byte(`[1, 2, 3, 4, 5, 6, 7, 8]`), // 7 repetitions of ("," Element)
		}
		var want []string
		want = append(want, string(inputs[0]))
		for range 8 {
			text := gen.Generate().String()
			inputs = append(inputs, []byte(text))
			want = append(want, text)
		}
		seeds, errs := SeedsFromInputs(g, inputs, b)
		if len(errs) != 2 {
			t.Fatalf("bounds %+v: errors %v, want two", b, errs)
		}
		for k, wantIndex := range []int{1, 2} {
			var ie *InputError
			if !errors.As(errs[k], &ie) || ie.Index != wantIndex {
				t.Fatalf("bounds %+v: error %d is %v, want one of input %d", b, k, errs[k], wantIndex)
			}
		}
		if !strings.Contains(errs[0].Error(), "does not parse") || !strings.Contains(errs[1].Error(), "needs 7 repetitions") {
			t.Errorf("bounds %+v: errors %q, %q do not say why", b, errs[0], errs[1])
		}
		if len(seeds) != len(want) {
			t.Fatalf("bounds %+v: %d seeds, want %d", b, len(seeds), len(want))
		}
		p := &prefixRunner{}
		if _, err := Fuzz(context.Background(), g, p, Options{Seed: 1, Execs: len(seeds) + 10, Seeds: seeds, Bounds: b}); err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if got := string(p.inputs[i]); got != w {
				t.Fatalf("bounds %+v: execution %d ran %q, want seed %q", b, i+1, got, w)
			}
		}
	}
}

// TestSeedsFromAmbiguousInputs: where the parser's tree needs more
// depth than the bound and another tree of the same text does
// not, the seed comes from the other tree. expr's "++" and "--" are
// also "+" "+" and "-" "-": the parser's first tree of "++---++x" takes
// single signs throughout, one rule expansion deeper each, past a depth
// bound that a tree with "++" or "--" fits.
func TestSeedsFromAmbiguousInputs(t *testing.T) {
	g, err := datasets.Grammar("expr")
	if err != nil {
		t.Fatal(err)
	}
	gen := synth.NewGenerator(g, synth.NewRandom(5), synth.RandomPolicy)
	gen.MaxDepth = 10
	var inputs [][]byte
	for range 30 {
		inputs = append(inputs, []byte(gen.Generate().String()))
	}
	p := g.NewParser()
	first := 0
	for _, in := range inputs {
		tree, err := p.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gen.ChoicesOf(tree); err == nil {
			first++
		}
	}
	seeds, errs := SeedsFromInputs(g, inputs, Bounds{MaxDepth: 10})
	t.Logf("%d of %d inputs derive from the parser's tree, %d from some tree", first, len(inputs), len(seeds))
	if len(seeds) <= first {
		t.Errorf("other trees gave no more seeds (%d) than the parser's trees (%d)", len(seeds), first)
	}
	for _, err := range errs {
		if !strings.Contains(err.Error(), "parse trees fits") {
			t.Errorf("error %q does not say other trees were tried", err)
		}
	}
}
