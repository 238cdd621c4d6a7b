package grammar

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
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

// jsonTree is the JSON form of a tree node.
type jsonTree struct {
	ID       int         `json:"id"`
	Kind     string      `json:"kind"`
	Label    string      `json:"label"`
	Text     *string     `json:"text,omitempty"`
	Children []*jsonTree `json:"children,omitempty"`
}

func toJSON(t *Tree) *jsonTree {
	if t == nil {
		return nil
	}
	j := &jsonTree{ID: t.Node.ID, Kind: t.Node.Kind.String(), Label: t.Node.Label()}
	if t.Node.Kind == KindLit || t.Node.Kind == KindRegex {
		v := t.Value
		j.Text = &v
	}
	for _, c := range t.Children {
		j.Children = append(j.Children, toJSON(c))
	}
	return j
}

// MarshalJSON renders the tree as nested objects
// {"id":0,"kind":"Ref","label":"Expr","children":[...]}; leaves carry "text".
func (t *Tree) MarshalJSON() ([]byte, error) { return json.Marshal(toJSON(t)) }

// WriteText writes an indented outline of the tree, one node per line.
// With symbolicOnly, synthetic nodes (Alt, Cat, Quant) are left out and
// their children shown one level up.
func (t *Tree) WriteText(w io.Writer, symbolicOnly bool) error {
	var b strings.Builder
	var rec func(t *Tree, indent int)
	rec = func(t *Tree, indent int) {
		if t == nil {
			fmt.Fprintf(&b, "%s<open slot>\n", strings.Repeat("  ", indent))
			return
		}
		show := !symbolicOnly || t.Node.Kind.Symbolic()
		if show {
			b.WriteString(strings.Repeat("  ", indent))
			b.WriteString(t.Node.String())
			if t.Node.Kind == KindRegex {
				b.WriteString(" ")
				b.WriteString(strconv.Quote(t.Value))
			}
			b.WriteByte('\n')
			indent++
		}
		for _, c := range t.Children {
			rec(c, indent)
		}
	}
	rec(t, 0)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteDOT writes the tree as a Graphviz digraph.
func (t *Tree) WriteDOT(w io.Writer) error {
	var b strings.Builder
	b.WriteString("digraph tree {\n  node [fontname=\"Helvetica\"];\n")
	n := 0
	var rec func(t *Tree) int
	rec = func(t *Tree) int {
		id := n
		n++
		if t == nil {
			fmt.Fprintf(&b, "  n%d [label=\"\" shape=box style=dashed];\n", id)
			return id
		}
		label := t.Node.String()
		attrs := ""
		switch t.Node.Kind {
		case KindLit, KindRegex:
			label = strconv.Quote(t.Value)
			attrs = " shape=box"
		case KindAlt, KindCat, KindQuant:
			attrs = " shape=point"
			label = t.Node.String()
		}
		fmt.Fprintf(&b, "  n%d [label=%s%s tooltip=%s];\n", id, dotQuote(label), attrs, dotQuote(t.Node.String()))
		for _, c := range t.Children {
			cid := rec(c)
			fmt.Fprintf(&b, "  n%d -> n%d;\n", id, cid)
		}
		return id
	}
	rec(t)
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
