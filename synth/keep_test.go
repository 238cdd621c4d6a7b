package synth

import (
	"context"
	"fmt"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
)

// narrowing is a grammar whose clause a random Hard item seldom
// satisfies: the right tag and a large number.
const narrowing = `Doc := Item (" " Item){,4} ;
Item := Easy | Hard ;
Easy := "e" ;
Hard := "h" Tag Num ;
Tag := "a" | "b" | "c" | "d" ;
Num := /[0-9]/ ;
where Hard: Tag.text == "a" && Num.num > 6 ;`

// TestMakeKeepsRareChoices: Make keeps a tree's rarest 2-path through a
// repair, so the satisfying inputs of a bundled grammar hold more of
// its 2-paths than those of a repair that may change anything
// (NoKeep), and all of them satisfy the clauses. govaluate's repair
// narrows the most of the grammars whose inputs all satisfy (E11).
func TestMakeKeepsRareChoices(t *testing.T) {
	set, err := constraint.Compile(fixture.Grammar(t, "govaluate"))
	if err != nil {
		t.Fatal(err)
	}
	g := set.Graph()
	paths := map[bool]int{}
	for _, noKeep := range []bool{false, true} {
		for seed := range uint64(3) {
			cov := features.NewCoverage(g, 2)
			opts := GenerateOptions{Seed: seed, MaxDepth: 30, Constraints: set, NoKeep: noKeep}
			err := GenerateFunc(context.Background(), g, 150, opts, func(in Input) error {
				if in.Broken != 0 {
					return fmt.Errorf("NoKeep %v: %q breaks %d clause instances", noKeep, in.Text, in.Broken)
				}
				cov.Add(in.Tree)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			paths[noKeep] += cov.Covered(2)
		}
	}
	t.Logf("2-paths of 3×150 inputs, summed: keeping %d, not keeping %d", paths[false], paths[true])
	if paths[false] <= paths[true] {
		t.Errorf("2-paths of 3×150 inputs, summed: keeping %d, not keeping %d: keeping must hold more", paths[false], paths[true])
	}
}

// TestRepairKeepsKeptNode: while a repair keeps a node (Satisfier.protect),
// no change takes it out of the tree, whichever change the search draws:
// copies into an ancestor, regenerating one, dropping its repetition
// are refused, and a subtree beside it changes instead.
func TestRepairKeepsKeptNode(t *testing.T) {
	_, set := constrained(t, narrowing)
	check := constraint.NewChecker(set)
	g := set.Graph()
	for seed := range uint64(20) {
		gen := NewGenerator(g, NewRandom(seed), RandomPolicy)
		sat := NewSatisfier(set, seed, gen)
		tree := gen.Generate()
		if _, ok := sat.protect(tree); !ok {
			t.Fatalf("seed %d: nothing kept in %q", seed, tree)
		}
		kept := keptNode(sat.keep)
		changes, broken := 0, len(check.Check(tree))
		for range 200 {
			vs := check.Check(tree)
			if len(vs) == 0 {
				break
			}
			sat.undo = sat.undo[:0]
			if sat.change(tree, vs[sat.r.IntN(len(vs))]) {
				changes++
			}
			if !holds(tree, kept) {
				t.Fatalf("seed %d: a change took the kept %s out of %q", seed, kept.Node, tree)
			}
		}
		if broken > 0 && changes == 0 {
			t.Errorf("seed %d: no change applied to %q", seed, tree)
		}
	}
}

// keptNode is the node a keep set keeps: the one none of whose
// children is kept.
func keptNode(keep map[*grammar.Tree]bool) *grammar.Tree {
	for n := range keep {
		inner := false
		for _, c := range n.Children {
			inner = inner || keep[c]
		}
		if !inner {
			return n
		}
	}
	return nil
}

// holds reports whether n is a node of t.
func holds(t, n *grammar.Tree) bool {
	found := false
	t.Walk(func(m *grammar.Tree, _ int) bool {
		found = found || m == n
		return !found
	})
	return found
}
