package features

import (
	"math/big"
	"math/bits"
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
//
// Only a Ref has symbolic children, and every Ref to a rule has the same
// ones (the symbolic frontier of the rule's right-hand side), so a step
// sums each rule's frontier once and hands the sum to all its Refs: one
// step costs O(nodes), however often rules are referenced. The counts are
// kept in uint64 while they fit and continue exactly in big.Int from the
// first length that overflows.
func CountUpTo(g *grammar.Graph, maxK int) []*big.Int {
	if maxK < 1 {
		return []*big.Int{new(big.Int)}
	}
	w := newWalkGraph(g)
	out := make([]*big.Int, maxK)
	// small[v] = number of paths of length level that start at v.
	small := make([]uint64, len(w.body))
	for i := range small {
		small[i] = 1
	}
	next := make([]uint64, len(small))
	sums := make([]uint64, len(w.frontier))
	level := 1
	for {
		total, ok := sumSmall(small)
		if !ok {
			break
		}
		out[level-1] = new(big.Int).SetUint64(total)
		if level == maxK {
			return out
		}
		if !w.stepSmall(small, next, sums) {
			break
		}
		small, next = next, small
		level++
	}
	walks := make([]*big.Int, len(small))
	for i, v := range small {
		walks[i] = new(big.Int).SetUint64(v)
	}
	for {
		if out[level-1] == nil {
			total := new(big.Int)
			for _, v := range walks {
				total.Add(total, v)
			}
			out[level-1] = total
		}
		if level == maxK {
			return out
		}
		walks = w.stepBig(walks)
		level++
	}
}

// walkGraph is the symbolic graph in the form CountUpTo walks it.
type walkGraph struct {
	body     []int32   // per symbolic node (in id order): its rule's index in frontier, -1 for a terminal
	frontier [][]int32 // per referenced rule: the symbolic nodes that start its right-hand side
}

func newWalkGraph(g *grammar.Graph) *walkGraph {
	sym := make([]int32, len(g.Nodes)) // node id -> symbolic index
	nsym := int32(0)
	for _, n := range g.Nodes {
		sym[n.ID] = -1
		if n.Kind.Symbolic() {
			sym[n.ID] = nsym
			nsym++
		}
	}
	w := &walkGraph{body: make([]int32, nsym)}
	bodyIndex := map[int]int32{} // right-hand side root id -> index in frontier
	var stack []*grammar.Node
	for _, n := range g.Nodes {
		if !n.Kind.Symbolic() {
			continue
		}
		w.body[sym[n.ID]] = -1
		if n.Kind != grammar.KindRef {
			continue
		}
		root := n.Children[0]
		b, ok := bodyIndex[root.ID]
		if !ok {
			// The symbolic nodes reachable through synthetic ones only,
			// walked with an explicit stack: right-hand sides can nest
			// deeply.
			var f []int32
			stack = append(stack[:0], root)
			for len(stack) > 0 {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if m.Kind.Symbolic() {
					f = append(f, sym[m.ID])
					continue
				}
				stack = append(stack, m.Children...)
			}
			b = int32(len(w.frontier))
			bodyIndex[root.ID] = b
			w.frontier = append(w.frontier, f)
		}
		w.body[sym[n.ID]] = b
	}
	return w
}

// sumSmall adds the counts, reporting false if the sum overflows.
func sumSmall(v []uint64) (uint64, bool) {
	var total, carry uint64
	for _, x := range v {
		if total, carry = bits.Add64(total, x, 0); carry != 0 {
			return 0, false
		}
	}
	return total, true
}

// stepSmall computes the counts of paths one longer into next, reporting
// false (and leaving cur alone) if one overflows.
func (w *walkGraph) stepSmall(cur, next, sums []uint64) bool {
	var carry uint64
	for b, f := range w.frontier {
		var s uint64
		for _, c := range f {
			if s, carry = bits.Add64(s, cur[c], 0); carry != 0 {
				return false
			}
		}
		sums[b] = s
	}
	for v, b := range w.body {
		next[v] = 0
		if b >= 0 {
			next[v] = sums[b]
		}
	}
	return true
}

func (w *walkGraph) stepBig(cur []*big.Int) []*big.Int {
	sums := make([]*big.Int, len(w.frontier))
	for b, f := range w.frontier {
		s := new(big.Int)
		for _, c := range f {
			s.Add(s, cur[c])
		}
		sums[b] = s
	}
	zero := new(big.Int)
	next := make([]*big.Int, len(cur))
	for v, b := range w.body {
		next[v] = zero // shared: never modified, only read and added
		if b >= 0 {
			next[v] = sums[b]
		}
	}
	return next
}

// Of returns the distinct k-paths of a derivation tree, paths_k(t), sorted
// by their node ids. Every downward path of k symbolic tree nodes counts.
func Of(t *grammar.Tree, k int) []Path {
	if k < 1 || t == nil {
		return nil
	}
	return Extract(t, k)[k-1]
}
