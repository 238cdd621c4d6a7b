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
	walkPaths(t, func(stack []int) {
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
func walkPaths(t *grammar.Tree, f func(stack []int)) {
	forest{trees: []*grammar.Tree{t}}.visit(0, &pathWalker{f: f})
}

// pathWalker is a grammar.Visitor that calls f at every symbolic node
// with the ids of the symbolic nodes from the root down to it. It holds
// the path, not the tree, so it reads the k-paths of a parse that is
// never built (grammar.Parsed).
type pathWalker struct {
	stack []int
	f     func(stack []int)
}

func (w *pathWalker) Enter(n *grammar.Node, _ string) {
	if n != nil && n.Kind.Symbolic() {
		w.stack = append(w.stack, n.ID)
		w.f(w.stack)
	}
}

func (w *pathWalker) Leave(n *grammar.Node) {
	if n != nil && n.Kind.Symbolic() {
		w.stack = w.stack[:len(w.stack)-1]
	}
}

// forest is an input's trees: built, or a parse that tells their nodes
// without building them.
type forest struct {
	trees  []*grammar.Tree
	parsed *grammar.Parsed
}

func (f forest) len() int {
	if f.parsed != nil {
		return f.parsed.Len()
	}
	return len(f.trees)
}

// visit tells v the nodes of tree i; a nil tree has none.
func (f forest) visit(i int, v grammar.Visitor) {
	switch {
	case f.parsed != nil:
		f.parsed.Visit(i, v)
	case f.trees[i] != nil:
		f.trees[i].Visit(v)
	}
}

// text is what tree i derives.
func (f forest) text(i int) string {
	if f.parsed != nil {
		return f.parsed.Input()
	}
	return f.trees[i].String()
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
