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
//     the same nodes as at the last evaluation, and none of them holds
//     the change, so that their text is the same too;
//   - no node the evaluation reached through enclosing, or whose
//     insides it listed through descendant(s), holds the change.
//
// Other nodes are outside the changed subtree and do not hold it: their
// text, their nesting and their order are as they were, and offsets
// shift alike on each side of the change (a predicate that does
// arithmetic on the offsets of two nodes either side of it is the
// exception, as one that compares an offset with a constant is for
// Recheck: the search's verdict comes from a full check). The clause may
// not read its scope (self, which holds the change), nor call a method
// (Parent, Descendants), nor name a rule by a computed string to
// enclosing, whose reach cannot be known; then every instance is
// evaluated, as before.
type instances struct {
	shared []bool // by rule number: the rules the predicate reads as the scope's lists or nodes
}

// instancesOf returns what lets c's instances be taken from the last
// evaluation, or nil where they cannot be.
func (s *Set) instancesOf(c *Clause) *instances {
	if c.each == nil || c.reach.any || c.readsSelf {
		return nil
	}
	in := &instances{shared: make([]bool, len(s.rules.ids))}
	for i := range c.bindings {
		b := &c.bindings[i]
		b.shared = !b.self && (b != c.each || c.eachShared)
		if b.shared && b.id >= 0 {
			in.shared[b.id] = true
		}
	}
	return in
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
// evaluation (but those the change touches), if the shared lists hold
// the same nodes: no occurrence that holds the change is of a shared
// rule.
func (c *Checker) reusable(cl *Clause) bool {
	in := cl.inst
	if in == nil || c.ix.changed == nil || c.ix.at < 0 {
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
