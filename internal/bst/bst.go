// Package bst is RLCheck's binary-search-tree example of a hand-written
// generator that calls a guide, kept for rlcheck --example bst and the
// E6 benchmark: it is a fixture, not part of arbor's API.
package bst

import (
	"strconv"
	"strings"

	"github.com/arbor-fuzz/arbor/synth"
)

// bst is RLCheck's binary-search-tree example of a hand-written generator
// that calls a guide: node values 0..10, left and right children decided
// by coin choices, depth at most 4. Its state is the last W choices on the
// path from the root, which tell the child slots taken (synth.TreeState), the
// last W choices of the run (synth.WindowState), or nothing.
type bst struct {
	Guide *synth.Guide
	State synth.StateKind
	W     int // 0 means 5

	path, all synth.Window
}

// The bst generator's choice points.
const (
	bstValue = iota
	bstLeft
	bstRight
)

var bstValues = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
var coins = []bool{false, true}

// node is a binary tree node.
type node struct {
	Value       int
	Left, Right *node
}

// Generate builds one tree.
func (b *bst) Generate() *node {
	w := b.W
	if w == 0 {
		w = 5
	}
	b.path.W, b.all.W = w, w
	b.path.Reset()
	b.all.Reset()
	return b.gen(0)
}

func (b *bst) state() synth.State {
	switch b.State {
	case synth.TreeState:
		return b.path.State()
	case synth.WindowState:
		return b.all.State()
	}
	return 0
}

func (b *bst) choose(n, point int) int {
	c := b.Guide.SelectIndex(n, b.state(), point)
	item := uint64(point)<<32 | uint64(c)
	b.path.Push(item)
	b.all.Push(item)
	return c
}

// gen builds a subtree. The path state holds the choices made on the path
// from the root: each ancestor's value and the coin that led down, so the
// child slot taken is part of it; the left subtree's choices are not on
// the right subtree's path.
func (b *bst) gen(depth int) *node {
	n := &node{Value: bstValues[b.choose(len(bstValues), bstValue)]}
	mark := b.path.Len()
	if depth < 4 && coins[b.choose(2, bstLeft)] {
		n.Left = b.gen(depth + 1)
	}
	b.path.Truncate(mark)
	if depth < 4 && coins[b.choose(2, bstRight)] {
		n.Right = b.gen(depth + 1)
	}
	b.path.Truncate(mark - 1)
	return n
}

// isBSTTree reports whether every node's value is above all values in its left
// subtree and below all in its right one.
func isBSTTree(n *node) bool { return isBST(n, -1, 11) }

func isBST(n *node, lo, hi int) bool {
	if n == nil {
		return true
	}
	return lo < n.Value && n.Value < hi && isBST(n.Left, lo, n.Value) && isBST(n.Right, n.Value, hi)
}

// String writes the tree as (left value right), "." for none.
func (n *node) String() string {
	var b strings.Builder
	var rec func(*node)
	rec = func(n *node) {
		if n == nil {
			b.WriteByte('.')
			return
		}
		b.WriteByte('(')
		rec(n.Left)
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(n.Value))
		b.WriteByte(' ')
		rec(n.Right)
		b.WriteByte(')')
	}
	rec(n)
	return b.String()
}

// Generator returns the bst example's generator; a nil guide chooses
// uniformly at random (a guide with ε = 1 that is never rewarded).
func Generator(guide *synth.Guide, state synth.StateKind, seed uint64) (gen func() []byte, oracle synth.Oracle) {
	if guide == nil {
		guide = synth.NewGuide(seed)
		guide.Epsilon = 1
	}
	b := &bst{Guide: guide, State: state}
	return func() []byte { return []byte(b.Generate().String()) }, synth.FuncOracle(func(in []byte) bool { return validBST(string(in)) })
}

// validBST parses the (left value right) form back and checks the bst property.
func validBST(s string) bool {
	n, rest, ok := parseBST(s)
	return ok && rest == "" && isBSTTree(n)
}

func parseBST(s string) (*node, string, bool) {
	if strings.HasPrefix(s, ".") {
		return nil, s[1:], true
	}
	if !strings.HasPrefix(s, "(") {
		return nil, s, false
	}
	left, rest, ok := parseBST(s[1:])
	if !ok || !strings.HasPrefix(rest, " ") {
		return nil, s, false
	}
	rest = rest[1:]
	end := strings.IndexByte(rest, ' ')
	if end < 0 {
		return nil, s, false
	}
	v := 0
	for _, c := range rest[:end] {
		if c < '0' || c > '9' || v > 1000 {
			return nil, s, false
		}
		v = v*10 + int(c-'0')
	}
	if end == 0 {
		return nil, s, false
	}
	right, rest, ok := parseBST(rest[end+1:])
	if !ok || !strings.HasPrefix(rest, ")") {
		return nil, s, false
	}
	return &node{Value: v, Left: left, Right: right}, rest[1:], true
}
