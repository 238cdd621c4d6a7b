package synth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/fixture"
)

// TestRecheckBundled: on every bundled grammar with clauses, a search
// run as Satisfy runs it (a change, RecheckWithin, then the change kept
// or undone and Reverted, the violations of before kept) sees after
// every step what a full check of the tree finds, clause instance by
// clause instance; and so does a plain Recheck after a change and after
// its undoing. The checker takes instances of all(...) clauses from
// their last evaluation where the change cannot alter them, and brings
// back the Nodes of the tree before the change on Revert: a wrong
// verdict or a stale Node shows here.
func TestRecheckBundled(t *testing.T) {
	trees, steps := 40, 60
	if testing.Short() {
		trees, steps = 10, 30
	}
	key := func(vs []constraint.Violation) string {
		var b strings.Builder
		for _, v := range vs {
			fmt.Fprintf(&b, "%s@%d/%d:%q:%v;", v.Clause.Where.Pos, v.Scope.Start, v.At.Start, v.At.Text, v.Err != nil)
		}
		return b.String()
	}
	tested := 0
	for _, info := range datasets.Grammars() {
		g := fixture.Grammar(t, info.Name)
		if g.Source == nil || len(g.Source.Where) == 0 {
			continue
		}
		tested++
		t.Run(info.Name, func(t *testing.T) {
			set, err := constraint.Compile(g)
			if err != nil {
				t.Fatal(err)
			}
			gen := NewGenerator(g, NewRandom(5), RandomPolicy)
			gen.MaxNodes = 400 // trees a repair would take on
			sat := NewSatisfier(set, 5, gen)
			full := constraint.NewChecker(set)
			changes, kept := 0, 0
			for broken, drawn := 0, 0; broken < trees && drawn < 20*trees; drawn++ {
				tree := gen.Generate()
				vs := sat.check.Check(tree)
				if len(vs) > 0 {
					broken++
				}
				for step := 0; step < steps && len(vs) > 0; step++ {
					sat.undo = sat.undo[:0]
					if !sat.change(tree, vs[sat.r.IntN(len(vs))]) {
						continue
					}
					changes++
					want := full.Check(tree)
					if step%5 == 4 {
						// Recheck after the change, after its undoing.
						if got := sat.check.Recheck(tree, sat.changed); key(got) != key(want) {
							t.Fatalf("after a change to %q: Recheck finds\n%s\na full check\n%s", tree.String(), key(got), key(want))
						}
						for i := len(sat.undo) - 1; i >= 0; i-- {
							sat.undo[i]()
						}
						vs = sat.check.Recheck(tree, sat.changed)
					} else {
						got, within := sat.check.RecheckWithin(tree, sat.changed, len(vs))
						switch {
						case within != (len(want) <= len(vs)):
							t.Fatalf("after a change to %q: RecheckWithin(%d) says %v, a full check finds %d", tree.String(), len(vs), within, len(want))
						case within && key(got) != key(want):
							t.Fatalf("after a change to %q: RecheckWithin finds\n%s\na full check\n%s", tree.String(), key(got), key(want))
						}
						if within && (len(got) < len(vs) || step%2 == 0) {
							vs = got
							kept++
						} else {
							for i := len(sat.undo) - 1; i >= 0; i-- {
								sat.undo[i]()
							}
							sat.check.Revert()
						}
					}
					if got, want := key(vs), key(full.Check(tree)); got != want {
						t.Fatalf("after step %d on %q: the search holds\n%s\na full check finds\n%s", step, tree.String(), got, want)
					}
				}
			}
			t.Logf("%d changes, %d kept", changes, kept)
			if changes < trees/2 {
				t.Errorf("only %d changes tried", changes)
			}
		})
	}
	if tested < 8 {
		t.Errorf("%d bundled grammars with clauses, want at least 8", tested)
	}
}
