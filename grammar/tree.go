package grammar

import (
	"bytes"
	"io"
	"strings"
)

// Tree is a node of a derivation tree. It points at the graph node it
// instantiates. A Ref has one child (its rule's right-hand side), an Alt
// exactly one (the alternative taken), a Cat one per element, a Quant
// 0..n; Lit and Regex are leaves holding the text they derive.
//
// A nil child is an open slot of a partial tree, which generators fill
// in any order.
type Tree struct {
	Node     *Node
	Children []*Tree
	Value    string // Lit and Regex: the derived text
}

// String returns the input the tree derives: its leaves' text in order.
// Open slots derive nothing.
func (t *Tree) String() string {
	var b strings.Builder
	t.appendText(&b)
	return b.String()
}

func (t *Tree) appendText(b *strings.Builder) {
	if t == nil {
		return
	}
	if t.Node.Kind == KindLit || t.Node.Kind == KindRegex {
		b.WriteString(t.Value)
		return
	}
	for _, c := range t.Children {
		c.appendText(b)
	}
}

// Size is the number of tree nodes (open slots not counted).
func (t *Tree) Size() int {
	if t == nil {
		return 0
	}
	n := 1
	for _, c := range t.Children {
		n += c.Size()
	}
	return n
}

// Walk calls f for every node in pre-order with its depth in rule
// expansions (Refs above it). It stops early when f returns false.
func (t *Tree) Walk(f func(t *Tree, depth int) bool) {
	t.walk(0, f)
}

func (t *Tree) walk(depth int, f func(*Tree, int) bool) bool {
	if t == nil {
		return true
	}
	if !f(t, depth) {
		return false
	}
	if t.Node.Kind == KindRef {
		depth++
	}
	for _, c := range t.Children {
		if !c.walk(depth, f) {
			return false
		}
	}
	return true
}

// Slot is a child position of a partial tree.
type Slot struct {
	Parent *Tree
	Index  int // position in Parent.Children
	Depth  int // rule expansions above the slot
}

// Node is the graph node that fills the slot, or, below an Alt, the Alt
// itself: the filler is then one of its children.
func (s Slot) Node() *Node {
	p := s.Parent.Node
	switch p.Kind {
	case KindRef, KindQuant:
		return p.Children[0]
	case KindCat:
		return p.Children[s.Index]
	}
	return p
}

// Slots returns the open slots (nil children) in pre-order.
func (t *Tree) Slots() []Slot {
	var out []Slot
	t.Walk(func(n *Tree, depth int) bool {
		d := depth
		if n.Node.Kind == KindRef {
			d++
		}
		for i, c := range n.Children {
			if c == nil {
				out = append(out, Slot{Parent: n, Index: i, Depth: d})
			}
		}
		return true
	})
	return out
}

// Complete reports whether the tree has no open slots.
func (t *Tree) Complete() bool {
	complete := true
	t.Walk(func(n *Tree, _ int) bool {
		for _, c := range n.Children {
			if c == nil {
				complete = false
			}
		}
		return complete
	})
	return complete
}

// A Visitor is told the nodes of derivation trees in pre-order: Enter at
// a node before its children, Leave after them. text is what a Lit or
// Regex leaf derives, and empty for other nodes. An open slot of a
// partial tree is told as Enter(nil, "") and Leave(nil).
type Visitor interface {
	Enter(n *Node, text string)
	Leave(n *Node)
}

// Visit tells v the tree's nodes in pre-order. It keeps its own stack
// rather than recursing, so a tree of any depth can be visited.
func (t *Tree) Visit(v Visitor) {
	type frame struct {
		t    *Tree
		next int // the next child to visit; -1 before the node is entered
	}
	stack := []frame{{t, -1}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.t == nil {
			v.Enter(nil, "")
			v.Leave(nil)
			stack = stack[:len(stack)-1]
			continue
		}
		if f.next < 0 {
			v.Enter(f.t.Node, f.t.Value)
			f.next = 0
		}
		if f.next < len(f.t.Children) {
			c := f.t.Children[f.next]
			f.next++
			stack = append(stack, frame{c, -1})
			continue
		}
		v.Leave(f.t.Node)
		stack = stack[:len(stack)-1]
	}
}

// MarshalJSON renders the tree as nested objects
// {"id":0,"kind":"Ref","label":"Expr","children":[...]}; leaves carry
// "text", and open slots are null. encoding/json checks what a
// MarshalJSON method returns and refuses more than 10,000 levels of
// nesting (a tree's JSON nests twice per tree level), so deep trees are
// written with WriteJSON.
func (t *Tree) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := t.WriteJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteJSON writes the tree in MarshalJSON's form, at any depth, as it
// walks it.
func (t *Tree) WriteJSON(w io.Writer) error {
	tw := NewJSONWriter(w)
	t.Visit(tw)
	return tw.Flush()
}

// WriteText writes an indented outline of the tree, one node per line:
// its symbol (label_id) and, for a regex terminal, the text it matched.
// With symbolicOnly, synthetic nodes (Alt, Cat, Quant) are left out and
// their children shown one level up. Lines at depth MaxIndent or deeper
// are not indented further but start with the depth, as in
// "·[5123] Value_2", so the outline grows linearly with the tree.
func (t *Tree) WriteText(w io.Writer, symbolicOnly bool) error {
	tw := NewTextWriter(w, symbolicOnly)
	t.Visit(tw)
	return tw.Flush()
}

// WriteDOT writes the tree as a Graphviz digraph.
func (t *Tree) WriteDOT(w io.Writer) error {
	tw := NewDOTWriter(w)
	t.Visit(tw)
	return tw.Flush()
}
