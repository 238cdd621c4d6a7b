package eval

import (
	"crypto/sha256"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
)

// TestBlind: when whether a function runs depends on something no
// feature sees (here, the digit's value modulo 2 with only k-paths of a
// regex terminal), blind reports a pair of inputs with equal features and
// different outcomes.
func TestBlind(t *testing.T) {
	ast, err := grammar.Parse("b.grammar", []byte(`S := Word "=" Num ; Word := /[a-c]/ ; Num := /[0-9]/ ;`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	cov := &coverage.File{Header: coverage.NewHeader("b", []string{"even", "always"})}
	data := map[string][]byte{}
	for _, w := range "abc" {
		for d := '0'; d <= '9'; d++ {
			in := string(w) + "=" + string(d)
			sum := sha256.Sum256([]byte(in))
			h := string(sum[:])
			data[h] = []byte(in)
			covered := []int{1}
			if (d-'0')%2 == 0 {
				covered = []int{0, 1}
			}
			cov.Records = append(cov.Records, coverage.Record{Input: in, SHA256: h, Covered: covered, Outcome: coverage.OK})
		}
	}
	examples := learn.ParseExamples(g, cov, data)
	d := examples.Dataset(g, features.Options{MaxK: 2})
	fns, err := learn.Train(t.Context(), d, learn.TrainOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	res := &E3Result{PerFunction: []FunctionMetrics{{Function: fns[0].Name, BaseRate: 0.5, Balanced: 0.5}}}
	b := blind(d, fns, examples, res)
	if b == nil || b.Function != "even" || b.Conflicts != 1 || b.Distance != 0 || b.Covered != "a=0" || b.NotCovered != "a=1" {
		t.Errorf("blind = %+v; want even, 1 conflicting group, a=0 against a=1 at distance 0", b)
	}
	// With values, the digits are told apart: no conflict, and the tree
	// separates even from odd digits, so no leaf mixes them.
	d = examples.Dataset(g, features.Options{MaxK: 2, Kinds: features.KPaths.With(features.Value)})
	fns, err = learn.Train(t.Context(), d, learn.TrainOptions{Seed: 1, NoBalance: true, Options: learn.Options{MaxDepth: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if b := blind(d, fns, examples, res); b == nil || b.Conflicts != 0 || b.Covered != "" || b.Distance != -1 {
		t.Errorf("with values: blind = %+v; want no conflict and no mixed leaf", b)
	}
}
