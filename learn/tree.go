package learn

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/arbor-fuzz/arbor/features"
)

// Options configure tree fitting.
type Options struct {
	MaxDepth       int     // 0 means 5
	MinSamplesLeaf int     // 0 means 1
	MinImpurityDec float64 // a split must lower weighted gini by at least this (as in scikit-learn)
}

func (o Options) maxDepth() int {
	if o.MaxDepth > 0 {
		return o.MaxDepth
	}
	return 5
}

func (o Options) minLeaf() int {
	if o.MinSamplesLeaf > 0 {
		return o.MinSamplesLeaf
	}
	return 1
}

// Node is a node of a binary decision tree over binary features. An inner
// node tests Feature: inputs without it go to Absent, inputs with it to
// Present. A leaf has Feature -1.
type Node struct {
	Feature int     `json:"feature"`
	Absent  int     `json:"absent,omitempty"`
	Present int     `json:"present,omitempty"`
	Neg     int     `json:"neg"` // training rows of the negative class (function not covered)
	Pos     int     `json:"pos"` // and of the positive class
	Gini    float64 `json:"gini"`
}

// Leaf reports whether the node is a leaf.
func (n *Node) Leaf() bool { return n.Feature < 0 }

// Covered reports whether the node's majority class is positive (ties
// count as covered: the rows are balanced, so a tie is genuine doubt, and
// a covering constraint still needs the gini test).
func (n *Node) Covered() bool { return n.Pos >= n.Neg && n.Pos > 0 }

// Purity is the share of the majority class among the node's rows.
func (n *Node) Purity() float64 {
	if n.Neg+n.Pos == 0 {
		return 0
	}
	return float64(max(n.Neg, n.Pos)) / float64(n.Neg+n.Pos)
}

// Precision is the Laplace-smoothed share of positive rows,
// (Pos+1)/(Pos+Neg+2): how likely an input that reaches the node is to
// run the function, a node of few rows trusted less than one of many.
func (n *Node) Precision() float64 { return smoothedPrecision(n.Pos, n.Neg) }

// Tree is a decision tree; Nodes[0] is the root.
type Tree struct {
	Nodes []Node `json:"nodes"`
}

// Leaf returns the index of the leaf an input reaches; has reports
// whether the input has a feature.
func (t *Tree) Leaf(has func(feature int) bool) int {
	i := 0
	for !t.Nodes[i].Leaf() {
		if has(t.Nodes[i].Feature) {
			i = t.Nodes[i].Present
		} else {
			i = t.Nodes[i].Absent
		}
	}
	return i
}

// check reports whether the nodes form a binary tree over features ids
// below features: every node reached from the root exactly once, inner
// nodes testing a feature with both children in range, leaves marked
// -1, counts not negative. Prediction walks a tree without looking, and
// explanations recurse into it, so a model file must not be able to
// make either loop or overflow.
func (t *Tree) check(features int) error {
	seen := make([]bool, len(t.Nodes))
	stack := []int{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i < 0 || i >= len(t.Nodes) {
			return fmt.Errorf("a child %d out of range", i)
		}
		if seen[i] {
			return fmt.Errorf("node %d is reached twice", i)
		}
		seen[i] = true
		n := &t.Nodes[i]
		if n.Neg < 0 || n.Pos < 0 || math.IsNaN(n.Gini) {
			return fmt.Errorf("node %d has counts %d/%d, gini %v", i, n.Neg, n.Pos, n.Gini)
		}
		switch {
		case n.Feature == -1:
		case n.Feature < -1 || n.Feature >= features:
			return fmt.Errorf("node %d tests feature %d of %d", i, n.Feature, features)
		default:
			stack = append(stack, n.Absent, n.Present)
		}
	}
	for i, ok := range seen {
		if !ok {
			return fmt.Errorf("node %d is not in the tree", i)
		}
	}
	return nil
}

