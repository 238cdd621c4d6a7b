package constraint

import (
	"fmt"
	"slices"

	"github.com/expr-lang/expr/vm"

	"github.com/arbor-fuzz/arbor/grammar"
)

// A Violation is one instance of a clause that an input breaks: the
// clause in one occurrence of its scope, or, for a clause of the form
// all(Sym, pred), one element of Sym.
type Violation struct {
	Clause *Clause
	Scope  *Node // the scope occurrence
	At     *Node // the element that breaks it, or the scope occurrence
	Err    error // non-nil if the expression could not be evaluated (a missing optional node)
}

func (v Violation) String() string {
	s := fmt.Sprintf("%s: %s at offset %d (%q)", v.Clause.Where.Pos, v.Clause, v.At.Start, clip(v.At.Text, 40))
	if v.Err != nil {
		s += ": " + v.Err.Error()
	}
	return s
}

// Broken is a Violation as data, for JSON output and for keeping after
// the Checker has moved on.
type Broken struct {
	Clause string `json:"clause"`          // the clause as written
	Pos    string `json:"pos"`             // the clause's file:line:col
	At     int    `json:"at"`              // byte offset of the breaking node
	Text   string `json:"text"`            // its text, cut to 80 bytes
	Error  string `json:"error,omitempty"` // why the clause could not be evaluated, if so
}

