package features

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Path is a k-path: the ids of its k symbolic nodes, from the top down.
type Path []int

// Key is a compact string that identifies the path, for use as a map key.
func (p Path) Key() string {
	b := make([]byte, 0, 4*len(p))
	for i, id := range p {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return string(b)
}

// Format writes the path with node labels, as in AddExpr_0→"+"_10.
func (p Path) Format(g *grammar.Graph) string {
	parts := make([]string, len(p))
	for i, id := range p {
		if n := g.Node(id); n != nil {
			parts[i] = n.String()
		} else {
			parts[i] = "?_" + strconv.Itoa(id)
		}
	}
	return strings.Join(parts, "→")
}

// Count returns the number of k-paths of the graph, |paths_k(G)|, without
// listing them: a walk count over the symbolic graph, linear in k and in
// the graph's size. It returns 0 for k < 1.
func Count(g *grammar.Graph, k int) *big.Int {
	if k < 1 {
		return new(big.Int)
	}
	return CountUpTo(g, k)[k-1]
}

// CountUpTo returns the number of k-paths for every k = 1..maxK (index k-1).
// For maxK < 1 it returns a single zero.
func CountUpTo(g *grammar.Graph, maxK int) []*big.Int {
	if maxK < 1 {
		return []*big.Int{new(big.Int)}
	}
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
	// walks[v] = number of paths of the current length that start at v.
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

// Of returns the distinct k-paths of a derivation tree, paths_k(t), sorted
// by their node ids. Every downward path of k symbolic tree nodes counts.
func Of(t *grammar.Tree, k int) []Path {
	if k < 1 || t == nil {
		return nil
	}
	return Extract(t, k)[k-1]
}
