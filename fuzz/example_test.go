package fuzz_test

import (
	"context"
	"fmt"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/fuzz"
)

// nesting is a made-up subject: function d runs when the input nests
// arrays d+1 deep, and nesting four deep crashes it. A real subject is a
// coverage.SessionRunner over a coverage.Session.
type nesting struct{}

func (nesting) Functions() []string { return []string{"depth1", "depth2", "depth3", "depth4"} }

func (nesting) Run(_ context.Context, in []byte) (*coverage.Result, error) {
	r := &coverage.Result{Outcome: coverage.OK}
	depth, deepest := 0, 0
	for _, c := range in {
		switch c {
		case '[':
			depth++
			deepest = max(deepest, depth)
		case ']':
			depth--
		}
	}
	for d := range min(deepest, 4) {
		r.Covered, r.Counts = append(r.Covered, d), append(r.Counts, 1)
	}
	if deepest >= 4 {
		r.Outcome, r.Stack, r.Message = coverage.Panic, "deep", "nested too deep"
	}
	return r, nil
}

func ExampleFuzz() {
	g, err := datasets.Grammar("json")
	if err != nil {
		panic(err)
	}
	res, err := fuzz.Fuzz(context.Background(), g, nesting{}, fuzz.Options{
		Seed: 1, Execs: 2000, Bounds: fuzz.Bounds{MaxDepth: 20},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("executions:", res.Execs)
	for _, f := range res.Failures {
		fmt.Printf("failure %q: %s\n", f.Stack, f.Message)
	}
	// Output:
	// executions: 2000
	// failure "deep": nested too deep
}