// Depth is the length of the longest root-to-leaf path.
func (t *Tree) Depth() int {
	var depth func(i, d int) int
	depth = func(i, d int) int {
		n := &t.Nodes[i]
		if n.Leaf() {
			return d
		}
		return max(depth(n.Absent, d+1), depth(n.Present, d+1))
	}
	return depth(0, 0)
}

func gini(neg, pos int) float64 {
	n := float64(neg + pos)
	if n == 0 {
		return 0
	}
	p := float64(pos) / n
	return 2 * p * (1 - p)
}

// Fit grows a CART tree (gini impurity) on binary features given as
// column bitsets over rows. rows selects the training rows, label marks
// the positive ones, candidates are the features that may be tested.
// At every node a split's counts are popcounts of mask&column and
// mask&column&label, over only the words where the node's mask has rows.
// Ties between equally good splits go to the lowest feature id, so
// fitting is deterministic.
func Fit(columns []features.Bitset, label, rows features.Bitset, candidates []int, opts Options) *Tree {
	t := &Tree{}
	total := rows.Count()
	f := &fitter{cols: columns, label: label, cands: candidates, opts: opts, total: total}
	f.grow(t, rows, 0)
	return t
}

type fitter struct {
	cols  []features.Bitset
	label features.Bitset
	cands []int
	opts  Options
	total int
}

// grow adds the node for the rows in mask and returns its index.
func (f *fitter) grow(t *Tree, mask features.Bitset, depth int) int {
	lo, hi := span(mask)
	n, p := 0, 0
	ml := make(features.Bitset, len(mask)) // mask & label
	for w := lo; w < hi; w++ {
		ml[w] = mask[w] & f.label[w]
		n += bits.OnesCount64(mask[w])
		p += bits.OnesCount64(ml[w])
	}
	idx := len(t.Nodes)
	t.Nodes = append(t.Nodes, Node{Feature: -1, Neg: n - p, Pos: p, Gini: gini(n-p, p)})
	if depth >= f.opts.maxDepth() || p == 0 || p == n {
		return idx
	}
	parent := gini(n-p, p)
	best, bestScore := -1, parent*float64(n)
	minLeaf := f.opts.minLeaf()
	for _, c := range f.cands {
		col := f.cols[c]
		nf, pf := 0, 0
		for w := lo; w < hi; w++ {
			nf += bits.OnesCount64(mask[w] & col[w])
			pf += bits.OnesCount64(ml[w] & col[w])
		}
		if nf < minLeaf || n-nf < minLeaf {
			continue
		}
		// Weighted child impurity times n: n_left*gini_left + n_right*gini_right.
		score := float64(n-nf)*gini(n-nf-(p-pf), p-pf) + float64(nf)*gini(nf-pf, pf)
		if score < bestScore-1e-12 {
			best, bestScore = c, score
		}
	}
	if best < 0 {
		return idx
	}
	// scikit-learn's rule: N_t/N * (impurity - weighted child impurity).
	decrease := float64(n) / float64(f.total) * (parent - bestScore/float64(n))
	if decrease < f.opts.MinImpurityDec {
		return idx
	}
	absent := make(features.Bitset, len(mask))
	present := make(features.Bitset, len(mask))
	col := f.cols[best]
	for w := lo; w < hi; w++ {
		present[w] = mask[w] & col[w]
		absent[w] = mask[w] &^ col[w]
	}
	t.Nodes[idx].Feature = best
	a := f.grow(t, absent, depth+1)
	pr := f.grow(t, present, depth+1)
	t.Nodes[idx].Absent, t.Nodes[idx].Present = a, pr
	return idx
}

// span returns the range of words of b that hold set bits.
func span(b features.Bitset) (lo, hi int) {
	lo, hi = 0, len(b)
	for lo < hi && b[lo] == 0 {
		lo++
	}
	for hi > lo && b[hi-1] == 0 {
		hi--
	}
	return lo, hi
}
