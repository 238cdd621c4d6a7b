package synth_test

import (
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestMaxDistinct checks the bound on each regex terminal's distinct
// values in a tree, that it changes inputs only through RegexReuse
// decisions (so that replay reproduces them), and that without it the
// generator makes no such decision.
func TestMaxDistinct(t *testing.T) {
	for _, name := range bundled {
		g := fixture.Grammar(t, name)
		for _, bound := range []int{0, 1, 2, 3} {
			kinds := &kindCounter{C: synth.NewRandom(uint64(7 + bound))}
			rec := &synth.Recorder{C: kinds}
			gen := synth.NewGenerator(g, rec, synth.RandomPolicy)
			gen.MaxDistinct, gen.MaxDepth = bound, 12
			most := 0
			for i := 0; i < 60; i++ {
				rec.Choices = nil
				tree := gen.Generate()
				if bound > 0 {
					for id, vs := range distinctValues(tree) {
						if len(vs) > bound {
							t.Fatalf("%s, bound %d: terminal %d has %d distinct values in %q", name, bound, id, len(vs), tree.String())
						}
						most = max(most, len(vs))
					}
				}
				replay := &synth.Replay{Choices: rec.Choices}
				again := synth.NewGenerator(g, replay, synth.RandomPolicy)
				again.MaxDistinct, again.MaxDepth = bound, 12
				if got, want := again.Generate().String(), tree.String(); got != want || replay.Exhausted {
					t.Fatalf("%s, bound %d: replay gave %q, want %q", name, bound, got, want)
				}
			}
			if bound == 0 && kinds.n[synth.RegexReuse] > 0 {
				t.Errorf("%s: %d RegexReuse decisions without a bound", name, kinds.n[synth.RegexReuse])
			}
			if bound > 0 && most > 0 && kinds.n[synth.RegexReuse] == 0 {
				t.Errorf("%s, bound %d: terminals repeat but no RegexReuse decision was made", name, bound)
			}
		}
	}
}

// TestMaxDistinctReuses checks that a small bound makes values repeat: on
// a list of numbers, the bound 1 gives one number however long the list.
func TestMaxDistinctReuses(t *testing.T) {
	g := fixture.Build(t, "nums", `Start := Num ("," Num)* ;
Num := /[0-9]{3}/ ;`)
	gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
	gen.MaxDistinct, gen.MaxRepeat = 1, 8
	long := 0
	for range 50 {
		tree := gen.Generate()
		for _, vs := range distinctValues(tree) {
			if len(vs) != 1 {
				t.Fatalf("%q has %d distinct numbers, want 1", tree.String(), len(vs))
			}
		}
		if len(tree.String()) > 3 {
			long++
		}
	}
	if long == 0 {
		t.Fatal("no input had more than one number: the test checks nothing")
	}
}

type kindCounter struct {
	C synth.Chooser
	n [8]int
}

func (k *kindCounter) Choose(p synth.Point) int {
	k.n[p.Kind]++
	return k.C.Choose(p)
}

// distinctValues maps each regex node of the tree to its distinct values.
func distinctValues(t *grammar.Tree) map[int]map[string]bool {
	out := map[int]map[string]bool{}
	var walk func(*grammar.Tree)
	walk = func(t *grammar.Tree) {
		if t.Node.Kind == grammar.KindRegex {
			if out[t.Node.ID] == nil {
				out[t.Node.ID] = map[string]bool{}
			}
			out[t.Node.ID][t.Value] = true
		}
		for _, c := range t.Children {
			walk(c)
		}
	}
	walk(t)
	return out
}
