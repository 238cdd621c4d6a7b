package constraint

import "github.com/arbor-fuzz/arbor/grammar"

// An all(Sym, pred) clause has an instance per element of Sym in its
// scope occurrence, and a change to the tree seldom alters most of them:
// a copied name alters the instance of the use it lands on, and those
// whose predicate read a node that holds it. A Checker that must
// evaluate such a clause in a scope occurrence again (the occurrence
// holds the change) takes each other instance's verdict from the last
// evaluation when nothing that evaluation read can have changed:
//
//   - the element is no new node and does not hold the change;
//   - the scope's other nodes the clause names (the shared lists) are
//     the same nodes with the same text: the changed node cannot derive
//     an occurrence of their rules, in the old subtree or the new, and
//     none of them holds it;
//   - no node the evaluation reached through enclosing, or whose
//     insides it listed through descendant(s), holds the change.
//
// Other nodes are outside the changed subtree and do not hold it: their
// text, their nesting and their order are as they were. The clause may
// not read its scope (self, which holds the change), nor call a method
// (Parent, Descendants), nor name a rule by a computed string to
// enclosing, whose reach cannot be known; then every instance is
// evaluated, as before.
type instances struct {
	shared  []bool // by rule number: the rules the predicate reads as the scope's lists or nodes
	derives []bool // by grammar node ID: a subtree of the node may hold an occurrence of a shared rule
}

// instancesOf returns what lets c's instances be taken from the last
// evaluation, or nil where they cannot be.
func (s *Set) instancesOf(c *Clause) *instances {
	if c.each == nil || c.reach.any || c.readsSelf {
		return nil
	}
	in := &instances{shared: make([]bool, len(s.rules.ids))}
	for _, b := range c.bindings {
		if b.self || b.id < 0 || (b.sym == c.each.sym && !c.eachShared) {
			continue
		}
		in.shared[b.id] = true
	}
	nodes := s.g.Nodes
	in.derives = make([]bool, len(nodes))
	for changed := true; changed; {
		changed = false
		for i, n := range nodes {
			if n == nil || in.derives[i] {
				continue
			}
			d := n.Kind == grammar.KindRef && (s.rules.refs[i] < 0 || in.shared[s.rules.refs[i]])
			for _, k := range n.Children {
				if k == nil {
					continue
				}
				if k.ID < 0 || k.ID >= len(nodes) || nodes[k.ID] != k || in.derives[k.ID] {
					d = true // a node from elsewhere may derive anything
				}
			}
			if d {
				in.derives[i], changed = true, true
			}
		}
	}
	return in
}

// mayDerive reports whether the subtree of tree node n, before or after
// a change, may hold an occurrence of a shared rule.
func (in *instances) mayDerive(r *rules, n *grammar.Node) bool {
	if n.ID < 0 || n.ID >= len(r.nodes) || r.nodes[n.ID] != n {
		return true
	}
	return in.derives[n.ID]
}

// instance is what the last evaluation of an instance found: its
// element, its verdict, and the nodes it reached (Checker.reached,
// from to to).
type instance struct {
	tree     *grammar.Tree // the element's tree node
	failed   bool
	err      error
	from, to int32
}

// reusable reports whether the last change lets clause cl's instances
// in a scope occurrence that holds it be taken from their last
// evaluation (but those the change touches): the changed node's
// subtree cannot hold an occurrence of a shared rule, and no
// occurrence that holds the change is one.
func (c *Checker) reusable(cl *Clause) bool {
	in := cl.inst
	if in == nil || c.ix.changed == nil || c.ix.at < 0 {
		return false
	}
	if in.mayDerive(&c.set.rules, c.ix.changed.Node) {
		return false
	}
	for _, j := range c.chain {
		if id := c.ix.occ[j].id; id < 0 || in.shared[id] {
			return false
		}
	}
	return true
}

// touched reports whether an instance's evaluation reached a node that
// holds the change.
func (c *Checker) touched(prev *cached, r *instance) bool {
	for _, t := range prev.reached[r.from:r.to] {
		for _, j := range c.chain {
			if c.ix.occ[j].tree == t {
				return true
			}
		}
	}
	return false
}

// match finds the record of element t in prev's instances from k on:
// the elements that stay keep their order. It returns the record's
// index, or -1 for a new element.
func match(prev []instance, k int, t *grammar.Tree) int {
	for ; k < len(prev); k++ {
		if prev[k].tree == t {
			return k
		}
	}
	return -1
}
