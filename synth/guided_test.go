package synth

import (
	"context"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
)

// TestMakeGuided: with a Guide that makes the generator's choices,
// Make rewards it for every tree it draws, and the guide learns the
// choices that satisfy the clauses: its inputs are drawn satisfying
// far more often than unguided ones, every input satisfies the
// clauses, and each replays from the choices recorded (as drawn) or
// read off the tree (repaired).
func TestMakeGuided(t *testing.T) {
	// Each item is one of six words and the clause wants every item to
	// be a or b: a random document of up to 6 items satisfies it about
	// one time in six.
	g, set := constrained(t, `Doc := Item (" " Item){,5} ;
Item := "a" | "b" | "c" | "d" | "e" | "f" ;
where all(Item, {.text in ["a", "b"]}) ;`)
	check := constraint.NewChecker(set)
	const n, part = 600, 200
	for _, seed := range []uint64{1, 2, 3} {
		var asDrawn [2][3]int // [guided][first, middle, last part of the inputs]
		for gi, guided := range []bool{false, true} {
			var c Chooser = NewRandom(seed)
			var guide *Guide
			if guided {
				guide = NewGuide(seed)
				c = &GuideChooser{Guide: guide, State: TreeState}
			}
			rec := &Recorder{C: c}
			gen := NewGenerator(g, rec, RandomPolicy)
			sat := NewSatisfier(set, seed, gen)
			sat.Guide = guide
			for i := range n {
				tree, broken, changed := sat.Make(context.Background(), gen, func() { rec.Choices = rec.Choices[:0] })
				if broken != 0 || len(check.Check(tree)) != 0 {
					t.Fatalf("seed %d, guided %v, input %d: %q breaks the clause", seed, guided, i, tree)
				}
				choices := rec.Choices
				if changed {
					var err error
					if choices, err = gen.ChoicesOf(tree); err != nil {
						t.Fatal(err)
					}
				} else {
					asDrawn[gi][i/part]++
				}
				if again := NewGenerator(g, &Replay{Choices: choices}, RandomPolicy).Generate().String(); again != tree.String() {
					t.Fatalf("seed %d, guided %v: replay gives %q, want %q", seed, guided, again, tree)
				}
			}
		}
		t.Logf("seed %d: inputs drawn satisfying, per %d: unguided %v, guided %v", seed, part, asDrawn[0], asDrawn[1])
		if guided := asDrawn[1]; guided[2] < 2*asDrawn[0][2] || guided[2] < part*3/4 {
			t.Errorf("seed %d: guided inputs drawn satisfying %v (unguided %v): the guide did not learn", seed, guided, asDrawn[0])
		}
	}
}

// TestGuideChooserMemory: a guide chooser whose state is the path from
// the root keeps nothing per choice, so that a caller that does not
// Reset it (generate --guided does not) does not grow its memory with
// every input; one whose state is the input's last choices keeps them
// until Reset.
func TestGuideChooserMemory(t *testing.T) {
	g, _ := constrained(t, `Doc := Item (" " Item){,5} ;
Item := "a" | "b" | "c" ;`)
	for _, tc := range []struct {
		state StateKind
		keeps bool
	}{{TreeState, false}, {NoState, false}, {WindowState, true}} {
		c := &GuideChooser{Guide: NewGuide(1), State: tc.state}
		gen := NewGenerator(g, c, RandomPolicy)
		for range 200 {
			gen.Generate()
			c.Guide.Reward(0)
		}
		if kept := c.all.Len(); (kept > 0) != tc.keeps {
			t.Errorf("state %d: %d choices kept after 200 inputs without Reset", tc.state, kept)
		}
		c.Reset()
		if c.all.Len() != 0 {
			t.Errorf("state %d: Reset kept %d choices", tc.state, c.all.Len())
		}
	}
}

// TestConstrainedGeneratorCredit: in RLCheck's loop with constraints,
// the program's verdict on the input as run rewards the guide's choices
// of every tree Make drew for it, broken ones too (docs/algorithms.md,
// "The bandit generator", says why this stays): with a program that
// accepts everything, the choices that always break the clause are
// credited with its positive rewards, not with -1, and every input
// satisfies the clause.
func TestConstrainedGeneratorCredit(t *testing.T) {
	// Item's choice points offer six options (Doc's repetition count
	// four); c to f (2 to 5) are only ever in trees that break the
	// clause, and are repaired away.
	g, set := constrained(t, `Doc := Item (" " Item){,3} ;
Item := "a" | "b" | "c" | "d" | "e" | "f" ;
where all(Item, {.text in ["a", "b"]}) ;`)
	check := constraint.NewChecker(set)
	for _, seed := range []uint64{1, 2, 3} {
		guide := NewGuide(seed)
		gen, unrepaired := ConstrainedGenerator(g, guide, TreeState, seed, 0, set)
		accept := FuncOracle(func([]byte) bool { return true })
		res, err := Check(context.Background(), func() []byte {
			in := gen()
			trees, err := g.ParseAll(in, 1)
			if err != nil {
				t.Fatalf("seed %d: %q does not parse: %v", seed, in, err)
			}
			if vs := check.Check(trees[0]); len(vs) != 0 {
				t.Fatalf("seed %d: %q breaks the clause", seed, in)
			}
			return in
		}, guide, accept, CheckOptions{Trials: 400})
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != 400 {
			t.Fatalf("seed %d: %d valid of 400", seed, res.Valid)
		}
		if n := unrepaired(res.Trials); n != 0 {
			t.Errorf("seed %d: %d inputs counted unrepaired, and every one satisfies the clause", seed, n)
		}
		var broken entry
		for _, table := range guide.q {
			if len(table) == 6 {
				for _, e := range table[2:] {
					broken.n, broken.sum = broken.n+e.n, broken.sum+e.sum
				}
			}
		}
		t.Logf("seed %d: c-f chosen %d times, mean reward %.2f", seed, broken.n, broken.sum/float64(broken.n))
		if broken.n == 0 || broken.sum <= 0 {
			t.Errorf("seed %d: choices that break the clause got %v over %d steps, want the program's positive rewards", seed, broken.sum, broken.n)
		}
	}
}

// TestConstrainedGeneratorUnrepaired: the inputs that break a clause
// the search cannot mend are returned as they are, and counted.
func TestConstrainedGeneratorUnrepaired(t *testing.T) {
	g, set := constrained(t, `S := "a" | "b" ;
where S: self.text == "c" ;`)
	gen, unrepaired := ConstrainedGenerator(g, NewGuide(1), TreeState, 1, 0, set)
	for i := range 5 {
		if in := string(gen()); in != "a" && in != "b" {
			t.Fatalf("input %d is %q", i, in)
		}
		if n := unrepaired(i + 1); n != i+1 {
			t.Fatalf("after %d inputs, %d counted unrepaired", i+1, n)
		}
	}
}
