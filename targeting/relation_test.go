package targeting_test

import (
	"context"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/targeting"
)

// declGrammar declares and prints two-letter names; its program runs
// "resolved" only when a print names a declaration made before it, a
// relation between two places that random inputs meet about once in a
// hundred and no k-path can state.
const declGrammar = `Doc := Item (";" Item){,4} ;
Item := Decl | Use ;
Decl := "let " VarDecl ;
Use := "print " VarUse ;
VarDecl := Name ;
VarUse := Name ;
Name := /[a-z]{2}/ ;
`

var declFunctions = []string{"doc", "resolved"}

type declProgram struct{}

func (declProgram) Functions() []string { return declFunctions }

func (declProgram) Run(_ context.Context, input []byte) (*coverage.Result, error) {
	return &coverage.Result{Outcome: coverage.OK, Covered: declCovers(string(input))}, nil
}

func declCovers(s string) []int {
	declared := map[string]bool{}
	for _, item := range strings.Split(s, ";") {
		if name, ok := strings.CutPrefix(item, "let "); ok {
			declared[name] = true
		} else if name, ok := strings.CutPrefix(item, "print "); ok && declared[name] {
			return []int{0, 1}
		}
	}
	return []int{0}
}

func declModel(t testing.TB, kinds features.Kinds) *learn.Predictor {
	t.Helper()
	return modelOf(t, "decl", declGrammar, declFunctions, declCovers, 3000, 5, kinds)
}

// TestPursueRelation (issue 27): a model with Match features names the
// relation, and the loop solves it as a where clause: it reaches the
// function with every seed, mostly through inputs solved for the
// relation, where a k-path model depends on the luck of random names.
func TestPursueRelation(t *testing.T) {
	const seeds, budget = 4, 40
	reached, solved := map[string]int{}, map[string]int{}
	for _, kinds := range []features.Kinds{features.KPaths, features.KPaths.With(features.Match)} {
		p := declModel(t, kinds)
		for seed := uint64(1); seed <= seeds; seed++ {
			loop, err := targeting.NewLoop(p, declProgram{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := loop.Pursue(context.Background(), "resolved", targeting.PursueOptions{Want: 3, Budget: budget, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Inputs) == 3 {
				reached[kinds.String()]++
			}
			solved[kinds.String()] += res.Hits["constraint"]
			t.Logf("%s, seed %d: %d inputs in %d executions; sources %v hits %v", kinds, seed, len(res.Inputs), res.Executions, res.Sources, res.Hits)
		}
	}
	if got := reached["kpath,match"]; got < seeds {
		t.Errorf("with match features the loop reached the function with %d of %d seeds", got, seeds)
	}
	// The hits come from solving the relation, not from random inputs
	// and mutants, which find the function for a k-path model too.
	if got := solved["kpath,match"]; got < 2*seeds {
		t.Errorf("with match features %d of the hits came from solving constraints, want at least %d", got, 2*seeds)
	}
}
