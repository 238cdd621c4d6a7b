package synth

import (
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
				broken, _ := sat.Satisfy(tree)
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
				sat.Satisfy(gen.Generate())
			}
		})
	}
}
