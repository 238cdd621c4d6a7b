package synth

import (
	"strconv"
	"strings"
)

// BST is RLCheck's binary-search-tree example of a hand-written generator
// that calls a guide: node values 0..10, left and right children decided
// by coin choices, depth at most 4. Its state is the last W choices on the
// path from the root, which tell the child slots taken (TreeState), the
// last W choices of the run (WindowState), or nothing.
type BST struct {
	Guide *Guide
	State StateKind
	W     int // 0 means 5

	path, all Window
}

// StateKind selects a state abstraction.
type StateKind int

const (
	TreeState   StateKind = iota // last W choices on the path from the root
	WindowState                  // last W choices made, anywhere
	NoState                      // a single state
)

// BST choice points.
const (
	bstValue = iota
	bstLeft
	bstRight
)

var bstValues = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
var coins = []bool{false, true}

// Node is a binary tree node.
type Node struct {
	Value       int
	Left, Right *Node
}

// Generate builds one tree.
func (b *BST) Generate() *Node {
	w := b.W
	if w == 0 {
		w = 5
	}
	b.path.W, b.all.W = w, w
	b.path.Reset()
	b.all.Reset()
	return b.gen(0)
}

func (b *BST) state() State {
	switch b.State {
	case TreeState:
		return b.path.State()
	case WindowState:
		return b.all.State()
	}
	return 0
}

func (b *BST) choose(n, point int) int {
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
func (b *BST) gen(depth int) *Node {
	n := &Node{Value: bstValues[b.choose(len(bstValues), bstValue)]}
	mark := len(b.path.items)
	if depth < 4 && coins[b.choose(2, bstLeft)] {
		n.Left = b.gen(depth + 1)
	}
	b.path.items = b.path.items[:mark]
	if depth < 4 && coins[b.choose(2, bstRight)] {
		n.Right = b.gen(depth + 1)
	}
	b.path.items = b.path.items[:mark-1]
	return n
}

// IsBST reports whether every node's value is above all values in its left
// subtree and below all in its right one.
func IsBST(n *Node) bool { return isBST(n, -1, 11) }

func isBST(n *Node, lo, hi int) bool {
	if n == nil {
		return true
	}
	return lo < n.Value && n.Value < hi && isBST(n.Left, lo, n.Value) && isBST(n.Right, n.Value, hi)
}

// String writes the tree as (left value right), "." for none.
func (n *Node) String() string {
	var b strings.Builder
	var rec func(*Node)
	rec = func(n *Node) {
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
