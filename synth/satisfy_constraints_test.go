package synth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
)

// constrained builds a grammar with where clauses and compiles them.
func constrained(t testing.TB, src string) (*grammar.Graph, *constraint.Set) {
	t.Helper()
	g := fixture.Build(t, "t.grammar", src)
	s, err := constraint.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	return g, s
}

// TestSatisfy: random trees of grammars with constraints, repaired,
// satisfy them (nearly all, and more than unrepaired), stay inputs of
// the grammar, and replay from the choices read off them.
func TestSatisfy(t *testing.T) {
	tests := []struct {
		name, src string
		minShare  float64 // of repaired trees that must satisfy every clause
	}{
		{"order", `Ranges := Range (" " Range){,4} ;
Range := Start "-" End ;
Start := Num ; End := Num ;
Num := /[0-9]{1,2}/ ;
where Range: Start.num <= End.num ;`, 0.99},
		{"declared before use", `Prog := Stmt (";" Stmt){,6} ;
Stmt := "let " VarDecl | "print " VarUse ;
VarDecl := Name ; VarUse := Name ;
Name := /[a-z]{1,3}/ ;
where all(VarUse, {let u = #; any(VarDecl, {.text == u.text && before(#, u)})}) ;`, 0.95},
		{"defined and used", `Doc := Item (" " Item){,5} ;
Item := "def " Def | "use " Use ;
Def := Label ; Use := Label ;
Label := "a" | "b" | "c" | "d" | "e" | "f" ;
where all(Use, {.text in map(Def, .text)}) ;
where all(Def, {.text in map(Use, .text)}) ;
where len(uniq(map(Def, .text))) == len(Def) ;`, 0.9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, set := constrained(t, tc.src)
			check := constraint.NewChecker(set)
			gen := NewGenerator(g, NewRandom(1), RandomPolicy)
			sat := NewSatisfier(set, 1, gen)
			const n = 300
			before, after := 0, 0
			for range n {
				tree := gen.Generate()
				if len(check.Check(tree)) == 0 {
					before++
				}
				broken, _ := sat.Satisfy(context.Background(), tree)
				if got := len(check.Check(tree)); got != broken {
					t.Fatalf("Satisfy says %d broken, the checker %d", broken, got)
				}
				if broken == 0 {
					after++
				}
				text := tree.String()
				if _, err := g.Parse([]byte(text)); err != nil {
					t.Fatalf("repaired tree %q is not an input of the grammar: %v", text, err)
				}
				choices, err := gen.ChoicesOf(tree)
				if err != nil {
					if choices, err = gen.ExactChoicesOf(tree); err != nil {
						t.Fatalf("%q: no choices: %v", text, err)
					}
				}
				again := NewGenerator(g, &Replay{Choices: choices}, RandomPolicy).Generate().String()
				if again != text {
					t.Fatalf("replay gives %q, want %q", again, text)
				}
			}
			t.Logf("satisfied: %d of %d generated, %d of %d repaired", before, n, after, n)
			if float64(after) < tc.minShare*n || after <= before {
				t.Errorf("%d of %d repaired trees satisfy the constraints (%d before repair), want at least %.0f%%", after, n, before, 100*tc.minShare)
			}
		})
	}
}

// BenchmarkSatisfy: generating an input and repairing it to satisfy the
// test grammars' constraints, against generating it alone.
func BenchmarkSatisfy(b *testing.B) {
	for _, src := range []string{
		`Prog := Stmt (";" Stmt){,6} ;
Stmt := "let " VarDecl | "print " VarUse ;
VarDecl := Name ; VarUse := Name ;
Name := /[a-z]{1,3}/ ;
where all(VarUse, {let u = #; any(VarDecl, {.text == u.text && before(#, u)})}) ;`,
		`Doc := Item (" " Item){,5} ;
Item := "def " Def | "use " Use ;
Def := Label ; Use := Label ;
Label := "a" | "b" | "c" | "d" | "e" | "f" ;
where all(Use, {.text in map(Def, .text)}) ;
where all(Def, {.text in map(Use, .text)}) ;
where len(uniq(map(Def, .text))) == len(Def) ;`,
	} {
		g, set := constrained(b, src)
		b.Run(g.Start+"/generate", func(b *testing.B) {
			gen := NewGenerator(g, NewRandom(1), RandomPolicy)
			for b.Loop() {
				gen.Generate()
			}
		})
		b.Run(g.Start+"/satisfy", func(b *testing.B) {
			gen := NewGenerator(g, NewRandom(1), RandomPolicy)
			sat := NewSatisfier(set, 1, gen)
			for b.Loop() {
				sat.Satisfy(context.Background(), gen.Generate())
			}
		})
	}
}

