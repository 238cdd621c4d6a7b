package fuzz

import (
	"bytes"
	"context"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// lengthRunner accepts every input and runs function i for an input of
// at least 4i bytes, so that longer inputs are kept.
type lengthRunner struct{ inputs [][]byte }

func (*lengthRunner) Functions() []string { return []string{"a", "b", "c", "d", "e", "f", "g", "h"} }

func (l *lengthRunner) Run(ctx context.Context, in []byte) (*coverage.Result, error) {
	l.inputs = append(l.inputs, bytes.Clone(in))
	r := &coverage.Result{Outcome: coverage.OK}
	for i := 0; i < 8 && len(in) >= 4*i; i++ {
		r.Covered = append(r.Covered, i)
		r.Counts = append(r.Counts, 1)
	}
	return r, nil
}

// TestFuzzConstraints (issue 26): with constraints, every input the
// campaign runs satisfies them (mutants that break one are repaired or
// dropped, and counted), kept inputs replay from their choices, and a
// constraint nothing satisfies does not stop or hang a campaign with an
// execution budget.
func TestFuzzConstraints(t *testing.T) {
	const ranges = `Ranges := Range (" " Range){,6} ;
Range := Start "-" End ;
Start := Num ; End := Num ;
Num := /[0-9]{1,2}/ ;
`
	t.Run("satisfied", func(t *testing.T) {
		g := fixture.Build(t, "r.grammar", ranges+"where Range: Start.num <= End.num ;\n")
		set, err := constraint.Compile(g)
		if err != nil {
			t.Fatal(err)
		}
		check := constraint.NewChecker(set)
		run := func() (*Result, *lengthRunner) {
			l := &lengthRunner{}
			res, err := Fuzz(context.Background(), g, l, Options{Seed: 5, Execs: 600, Constraints: set})
			if err != nil {
				t.Fatal(err)
			}
			return res, l
		}
		res, l := run()
		for _, in := range l.inputs {
			tree, err := g.Parse(in)
			if err != nil {
				t.Fatalf("%q does not parse: %v", in, err)
			}
			if vs := check.Check(tree); len(vs) > 0 && res.BrokenRuns == 0 {
				t.Fatalf("%q breaks %v", in, vs[0])
			}
		}
		if res.Repaired == 0 {
			t.Errorf("no input was repaired (dropped %d): the constraint breaks for most random ranges", res.Dropped)
		}
		for _, e := range res.Corpus {
			got := synth.NewGenerator(g, &synth.Replay{Choices: e.Choices}, synth.RandomPolicy).Generate().String()
			if got != string(e.Input) {
				t.Fatalf("kept input %q replays to %q", e.Input, got)
			}
		}
		again, _ := run()
		if again.Execs != res.Execs || again.Repaired != res.Repaired || again.Dropped != res.Dropped || len(again.Corpus) != len(res.Corpus) {
			t.Errorf("not deterministic: %+v then %+v", res.Stats, again.Stats)
		}
		t.Logf("execs %d, repaired %d, dropped %d, broken runs %d", res.Execs, res.Repaired, res.Dropped, res.BrokenRuns)
	})
	t.Run("large random inputs", func(t *testing.T) {
		// A random input of hundreds of Ns (E branches more than it
		// ends, up to the size bound) breaks the clause at every
		// other one, more than a repair mends: the campaign draws
		// smaller fresh inputs, which it can repair, and runs no
		// broken one. Nearly all inputs are fresh: few are dropped.
		g := fixture.Build(t, "n.grammar", `S := E ;
E := "(" E{1,6} ")" | N ;
N := "x" | "y" ;
where all(N, {.text == "x"}) ;
`)
		set, err := constraint.Compile(g)
		if err != nil {
			t.Fatal(err)
		}
		l := &lengthRunner{}
		res, err := Fuzz(context.Background(), g, l, Options{Seed: 2, Execs: 100, Fresh: 0.95, Constraints: set})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range l.inputs {
			if bytes.Contains(in, []byte("y")) {
				t.Fatalf("ran %q, which breaks the clause (execs %d, repaired %d, dropped %d, broken runs %d)", in, res.Execs, res.Repaired, res.Dropped, res.BrokenRuns)
			}
		}
		if res.Execs != 100 || res.BrokenRuns > 0 || res.Dropped > 10 {
			t.Errorf("execs %d, broken runs %d, dropped %d; want 100, 0, at most 10", res.Execs, res.BrokenRuns, res.Dropped)
		}
		for _, e := range res.Corpus {
			got := synth.NewGenerator(g, &synth.Replay{Choices: e.Choices}, synth.RandomPolicy).Generate().String()
			if got != string(e.Input) {
				t.Fatalf("kept input %q replays to %q", e.Input, got)
			}
		}
	})
	t.Run("unsatisfiable", func(t *testing.T) {
		g := fixture.Build(t, "r.grammar", ranges+"where Range: Start.num > 100 ;\n")
		set, err := constraint.Compile(g)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Fuzz(context.Background(), g, &lengthRunner{}, Options{Seed: 1, Execs: 20, Constraints: set})
		if err != nil {
			t.Fatal(err)
		}
		if res.Execs != 20 || res.BrokenRuns != 20 || res.Dropped != 20*synth.MaxDrops {
			t.Errorf("execs %d, broken runs %d, dropped %d; want 20, 20, %d", res.Execs, res.BrokenRuns, res.Dropped, 20*synth.MaxDrops)
		}
	})
}
