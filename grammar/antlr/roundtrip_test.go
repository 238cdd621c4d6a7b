package antlr_test

import (
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestRoundTrip writes every bundled grammar as .g4 and converts it
// back: the rules keep their names, and inputs generated from either
// grammar parse with the other.
func TestRoundTrip(t *testing.T) {
	for _, info := range datasets.Grammars() {
		t.Run(info.Name, func(t *testing.T) {
			src, err := datasets.GrammarSource(info.Name)
			if err != nil {
				t.Fatal(err)
			}
			ast, err := grammar.Parse(info.Name+".grammar", src)
			if err != nil {
				t.Fatal(err)
			}
			g4, _ := antlr.Format(ast)
			f, err := antlr.Parse(info.Name+".g4", g4)
			if err != nil {
				t.Fatalf("%v\n%s", err, g4)
			}
			back, _, err := antlr.Convert(f)
			if err != nil {
				t.Fatalf("%v\n%s", err, g4)
			}
			orig, err := grammar.Build(ast)
			if err != nil {
				t.Fatal(err)
			}
			g, err := grammar.Build(back)
			if err != nil {
				t.Fatalf("%v\n%s", err, grammar.Format(back))
			}
			if len(g.Rules) != len(orig.Rules) {
				t.Errorf("%d rules back, %d before", len(g.Rules), len(orig.Rules))
			}
			for i, r := range orig.Rules {
				if i < len(g.Rules) && g.Rules[i] != r {
					t.Errorf("rule %d is %s, was %s", i, g.Rules[i], r)
				}
			}
			crossParse(t, orig, g, 30)
			crossParse(t, g, orig, 30)
		})
	}
}

// crossParse generates n small inputs from a and parses them with b.
func crossParse(t *testing.T, a, b *grammar.Graph, n int) {
	t.Helper()
	gen := synth.NewGenerator(a, synth.NewRandom(7), synth.RandomPolicy)
	gen.MaxNodes = 300
	for i := 0; i < n; i++ {
		in := gen.Generate().String()
		if _, err := b.Parse([]byte(in)); err != nil {
			t.Errorf("%q: %v", in, err)
			return
		}
	}
}