// TestRecheck: after any change the Satisfier makes, and after its
// undoing, the checker's incremental Recheck finds what a full check of
// the tree finds (and RecheckWithin, stopped past a count, as much of it
// as it says, and after the undoing a Revert and a Recheck of nothing
// changed), on the test grammars and the bundled xml grammar,
// whose clauses have scopes of every size.
func TestRecheck(t *testing.T) {
	var bundled []*constraint.Set
	for _, name := range []string{"xml", "gotemplate"} {
		set, err := constraint.Compile(fixture.Grammar(t, name))
		if err != nil {
			t.Fatal(err)
		}
		bundled = append(bundled, set)
	}
	_, ranges := constrained(t, `Ranges := Range (" " Range){,4} ;
Range := Start "-" End ;
Start := Num ; End := Num ;
Num := /[0-9]{1,2}/ ;
where Range: Start.num <= End.num ;
where all(Range, {let r = #; count(Range, {.text == r.text}) == 1}) ;`)
	key := func(vs []constraint.Violation) string {
		var b strings.Builder
		for _, v := range vs {
			fmt.Fprintf(&b, "%s@%d:%q;", v.Clause, v.At.Start, v.At.Text)
		}
		return b.String()
	}
	for _, set := range append(bundled, ranges) {
		g := set.Graph()
		gen := NewGenerator(g, NewRandom(2), RandomPolicy)
		sat := NewSatisfier(set, 2, gen)
		full := constraint.NewChecker(set)
		changes, trees := 0, 200
		if set != ranges {
			trees = 40 // large inputs, many clauses: a full check takes a millisecond
		}
		for range trees {
			tree := gen.Generate()
			vs := sat.check.Check(tree)
			for step := 0; step < 10 && len(vs) > 0; step++ {
				sat.undo = sat.undo[:0]
				if !sat.change(tree, vs[sat.r.IntN(len(vs))]) {
					continue
				}
				changes++
				want := full.Check(tree)
				if step%3 == 1 {
					// As Satisfy checks: stopped past the instances
					// broken before, and then undone.
					got, within := sat.check.RecheckWithin(tree, sat.changed, len(vs))
					switch {
					case within != (len(want) <= len(vs)):
						t.Fatalf("after a change to %q: RecheckWithin(%d) says %v, a full check finds %d", tree.String(), len(vs), within, len(want))
					case within && key(got) != key(want):
						t.Fatalf("after a change to %q: RecheckWithin finds\n%s\na full check\n%s", tree.String(), key(got), key(want))
					case !within && len(got) <= len(vs):
						t.Fatalf("after a change to %q: RecheckWithin(%d) stopped at %d", tree.String(), len(vs), len(got))
					}
				} else if got := key(sat.check.Recheck(tree, sat.changed)); got != key(want) {
					t.Fatalf("after a change to %q: Recheck finds\n%s\na full check\n%s", tree.String(), got, key(want))
				}
				switch {
				case step%3 == 1:
					for i := len(sat.undo) - 1; i >= 0; i-- {
						sat.undo[i]()
					}
					sat.check.Revert()
					vs = sat.check.Recheck(tree, nil)
				case step%2 == 0:
					for i := len(sat.undo) - 1; i >= 0; i-- {
						sat.undo[i]()
					}
					fallthrough
				default:
					vs = sat.check.Recheck(tree, sat.changed)
				}
				if got, want := key(vs), key(full.Check(tree)); got != want {
					t.Fatalf("after undoing a change to %q: Recheck finds\n%s\na full check\n%s", tree.String(), got, want)
				}
			}
		}
		if changes < trees/2 {
			t.Errorf("%s: only %d changes tried", g.Start, changes)
		}
	}
}

