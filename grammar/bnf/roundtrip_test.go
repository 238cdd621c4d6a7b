package bnf_test

import (
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/bnf"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestRoundTrip writes every bundled grammar as JSON and reads it back.
// The rules keep their names (more are added for groups and
// repetitions); inputs generated from the JSON grammar parse with the
// original, and where no character class was cut down to its ASCII
// members (no warning), inputs of the original parse with the JSON one.
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
			js, warnings := bnf.FormatJSON(ast)
			back, err := bnf.ParseJSON(info.Name+".json", js)
			if err != nil {
				t.Fatalf("%v\n%s", err, js)
			}
			orig, err := grammar.Build(ast)
			if err != nil {
				t.Fatal(err)
			}
			g, err := grammar.Build(back)
			if err != nil {
				t.Fatalf("%v\n%s", err, js)
			}
			have := map[string]bool{}
			for _, r := range g.Rules {
				have[r] = true
			}
			for _, r := range orig.Rules {
				if !have[r] {
					t.Errorf("rule %s lost", r)
				}
			}
			if g.Start != orig.Start {
				t.Errorf("start %s, was %s", g.Start, orig.Start)
			}
			crossParse(t, g, orig, 30)
			if len(warnings) == 0 {
				crossParse(t, orig, g, 30)
			} else {
				t.Logf("%d warnings: the JSON grammar has fewer inputs (%v)", len(warnings), warnings[0])
			}
		})
	}
}

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
