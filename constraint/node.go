package constraint

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Node is a rule occurrence as a constraint sees it: the symbol names
// of an expression stand for Nodes (or lists of them), and their fields
// are what constraints compare.
type Node struct {
	Rule  string  `expr:"rule"`  // the rule's name
	Text  string  `expr:"text"`  // the input it derives
	Num   float64 `expr:"num"`   // Text as a number (decimal, or 0x hex); NaN if it is none
	Len   int     `expr:"len"`   // Text's length in characters
	Start int     `expr:"start"` // byte offset in the input where it starts
	End   int     `expr:"end"`   // byte offset where it ends

	c *Checker
	i int // index in c.ix.occ
}

// Number is a node's num field for a node whose text is s: a decimal
// (integer or float) or a 0x, 0o or 0b integer, after trimming space;
// NaN if s is none. Relational features compare values the same way.
func Number(s string) float64 { return number(s) }

// number reads s as a number: a decimal (integer or float) or a 0x, 0o
// or 0b integer, after trimming space. Anything else is NaN, which
// compares false with every number, so that an order between values
// that are not numbers does not hold.
func number(s string) float64 {
	s = strings.TrimSpace(s)
	if !numeric(s) {
		// Most nodes are no numbers: a failed parse costs an error
		// value, which the check of every node would pay.
		return math.NaN()
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return float64(i)
	}
	return math.NaN()
}

// numeric reports whether s may be a number: short, and made of the
// characters numbers are written with.
func numeric(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	// Telling most texts that are no number by their first character
	// spares the error value a failed parse allocates.
	w := strings.TrimLeft(s, "+-")
	if w == "" {
		return false
	}
	if c := w[0]; !(c >= '0' && c <= '9' || c == '.') {
		// Only digits, or a point before them, start a number
		// ("e-3" or "fee" is none), but for the words Inf and NaN.
		return strings.EqualFold(w, "inf") || strings.EqualFold(w, "infinity") || strings.EqualFold(w, "nan")
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '.', c == '-', c == '+', c == '_':
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F', c == 'x', c == 'X', c == 'o', c == 'O', c == 'p', c == 'P':
		case c == 'i' || c == 'I' || c == 'n' || c == 'N' || c == 't' || c == 'T' || c == 'y' || c == 'Y': // Inf, NaN, infinity
		default:
			return false
		}
	}
	return true
}

// node returns the Node of occurrence i of x, made on first use.
func (c *Checker) node(i int) *Node {
	if c.made[i] == c.stamp {
		return &c.nodes[i]
	}
	c.made[i] = c.stamp
	o := &c.ix.occ[i]
	text := c.ix.text[o.start:o.end]
	c.nodes[i] = Node{Rule: o.rule, Text: text, Start: o.start, End: o.end, c: c, i: i}
	// Only what some clause reads is worked out.
	if c.set.uses.num {
		c.nodes[i].Num = number(text)
	}
	if c.set.uses.len {
		c.nodes[i].Len = utf8.RuneCountInString(text)
	}
	return &c.nodes[i]
}

// The functions constraints may call besides expr-lang's builtins.

// before reports whether a ends where or before b starts.
func before(a, b *Node) bool { return a != nil && b != nil && a.End <= b.Start && a.i != b.i }

// after reports whether a starts where or after b ends.
func after(a, b *Node) bool { return before(b, a) }

// inside reports whether a is inside b: an occurrence within b's
// derivation, b itself not counted.
func inside(a, b *Node) bool {
	return a != nil && b != nil && a.c == b.c && b.i < a.i && a.i <= b.c.ix.occ[b.i].last
}

// descendants returns the occurrences of rule inside a, in input order;
// descendant the first of them, or nil.
func descendants(a *Node, rule string) []*Node {
	if a == nil {
		return nil
	}
	a.c.reach(a.i)
	var out []*Node
	a.c.ix.inside(a.i, a.c.set.rules.id(rule), -1, func(j int) bool {
		out = append(out, a.c.node(j))
		return true
	})
	return out
}

func descendant(a *Node, rule string) *Node {
	if a == nil {
		return nil
	}
	a.c.reach(a.i)
	if j := a.c.ix.first(a.i, a.c.set.rules.id(rule), -1); j >= 0 {
		return a.c.node(j)
	}
	return nil
}

// enclosing returns the nearest occurrence of rule that a is inside, or
// nil.
func enclosing(a *Node, rule string) *Node {
	if a == nil {
		return nil
	}
	occ, id := a.c.ix.occ, a.c.set.rules.id(rule)
	if id < 0 {
		return nil
	}
	for j := occ[a.i].parent; j >= 0; j = occ[j].parent {
		if occ[j].id == id {
			a.c.reach(j)
			return a.c.node(j)
		}
	}
	return nil
}

// Tree is the derivation-tree node of the occurrence: the Ref that
// expands the rule, or for the start rule's outermost occurrence, the
// tree's root. It belongs to the tree the Checker last evaluated.
func (n *Node) Tree() *grammar.Tree { return n.c.ix.occ[n.i].tree }

// Parent is the nearest occurrence n is inside, or nil for the root.
func (n *Node) Parent() *Node {
	if p := n.c.ix.occ[n.i].parent; p >= 0 {
		return n.c.node(p)
	}
	return nil
}

// Depth is the number of rule occurrences n is inside: the rule
// expansions above its tree node.
func (n *Node) Depth() int {
	d := 0
	for p := n.c.ix.occ[n.i].parent; p >= 0; p = n.c.ix.occ[p].parent {
		d++
	}
	return d
}

// Descendants returns the occurrences of rule inside n, in input order
// (nested scopes included).
func (n *Node) Descendants(rule string) []*Node { return descendants(n, rule) }

// Inside reports whether n is inside m: an occurrence within m's
// derivation, m itself not counted.
func (n *Node) Inside(m *Node) bool { return inside(n, m) }

// reach notes, while a Checker traces an instance's evaluation, that it
// reached occurrence i: instances.
func (c *Checker) reach(i int) {
	if c.reached != nil {
		*c.reached = append(*c.reached, c.ix.occ[i].tree)
	}
}