// TestSatisfyBounded: the search never copies a node into one inside
// it (that once grew graphql trees to gigabytes, a copy of the
// enclosing selection set at every step), and a done context stops it
// at once.
func TestSatisfyBounded(t *testing.T) {
	g, set := constrained(t, `S := N ;
N := "(" N{,3} ")" | "x" ;
where all(N, {.text != "x"}) ;`)
	sat := NewSatisfier(set, 3, nil)
	tree, err := g.Parse([]byte("((x))"))
	if err != nil {
		t.Fatal(err)
	}
	vs := sat.check.Check(tree)
	if len(vs) != 1 || vs[0].At.Text != "x" {
		t.Fatalf("violations %v", vs)
	}
	for range 20 {
		if sat.copyIn(vs[0], vs[0].At) {
			t.Fatalf("copied a node that holds x into x: %q", tree.String())
		}
	}
	gen := NewGenerator(g, NewRandom(3), RandomPolicy)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 20 {
		if _, st := sat.Satisfy(ctx, gen.Generate()); st.Steps > 0 {
			t.Fatalf("a done context: %d steps", st.Steps)
		}
	}
	err = GenerateFunc(ctx, g, 5, GenerateOptions{Seed: 1, Constraints: set}, func(Input) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("GenerateFunc with a done context: %v", err)
	}
}

// TestMake: every tree Make returns breaks as many instances as it
// says (none nearly always), is an input of the grammar and, changed,
// replays from the choices read off it. The grammars: one whose random
// trees satisfy often, one whose trees seldom do, and the bundled xml
// and graphql grammars (graphql's random trees never do).
func TestMake(t *testing.T) {
	_, ranges := constrained(t, `Ranges := Range (" " Range){,4} ;
Range := Start "-" End ;
Start := Num ; End := Num ;
Num := /[0-9]{1,2}/ ;
where Range: Start.num <= End.num ;`)
	_, defs := constrained(t, `Doc := Item (" " Item){,5} ;
Item := "def " Def | "use " Use ;
Def := Label ; Use := Label ;
Label := "a" | "b" | "c" | "d" | "e" | "f" ;
where all(Use, {.text in map(Def, .text)}) ;
where all(Def, {.text in map(Use, .text)}) ;
where len(uniq(map(Def, .text))) == len(Def) ;`)
	sets := map[string]*constraint.Set{"ranges": ranges, "defs": defs}
	for _, name := range []string{"xml", "graphql"} {
		set, err := constraint.Compile(fixture.Grammar(t, name))
		if err != nil {
			t.Fatal(err)
		}
		sets[name] = set
	}
	for _, name := range []string{"ranges", "defs", "xml", "graphql"} {
		t.Run(name, func(t *testing.T) {
			set := sets[name]
			g := set.Graph()
			check := constraint.NewChecker(set)
			gen := NewGenerator(g, NewRandom(4), RandomPolicy)
			gen.Reuse = true
			sat := NewSatisfier(set, 4, gen)
			n := 100
			if name == "graphql" {
				n = 10 // repairs of graphql trees take milliseconds
			}
			satisfied := 0
			for range n {
				tree, broken, changed := sat.Make(context.Background(), gen, nil)
				text := tree.String()
				if got := len(check.Check(tree)); got != broken {
					t.Fatalf("Make says %d broken, the checker %d, in %q", broken, got, text)
				}
				if broken == 0 {
					satisfied++
				}
				if !changed {
					continue
				}
				choices, err := gen.ChoicesOf(tree)
				if err != nil {
					if choices, err = gen.ExactChoicesOf(tree); err != nil {
						t.Fatalf("%q: no choices: %v", text, err)
					}
				}
				if again := NewGenerator(g, &Replay{Choices: choices}, RandomPolicy).Generate().String(); again != text {
					t.Fatalf("replay gives %q, want %q", again, text)
				}
			}
			if satisfied < n*9/10 {
				t.Errorf("%d of %d trees satisfy the constraints", satisfied, n)
			}
		})
	}
}
