package features

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
)

// refCountUpTo is the walk count CountUpTo replaced: big integers, each
// symbolic node's successors listed by SymbolicChildren.
func refCountUpTo(g *grammar.Graph, maxK int) []*big.Int {
	sym := g.Symbolic()
	index := make(map[int]int, len(sym))
	for i, n := range sym {
		index[n.ID] = i
	}
	succ := make([][]int, len(sym))
	for i, n := range sym {
		for _, c := range g.SymbolicChildren(n) {
			succ[i] = append(succ[i], index[c.ID])
		}
	}
	walks := make([]*big.Int, len(sym))
	for i := range walks {
		walks[i] = big.NewInt(1)
	}
	out := make([]*big.Int, maxK)
	for k := 1; k <= maxK; k++ {
		if k > 1 {
			next := make([]*big.Int, len(sym))
			for v := range sym {
				s := new(big.Int)
				for _, w := range succ[v] {
					s.Add(s, walks[w])
				}
				next[v] = s
			}
			walks = next
		}
		total := new(big.Int)
		for _, w := range walks {
			total.Add(total, w)
		}
		out[k-1] = total
	}
	return out
}

// TestCountAgreesWithReference: exact counts, past 2^64 too (where the
// counts continue in big.Int), for every bundled grammar and a few shapes.
func TestCountAgreesWithReference(t *testing.T) {
	srcs := map[string]string{
		"one terminal":   `S := "x" ;`,
		"shared body":    `S := A A A (A | B)* ; A := B "a" | "b" ; B := ("c" A?)+ ;`,
		"self reference": `S := S S | "x" ;`,
	}
	files, err := filepath.Glob("../datasets/grammars/*.grammar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled grammars: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[strings.TrimSuffix(filepath.Base(f), ".grammar")] = string(src)
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			ast, err := grammar.Parse(name+".grammar", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			g, err := grammar.Build(ast)
			if err != nil {
				t.Fatal(err)
			}
			const maxK = 64
			want := refCountUpTo(g, maxK)
			for _, k := range []int{1, 2, 6, 30, maxK} {
				got := CountUpTo(g, k)
				if len(got) != k {
					t.Fatalf("CountUpTo(%d) has %d counts", k, len(got))
				}
				for i := range got {
					if got[i].Cmp(want[i]) != 0 {
						t.Fatalf("CountUpTo(%d)[%d] = %v, want %v", k, i, got[i], want[i])
					}
				}
			}
			if got := Count(g, maxK); got.Cmp(want[maxK-1]) != 0 {
				t.Errorf("Count(%d) = %v, want %v", maxK, got, want[maxK-1])
			}
		})
	}
}