// Broken returns v as data.
func (v Violation) Broken() Broken {
	b := Broken{Clause: v.Clause.String(), Pos: v.Clause.Where.Pos.String(), At: v.At.Start, Text: clip(v.At.Text, 80)}
	if v.Err != nil {
		b.Error = v.Err.Error()
	}
	return b
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// A Checker evaluates a Set's clauses on trees. It reuses its memory
// from one tree to the next and is not safe for concurrent use; the
// Nodes it reports are valid until the next call.
type Checker struct {
	set *Set
	// The tree last checked, and the one before: Revert brings that
	// back with its Nodes.
	*generation
	other      *generation
	revertible bool // the last call was RecheckWithin
	vm         vm.VM
	envs       []map[string]any // per clause
	lists      [][][]*Node      // per clause, per binding: the list buffer
	boxes      [][]any          // per clause, per binding: the list as the environment last held it
	one        []*Node          // the element of an all instance
	oneEnv     any              // one, as the environment holds it (boxed once)
	// cache holds, per clause and scope occurrence (by its tree node),
	// what the last evaluation found, for Recheck.
	cache map[cacheKey]*cached
	free  []*cached // entries no longer in the cache, for their memory
	// journal holds what the last RecheckWithin changed in the cache,
	// for Revert.
	journal    []journaled
	journaling bool
	held       []int // the buffer of holders
	// reached, while tracing, is where the functions that reach out of
	// a node (enclosing, descendant, descendants) note the nodes they
	// reach from or to (instances).
	reached *[]*grammar.Tree
}

// A generation is a checked tree's index and Nodes.
type generation struct {
	ix    index
	nodes []Node
	made  []uint32 // made[i] == stamp: nodes[i] is of this tree
	stamp uint32
	// chain is the occurrences that hold the changed node, innermost
	// first.
	chain []int
}

type cacheKey struct {
	clause int
	scope  *grammar.Tree
}

// cached is a scope occurrence's instances that broke, by their
// occurrence's distance from the scope's in pre-order, which a
// derivation that did not change keeps; and, for a clause whose
// instances can be taken one by one (instances), every instance's
// verdict and the nodes its evaluation reached.
type cached struct {
	fails   []cachedFail
	insts   []instance
	reached []*grammar.Tree
	shared  []*grammar.Tree // the shared lists' nodes, binding by binding (nil ends a binding)
}

type cachedFail struct {
	delta int
	err   error
}

// journaled is a cache entry as it was before an evaluation replaced it
// (nil: there was none).
type journaled struct {
	key      cacheKey
	old, new *cached
}

// NewChecker returns a Checker of s's clauses.
func NewChecker(s *Set) *Checker {
	c := &Checker{set: s, generation: &generation{}, other: &generation{}, envs: make([]map[string]any, s.Len()), lists: make([][][]*Node, s.Len()), boxes: make([][]any, s.Len()), one: make([]*Node, 1)}
	for i, cl := range s.clauses {
		c.envs[i] = map[string]any{}
		c.lists[i] = make([][]*Node, len(cl.bindings))
		c.boxes[i] = make([]any, len(cl.bindings))
	}
	c.oneEnv = c.one
	return c
}

// Check returns every clause instance t breaks, in clause order and,
// within a clause, in input order. t must be a complete tree of the
// grammar the Set was compiled for.
func (c *Checker) Check(t *grammar.Tree) []Violation {
	c.forget()
	return c.eval(t, nil, -1)
}

// CheckWithin is Check that stops once more than most instances break,
// and then reports false with only those: a caller that gives up on a
// tree past a count (a repair with no hope) need not count further.
// Recheck may follow CheckWithin only where it reported true.
func (c *Checker) CheckWithin(t *grammar.Tree, most int) ([]Violation, bool) {
	c.forget()
	vs := c.eval(t, nil, most)
	if len(vs) > most {
		c.forget()
		return vs, false
	}
	return vs, true
}

// Recheck is Check after a change to a tree the Checker has checked
// (with Check or Recheck): changed is the node whose children or value
// were changed since. Only the scope occurrences that hold it, and those
// not evaluated before (a new subtree's), are evaluated; the others'
// instances are taken from the last evaluation, since their
// derivations did not change. A scope occurrence that a changed
// occurrence of a rule the clause reaches (enclosing) holds is
// evaluated too; and in one that holds the change, an all(...)
// clause's instances that the change cannot alter are taken from the
// last evaluation (instances). The result is Check's, but for a clause
// that compares a node's absolute offset with a constant, or does
// arithmetic on the offsets of two nodes either side of the change.
func (c *Checker) Recheck(t, changed *grammar.Tree) []Violation {
	return c.eval(t, changed, -1)
}

// RecheckWithin is Recheck that stops once more than most instances
// break, and then reports false with only those: a search that undoes
// every change which breaks more than it mends need not count further.
// The next Recheck after an undoing of the change finds what a full
// check finds, as after Recheck.
func (c *Checker) RecheckWithin(t, changed *grammar.Tree, most int) ([]Violation, bool) {
	c.journaling = true
	vs := c.eval(t, changed, most)
	c.journaling, c.revertible = false, true
	return vs, len(vs) <= most
}

// Revert undoes what the last RecheckWithin learnt, for a caller that
// has undone the change it was told of, and brings back the Nodes of
// the call before it: the violations that call returned are valid
// again, and are what a full check of the tree finds. (Recheck(t, nil)
// finds them again too, replaying what was found before the change.)
// Revert does nothing but after RecheckWithin.
func (c *Checker) Revert() {
	if !c.revertible {
		return
	}
	c.revertible = false
	c.generation, c.other = c.other, c.generation
	for i := len(c.journal) - 1; i >= 0; i-- {
		j := c.journal[i]
		c.release(j.new)
		if j.old != nil {
			c.cache[j.key] = j.old
		} else {
			delete(c.cache, j.key)
		}
	}
	c.journal = c.journal[:0]
}

// eval checks t, taking from the cache what changed leaves as it was,
// and stops once more than most instances break (most < 0: never).
// After a stop, the cache is what it was for the scope occurrences not
// evaluated, and those evaluated are marked to be evaluated again by
// the next change's marks: they hold the changed node.
func (c *Checker) eval(t, changed *grammar.Tree, most int) []Violation {
	// The last generation is kept, for a Revert after RecheckWithin.
	c.generation, c.other = c.other, c.generation
	c.revertible = false
	c.index(t, changed)
	if c.cache == nil {
		c.cache = map[cacheKey]*cached{}
	}
	// A journal not reverted is of a change that was kept: the
	// entries it replaced are done with.
	for _, j := range c.journal {
		c.release(j.old)
	}
	c.journal = c.journal[:0]
	var out []Violation
	for ci, cl := range c.set.clauses {
		reuse := c.reusable(cl)
		held := c.holders(cl)
		for _, i := range c.ix.of(cl.scopeID) {
			i := int(i)
			o := &c.ix.occ[i]
			key := cacheKey{ci, o.tree}
			e, ok := c.cache[key]
			if ok && !o.changed && c.unaffected(cl, i, held) {
				out = c.replay(cl, i, e, out)
				if most >= 0 && len(out) > most {
					return out
				}
				continue
			}
			// A new entry; the old one is kept by the journal, or its
			// memory reused once the new one is made.
			n := c.fresh()
			if c.journaling {
				c.journal = append(c.journal, journaled{key: key, old: e, new: n})
			}
			c.cache[key] = n
			prev := e
			if !reuse || !o.changed {
				prev = nil
			}
			from := len(out)
			out = c.evalScope(ci, cl, i, out, most, prev, n)
			if !c.journaling {
				c.release(e)
			}
			if most >= 0 && len(out) > most {
				// This occurrence's instances are not all known:
				// it must not be replayed.
				delete(c.cache, key)
				c.release(n)
				if c.journaling {
					c.journal[len(c.journal)-1].new = nil
				}
				return out
			}
			for _, v := range out[from:] {
				n.fails = append(n.fails, cachedFail{v.At.i - i, v.Err})
			}
		}
	}
	return out
}

// forget empties the cache, keeping its entries' memory.
func (c *Checker) forget() {
	for _, e := range c.cache {
		c.release(e)
	}
	clear(c.cache)
	for _, j := range c.journal {
		c.release(j.old)
	}
	c.journal = c.journal[:0]
}

// fresh returns an empty cache entry, reusing a released one's memory.
func (c *Checker) fresh() *cached {
	if k := len(c.free); k > 0 {
		e := c.free[k-1]
		c.free = c.free[:k-1]
		e.fails, e.insts, e.reached, e.shared = e.fails[:0], e.insts[:0], e.reached[:0], e.shared[:0]
		return e
	}
	return &cached{}
}

// release gives back the memory of e (nil: none), which no cache entry
// or journal holds any more.
func (c *Checker) release(e *cached) {
	if e != nil {
		// No tree kept alive by memory kept for reuse.
		clear(e.insts)
		clear(e.reached)
		clear(e.shared)
		c.free = append(c.free, e)
	}
}

// holders lists the occurrences that hold the changed node and that
// clause cl may read from a scope occurrence they hold (through
// enclosing): an occurrence of a rule in its reach.
func (c *Checker) holders(cl *Clause) []int {
	c.held = c.held[:0]
	if cl.reach.ids == nil {
		return c.held
	}
	for _, j := range c.chain {
		if id := c.ix.occ[j].id; id >= 0 && cl.reach.ids[id] {
			c.held = append(c.held, j)
		}
	}
	return c.held
}

// unaffected reports whether the last change leaves clause cl's verdict
// in scope occurrence s (which does not hold the changed node) as it
// was: whether no occurrence the clause reads outside s holds it.
// Those are the occurrences of the rules it names in enclosing that hold
// s: held, the holders of the change, must not hold s.
func (c *Checker) unaffected(cl *Clause, s int, held []int) bool {
	if cl.reach.any {
		return false
	}
	for _, h := range held {
		if h < s && s <= c.ix.occ[h].last {
			return false
		}
	}
	return true
}

// replay appends to out the instances of scope occurrence s that e
// holds broken.
func (c *Checker) replay(cl *Clause, s int, e *cached, out []Violation) []Violation {
	self := c.node(s)
	for _, x := range e.fails {
		out = append(out, Violation{Clause: cl, Scope: self, At: c.node(s + x.delta), Err: x.err})
	}
	return out
}

// index indexes t and starts a new generation of Nodes.
func (c *Checker) index(t, changed *grammar.Tree) {
	c.ix.build(c.set.g, &c.set.rules, t, changed)
	n := len(c.ix.occ)
	if cap(c.nodes) < n {
		c.nodes = make([]Node, n)
		c.made = make([]uint32, n)
	}
	c.nodes, c.made = c.nodes[:n], c.made[:n]
	c.chain = c.chain[:0]
	for j := c.ix.at; j >= 0; j = c.ix.occ[j].parent {
		c.chain = append(c.chain, j)
	}
	c.stamp++
	if c.stamp == 0 {
		clear(c.made)
		c.stamp = 1
	}
}

// evalScope evaluates clause cl in scope occurrence s and appends the
// instances that break to out. For a clause whose instances are taken
// one by one, it notes each in n, and takes those the change leaves as
// they were from prev (nil: none).
func (c *Checker) evalScope(ci int, cl *Clause, s int, out []Violation, most int, prev, n *cached) []Violation {
	env := c.envs[ci]
	self := c.node(s)
	env[selfName] = self
	for bi, b := range cl.bindings {
		switch {
		case b.self:
			env[b.sym] = self
		case b.list:
			l := c.lists[ci][bi][:0]
			c.ix.inside(s, b.id, cl.scopeID, func(j int) bool {
				l = append(l, c.node(j))
				return true
			})
			c.lists[ci][bi] = l
			env[b.sym] = box(&c.boxes[ci][bi], l)
			if cl.inst != nil && b.shared {
				for _, e := range l {
					n.shared = append(n.shared, c.ix.occ[e.i].tree)
				}
				n.shared = append(n.shared, nil)
			}
		default:
			var one *Node
			if j := c.ix.first(s, b.id, cl.scopeID); j >= 0 {
				one = c.node(j)
				if cl.inst != nil && b.shared {
					n.shared = append(n.shared, c.ix.occ[j].tree)
				}
			}
			if cl.inst != nil && b.shared {
				n.shared = append(n.shared, nil)
			}
			env[b.sym] = one
		}
	}
	if cl.each == nil {
		if ok, err := c.run(cl, env); !ok {
			out = append(out, Violation{Clause: cl, Scope: self, At: self, Err: err})
		}
		return out
	}
	if prev != nil && !slices.Equal(prev.shared, n.shared) {
		prev = nil
	}
	k := 0 // the next of prev's instances
	for _, e := range env[cl.each.sym].([]*Node) {
		tree := c.ix.occ[e.i].tree
		if prev != nil && !c.ix.occ[e.i].changed {
			if m := match(prev.insts, k, tree); m >= 0 {
				k = m + 1
				if r := &prev.insts[m]; !c.touched(prev, r) {
					from := int32(len(n.reached))
					n.reached = append(n.reached, prev.reached[r.from:r.to]...)
					n.insts = append(n.insts, instance{tree: tree, failed: r.failed, err: r.err, from: from, to: int32(len(n.reached))})
					if r.failed {
						out = append(out, Violation{Clause: cl, Scope: self, At: e, Err: r.err})
						if most >= 0 && len(out) > most {
							break
						}
					}
					continue
				}
			}
		}
		c.one[0] = e
		env[eachName] = c.oneEnv
		var ok bool
		var err error
		if cl.inst != nil {
			from := int32(len(n.reached))
			c.reached = &n.reached
			ok, err = c.run(cl, env)
			c.reached = nil
			n.insts = append(n.insts, instance{tree: tree, failed: !ok, err: err, from: from, to: int32(len(n.reached))})
		} else {
			ok, err = c.run(cl, env)
		}
		if !ok {
			out = append(out, Violation{Clause: cl, Scope: self, At: e, Err: err})
			if most >= 0 && len(out) > most {
				break
			}
		}
	}
	return out
}

// box returns l as an interface value, the one in *last if that holds
// the same slice: putting a slice in an interface allocates, and a
// binding's list is mostly the same buffer at the same length from one
// evaluation to the next (a tenth of a graphql repair's allocation).
func box(last *any, l []*Node) any {
	if old, ok := (*last).([]*Node); ok && len(old) == len(l) && cap(old) == cap(l) && (len(l) == 0 || &old[0] == &l[0]) {
		return *last
	}
	*last = l
	return *last
}

func (c *Checker) run(cl *Clause, env map[string]any) (bool, error) {
	out, err := c.vm.Run(cl.prog, env)
	if err != nil {
		return false, err
	}
	ok, _ := out.(bool)
	return ok, nil
}

// Symbols returns the rules the clause's expression names, the scope
// excepted.
func (cl *Clause) Symbols() []string {
	var out []string
	for _, b := range cl.bindings {
		if !b.self {
			out = append(out, b.sym)
		}
	}
	return out
}
