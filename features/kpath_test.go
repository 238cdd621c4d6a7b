package features_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

func mustGrammar(t testing.TB, name string) *grammar.Graph {
	t.Helper()
	g, err := datasets.Grammar(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestTwoPathsOfExample pins the 12 2-paths of x+42 listed in docs/notation.md.
func TestTwoPathsOfExample(t *testing.T) {
	g := mustGrammar(t, "expr")
	tree, err := g.Parse([]byte("x+42"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"AddExpr_0→AddExpr_5", "AddExpr_5→MultExpr_2", "MultExpr_2→UnaryExpr_8",
		"UnaryExpr_8→Identifier_16", `Identifier_16→"x"_39`, `AddExpr_0→"+"_10`,
		"AddExpr_0→MultExpr_7", "MultExpr_7→UnaryExpr_8", "UnaryExpr_8→DecDigits_22",
		"DecDigits_22→DecDigit_42", `DecDigit_42→"4"_48`, `DecDigit_42→"2"_46`,
	}
	got := map[string]bool{}
	for _, p := range features.Of(tree, 2) {
		got[p.Format(g)] = true
	}
	if len(got) != len(want) {
		t.Errorf("x+42 has %d 2-paths, want %d: %v", len(got), len(want), got)
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing 2-path %s", w)
		}
	}
	// 1-paths are the distinct symbolic nodes of the tree.
	if n := len(features.Of(tree, 1)); n != 12 {
		t.Errorf("x+42 has %d 1-paths, want 12", n)
	}
}

// TestCountMatchesEnumeration checks the walk count against listing every
// k-path of the graph by depth-first search.
func TestCountMatchesEnumeration(t *testing.T) {
	for _, name := range []string{"expr", "json", "csv", "ini", "url", "xml"} {
		g := mustGrammar(t, name)
		var enumerate func(n *grammar.Node, k int) int64
		enumerate = func(n *grammar.Node, k int) int64 {
			if k == 1 {
				return 1
			}
			var total int64
			for _, c := range g.SymbolicChildren(n) {
				total += enumerate(c, k-1)
			}
			return total
		}
		counts := features.CountUpTo(g, 4)
		for k := 1; k <= 4; k++ {
			var want int64
			for _, n := range g.Symbolic() {
				want += enumerate(n, k)
			}
			if counts[k-1].Cmp(big.NewInt(want)) != 0 {
				t.Errorf("%s: %d-paths counted %v, enumerated %d", name, k, counts[k-1], want)
			}
			if features.Count(g, k).Cmp(counts[k-1]) != 0 {
				t.Errorf("%s: Count(%d) differs from CountUpTo", name, k)
			}
		}
	}
}

func TestCountExpr(t *testing.T) {
	g := mustGrammar(t, "expr")
	want := []int64{39, 125, 523, 2331, 10245}
	for k, w := range want {
		if got := features.Count(g, k+1); got.Cmp(big.NewInt(w)) != 0 {
			t.Errorf("Count(expr, %d) = %v, want %d", k+1, got, w)
		}
	}
	if features.Count(g, 0).Sign() != 0 {
		t.Errorf("Count(expr, 0) is not 0")
	}
	// Large k stays exact and cheap: the count grows exponentially.
	if c := features.Count(g, 60); c.BitLen() < 100 {
		t.Errorf("Count(expr, 60) = %v, expected an astronomically large number", c)
	}
}

func TestTreePathsAreTreePaths(t *testing.T) {
	g := mustGrammar(t, "json")
	tree, err := g.Parse([]byte(`{"a": [1, "x\n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 5; k++ {
		paths := features.Of(tree, k)
		if len(paths) == 0 {
			t.Fatalf("no %d-paths", k)
		}
		for _, p := range paths {
			if len(p) != k {
				t.Fatalf("%d-path of length %d", k, len(p))
			}
			// Consecutive elements are symbolic children in the graph.
			for i := 0; i+1 < len(p); i++ {
				ok := false
				for _, c := range g.SymbolicChildren(g.Node(p[i])) {
					ok = ok || c.ID == p[i+1]
				}
				if !ok {
					t.Fatalf("%s is not a graph path", p.Format(g))
				}
			}
		}
	}
	if got := (features.Path{0, 5, 2}).Key(); got != "0,5,2" {
		t.Errorf("Key = %q", got)
	}
	if !strings.Contains((features.Path{0, 999}).Format(g), "?_999") {
		t.Errorf("Format of an unknown id")
	}
}
