package fuzz

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

func TestSpaced(t *testing.T) {
	for _, c := range []struct {
		lo, hi, n int
		want      []int
	}{
		{1, 3, 3, []int{1, 2, 3}},
		{1, 2, 3, []int{1, 2}},
		{1, 1, 3, []int{1}},
		{5, 3, 3, []int{3}},
		{4, 30, 3, []int{4, 17, 30}},
		{1, 5, 3, []int{1, 3, 5}},
		{1, 10, 4, []int{1, 4, 7, 10}},
		{1, 10, 1, []int{10}},
	} {
		n := c.n
		if n == 1 {
			// One level is the top alone.
			if got := spaced(c.hi, c.hi, 1); !reflect.DeepEqual(got, c.want) {
				t.Errorf("spaced(%d, %d, 1) = %v, want %v", c.hi, c.hi, got, c.want)
			}
			continue
		}
		if got := spaced(c.lo, c.hi, n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("spaced(%d, %d, %d) = %v, want %v", c.lo, c.hi, n, got, c.want)
		}
	}
}

// TestLattice checks the lattice's points and that each comes after the
// points below it on every axis, so that its seeds exist when it runs.
func TestLattice(t *testing.T) {
	g := jsonGraph(t)
	for _, c := range []struct {
		top    Bounds
		levels int
		size   int
	}{
		{Bounds{MaxDistinct: 3, MaxRepeat: 3, MaxDepth: 12}, 3, 27},
		{Bounds{MaxDistinct: 2, MaxRepeat: 5, MaxDepth: 30, MaxNodes: 500}, 3, 18},
		{Bounds{}, 0, 27},
		{Bounds{MaxDistinct: 1, MaxRepeat: 1, MaxDepth: 1}, 3, 1},
		{Bounds{MaxDistinct: 4, MaxRepeat: 4, MaxDepth: 20}, 2, 8},
	} {
		l := Lattice(g, c.top, c.levels)
		if len(l) != c.size {
			t.Errorf("%+v, %d levels: %d points, want %d: %v", c.top, c.levels, len(l), c.size, l)
			continue
		}
		top := TopBounds(c.top)
		last := l[len(l)-1]
		if c.size > 1 && (last.MaxDistinct != top.MaxDistinct || last.MaxRepeat != top.MaxRepeat || last.MaxDepth != top.MaxDepth) {
			t.Errorf("%+v: the last point is %+v, not the top", c.top, last)
		}
		seen := map[Bounds]bool{}
		for _, b := range l {
			if seen[b] {
				t.Fatalf("%+v: %+v twice", c.top, b)
			}
			if b.MaxNodes != c.top.MaxNodes {
				t.Errorf("%+v: MaxNodes %d, want the top's", c.top, b.MaxNodes)
			}
			for _, p := range l {
				below := p.MaxDistinct <= b.MaxDistinct && p.MaxRepeat <= b.MaxRepeat && p.MaxDepth <= b.MaxDepth && p != b
				if below && !seen[p] {
					t.Errorf("%+v: %+v comes before %+v, which is below it", c.top, b, p)
				}
			}
			seen[b] = true
		}
	}
}

// TestBonsai checks a lattice campaign: its budget is shared exactly,
// every campaign after the first starts from its predecessors' inputs,
// smallest first, the corpus is the top campaign's, and the same seed
// gives the same campaign.
func TestBonsai(t *testing.T) {
	g := jsonGraph(t)
	run := func() (*BonsaiResult, *prefixRunner, []BonsaiStep) {
		p := &prefixRunner{}
		var steps []BonsaiStep
		var kept []Entry
		opts := BonsaiOptions{
			Options: Options{Seed: 3, Execs: 8000, Bounds: Bounds{MaxDistinct: 2, MaxRepeat: 3, MaxDepth: 10},
				Kept: func(e Entry) error { kept = append(kept, e); return nil }},
			Levels: 2,
			Step:   func(s BonsaiStep) { steps = append(steps, s) },
		}
		res, err := Bonsai(context.Background(), g, p, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) != len(res.Corpus) {
			t.Errorf("Kept was told of %d inputs, the corpus has %d: it must hear of the top campaign's only", len(kept), len(res.Corpus))
		}
		return res, p, steps
	}
	res, p, steps := run()
	if res.Execs != 8000 || len(p.inputs) != 8000 {
		t.Errorf("%d executions (%d runs), want the budget, 8000", res.Execs, len(p.inputs))
	}
	if len(steps) != 8 || len(res.Steps) != 8 {
		t.Fatalf("%d steps told, %d in the result, want 8", len(steps), len(res.Steps))
	}
	sum := 0
	for i, s := range res.Steps {
		sum += s.Stats.Execs
		if s.Stats.Execs < 8000/8 || s.Stats.Execs > 8000/8+8 {
			t.Errorf("step %d ran %d executions, want about %d", i, s.Stats.Execs, 8000/8)
		}
		if i > 0 && s.Seeds == 0 {
			t.Errorf("step %d (%+v) started from no seeds", i, s.Bounds)
		}
	}
	if sum != res.Execs {
		t.Errorf("steps ran %d executions, the result says %d", sum, res.Execs)
	}
	// The top campaign's first executions are its seeds, smallest first.
	top := res.Steps[len(res.Steps)-1]
	start := res.Execs - top.Stats.Execs
	firsts := p.inputs[start : start+top.Seeds]
	if !slices.IsSortedFunc(firsts, func(a, b []byte) int { return len(a) - len(b) }) {
		t.Errorf("the top campaign's seeds did not run smallest first")
	}
	bytes := 0
	for _, e := range res.Corpus {
		bytes += len(e.Input)
	}
	if top.Bytes != bytes || top.Stats.Corpus != len(res.Corpus) {
		t.Errorf("the corpus (%d inputs, %d bytes) is not the top campaign's (%d, %d)", len(res.Corpus), bytes, top.Stats.Corpus, top.Bytes)
	}
	again, _, _ := run()
	if !reflect.DeepEqual(inputsOf(res.Corpus), inputsOf(again.Corpus)) {
		t.Errorf("the same seed gave another corpus")
	}
}

func inputsOf(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, string(e.Input))
	}
	return out
}

func TestBonsaiBudget(t *testing.T) {
	g := jsonGraph(t)
	for _, opts := range []BonsaiOptions{
		{},
		{Options: Options{Execs: -1}},
		{Options: Options{Execs: 5}}, // 27 campaigns
	} {
		if _, err := Bonsai(context.Background(), g, &prefixRunner{}, opts); err == nil {
			t.Errorf("%+v: no error", opts.Options)
		}
	}
}
