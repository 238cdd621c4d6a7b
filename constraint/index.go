package constraint

import (
	"github.com/arbor-fuzz/arbor/grammar"
)

// An occurrence is one rule occurrence in a derivation tree: the Ref
// node that expands the rule (for the start rule, the tree's root) and
// the part of the input it derives.
type occurrence struct {
	rule       string
	tree       *grammar.Tree // the Ref's tree node; the root for the start rule
	start, end int           // byte offsets in the input
	last       int           // index of the last occurrence inside this one (pre-order)
	parent     int           // index of the enclosing occurrence; -1 for the root
	// changed marks the occurrences a change may have affected: those
	// whose derivation holds the changed node (Checker.Recheck).
	changed bool
}

// index lists a tree's rule occurrences in pre-order (which is the
// order of their start in the input, outer before inner).
type index struct {
	text    string
	occ     []occurrence
	changed *grammar.Tree // the node build marks the ancestors of
}

// build indexes t, reusing x's memory, and marks the occurrences that
// hold the tree node changed (nil: none) as changed.
func (x *index) build(g *grammar.Graph, t, changed *grammar.Tree) {
	x.text = t.String()
	x.occ = x.occ[:0]
	x.changed = changed
	x.occ = append(x.occ, occurrence{rule: g.Start, tree: t, parent: -1, changed: changed != nil})
	end := x.walk(t, 0, 0)
	x.occ[0].end, x.occ[0].last = end, len(x.occ)-1
}

// mark marks occurrence i and those it is inside as changed.
func (x *index) mark(i int) {
	for ; i >= 0 && !x.occ[i].changed; i = x.occ[i].parent {
		x.occ[i].changed = true
	}
}

// walk indexes the occurrences below t, which starts at offset off and
// whose nearest enclosing occurrence is parent, and returns the offset
// where t ends.
func (x *index) walk(t *grammar.Tree, off, parent int) int {
	if t == nil {
		return off
	}
	if t == x.changed {
		x.mark(parent)
	}
	switch t.Node.Kind {
	case grammar.KindLit, grammar.KindRegex:
		return off + len(t.Value)
	case grammar.KindRef:
		i := len(x.occ)
		x.occ = append(x.occ, occurrence{rule: t.Node.Name, tree: t, start: off, parent: parent, changed: t == x.changed})
		end := off
		for _, c := range t.Children {
			end = x.walk(c, end, i)
		}
		x.occ[i].end, x.occ[i].last = end, len(x.occ)-1
		return end
	}
	for _, c := range t.Children {
		off = x.walk(c, off, parent)
	}
	return off
}

// inside calls f for every occurrence of rule sym inside occurrence i,
// skipping the insides of nested occurrences of rule stop (i's own rule
// when it is a scope): those belong to the nested occurrence.
func (x *index) inside(i int, sym, stop string, f func(j int)) {
	for j := i + 1; j <= x.occ[i].last; j++ {
		o := &x.occ[j]
		if o.rule == sym {
			f(j)
		}
		if o.rule == stop {
			j = o.last
		}
	}
}

// first is the first occurrence of rule sym inside occurrence i, as
// inside finds them, or -1.
func (x *index) first(i int, sym, stop string) int {
	for j := i + 1; j <= x.occ[i].last; j++ {
		o := &x.occ[j]
		if o.rule == sym {
			return j
		}
		if o.rule == stop {
			j = o.last
		}
	}
	return -1
}
