package constraint

import (
	"slices"
	"sort"

	"github.com/arbor-fuzz/arbor/grammar"
)

// rules numbers a grammar's rules, so that an index lists occurrences
// by rule and a check compares numbers, not names.
type rules struct {
	ids   map[string]int32
	nodes []*grammar.Node // the graph's nodes, by ID
	refs  []int32         // by node ID: the number of the rule a Ref names; -1 for other nodes
}

// newRules numbers g's rules in name order, and finds the rule every
// Ref node of g names.
func newRules(g *grammar.Graph) rules {
	names := make([]string, 0, len(g.Bodies))
	for name := range g.Bodies {
		names = append(names, name)
	}
	sort.Strings(names)
	r := rules{ids: make(map[string]int32, len(names)), nodes: g.Nodes, refs: make([]int32, len(g.Nodes))}
	for i, name := range names {
		r.ids[name] = int32(i)
	}
	for i, n := range g.Nodes {
		r.refs[i] = -1
		if n != nil && n.Kind == grammar.KindRef {
			r.refs[i] = r.id(n.Name)
		}
	}
	return r
}

// id is the number of rule name, or -1 if the grammar has none such.
func (r *rules) id(name string) int32 {
	if id, ok := r.ids[name]; ok {
		return id
	}
	return -1
}

// of is the number of the rule a Ref node names: by its ID, or by its
// name for a node from elsewhere.
func (r *rules) of(n *grammar.Node) int32 {
	if n.ID >= 0 && n.ID < len(r.nodes) && r.nodes[n.ID] == n {
		return r.refs[n.ID]
	}
	return r.id(n.Name)
}

// An occurrence is one rule occurrence in a derivation tree: the Ref
// node that expands the rule (for the start rule, the tree's root) and
// the part of the input it derives.
type occurrence struct {
	rule       string
	id         int32         // the rule's number
	tree       *grammar.Tree // the Ref's tree node; the root for the start rule
	start, end int           // byte offsets in the input
	last       int           // index of the last occurrence inside this one (pre-order)
	parent     int           // index of the enclosing occurrence; -1 for the root
	// changed marks the occurrences a change may have affected: those
	// whose derivation holds the changed node (Checker.Recheck).
	changed bool
}

// index lists a tree's rule occurrences in pre-order (which is the
// order of their start in the input, outer before inner), and each
// rule's occurrences, so that the occurrences of a rule inside one are
// found without visiting the others.
type index struct {
	rules   *rules
	text    string
	buf     []byte // the text as it is built
	occ     []occurrence
	byRule  [][]int32     // by rule number: the occurrences' indices, ascending
	changed *grammar.Tree // the node build marks the ancestors of
	at      int           // the innermost occurrence that holds it; -1: none
}

// build indexes t, reusing x's memory, and marks the occurrences that
// hold the tree node changed (nil: none) as changed. The input's text
// is realized in the same walk.
func (x *index) build(g *grammar.Graph, r *rules, t, changed *grammar.Tree) {
	x.rules = r
	x.buf = x.buf[:0]
	x.occ = x.occ[:0]
	if len(x.byRule) < len(r.ids) {
		x.byRule = make([][]int32, len(r.ids))
	}
	for i := range x.byRule {
		x.byRule[i] = x.byRule[i][:0]
	}
	x.changed, x.at = changed, -1
	x.add(occurrence{rule: g.Start, id: r.id(g.Start), tree: t, parent: -1, changed: changed != nil})
	end := x.walk(t, 0, 0)
	x.occ[0].end, x.occ[0].last = end, len(x.occ)-1
	x.text = string(x.buf)
}

// add appends occurrence o and returns its index.
func (x *index) add(o occurrence) int {
	i := len(x.occ)
	x.occ = append(x.occ, o)
	if o.id >= 0 {
		x.byRule[o.id] = append(x.byRule[o.id], int32(i))
	}
	return i
}

// mark marks occurrence i and those it is inside as changed.
func (x *index) mark(i int) {
	for ; i >= 0 && !x.occ[i].changed; i = x.occ[i].parent {
		x.occ[i].changed = true
	}
}

// walk indexes the occurrences below t, which starts at offset off and
// whose nearest enclosing occurrence is parent, appends its text, and
// returns the offset where t ends.
func (x *index) walk(t *grammar.Tree, off, parent int) int {
	if t == nil {
		return off
	}
	if t == x.changed {
		x.mark(parent)
		x.at = parent
	}
	switch t.Node.Kind {
	case grammar.KindLit, grammar.KindRegex:
		x.buf = append(x.buf, t.Value...)
		return off + len(t.Value)
	case grammar.KindRef:
		i := x.add(occurrence{rule: t.Node.Name, id: x.rules.of(t.Node), tree: t, start: off, parent: parent, changed: t == x.changed})
		if t == x.changed {
			x.at = i
		}
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

// of is the occurrences of rule id, ascending; none for a rule the
// grammar lacks (-1).
func (x *index) of(id int32) []int32 {
	if id < 0 || int(id) >= len(x.byRule) {
		return nil
	}
	return x.byRule[id]
}

// following is the occurrences of list (ascending) that come after
// occurrence i.
func following(list []int32, i int) []int32 {
	k, _ := slices.BinarySearch(list, int32(i)+1)
	return list[k:]
}

// inside calls f for every occurrence of rule sym inside occurrence i,
// skipping the insides of nested occurrences of rule stop (i's own rule
// when it is a scope; -1: none): those belong to the nested
// occurrence. It stops where f returns false.
func (x *index) inside(i int, sym, stop int32, f func(j int) bool) {
	last := x.occ[i].last
	var stops []int32
	if stop >= 0 {
		stops = following(x.of(stop), i)
	}
	skip := -1 // the last occurrence inside the nested stop occurrences met so far
	for _, j := range following(x.of(sym), i) {
		if int(j) > last {
			return
		}
		for len(stops) > 0 && stops[0] < j {
			if s := int(stops[0]); s > skip {
				skip = x.occ[s].last
			}
			stops = stops[1:]
		}
		if int(j) > skip && !f(int(j)) {
			return
		}
	}
}

// first is the first occurrence of rule sym inside occurrence i, as
// inside finds them, or -1.
func (x *index) first(i int, sym, stop int32) int {
	found := -1
	x.inside(i, sym, stop, func(j int) bool {
		found = j
		return false
	})
	return found
}
