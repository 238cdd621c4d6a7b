package features

import (
	"slices"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Extract returns the distinct k-paths of a derivation tree for every
// k = 1..maxK, in one walk: result[k-1] holds paths_k(t), sorted by node
// ids. The walk costs O(tree size × maxK).
func Extract(t *grammar.Tree, maxK int) [][]Path {
	if maxK < 1 || t == nil {
		return nil
	}
	// One set for all k: keys of different k differ in length.
	seen := map[string]struct{}{}
	out := make([][]Path, maxK)
	var buf []byte
	walkPaths(t, maxK, func(stack []int) {
		for k := 1; k <= maxK && k <= len(stack); k++ {
			p := Path(stack[len(stack)-k:])
			buf = p.appendKey(buf[:0])
			if _, ok := seen[string(buf)]; !ok {
				seen[string(buf)] = struct{}{}
				out[k-1] = append(out[k-1], append(Path(nil), p...))
			}
		}
	})
	for _, ps := range out {
		sortPaths(ps)
	}
	return out
}

// walkPaths calls f at every symbolic node of t with the ids of the
// symbolic nodes from the root down to it (the last maxK at most matter).
func walkPaths(t *grammar.Tree, maxK int, f func(stack []int)) {
	var stack []int
	var walk func(*grammar.Tree)
	walk = func(n *grammar.Tree) {
		if n == nil {
			return
		}
		sym := n.Node.Kind.Symbolic()
		if sym {
			stack = append(stack, n.Node.ID)
			f(stack)
		}
		for _, c := range n.Children {
			walk(c)
		}
		if sym {
			stack = stack[:len(stack)-1]
		}
	}
	walk(t)
}

func sortPaths(ps []Path) {
	slices.SortFunc(ps, comparePaths)
}

func comparePaths(a, b Path) int {
	for x := 0; x < len(a) && x < len(b); x++ {
		if a[x] != b[x] {
			if a[x] < b[x] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

// appendKey appends the path's compact binary key (4 bytes per id).
func (p Path) appendKey(b []byte) []byte {
	for _, id := range p {
		b = append(b, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
	}
	return b
}
