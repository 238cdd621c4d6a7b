package constraint

import (
	"fmt"

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
	set   *Set
	ix    index
	nodes []Node
	made  []uint32 // made[i] == stamp: nodes[i] is of this tree
	stamp uint32
	vm    vm.VM
	envs  []map[string]any // per clause
	lists [][][]*Node      // per clause, per binding: the list buffer
	one   []*Node          // the element of an all instance
	buf   []*Node          // Inside's result
}

// NewChecker returns a Checker of s's clauses.
func NewChecker(s *Set) *Checker {
	c := &Checker{set: s, envs: make([]map[string]any, s.Len()), lists: make([][][]*Node, s.Len()), one: make([]*Node, 1)}
	for i, cl := range s.clauses {
		c.envs[i] = map[string]any{}
		c.lists[i] = make([][]*Node, len(cl.bindings))
	}
	return c
}

// Check returns every clause instance t breaks, in clause order and,
// within a clause, in input order. t must be a complete tree of the
// grammar the Set was compiled for.
func (c *Checker) Check(t *grammar.Tree) []Violation {
	var out []Violation
	c.Eval(t, func(v Violation, ok bool) {
		if !ok {
			out = append(out, v)
		}
	})
	return out
}

// Count returns the number of clause instances of t that hold and the
// number there are: the search's fitness.
func (c *Checker) Count(t *grammar.Tree) (held, total int) {
	c.Eval(t, func(_ Violation, ok bool) {
		total++
		if ok {
			held++
		}
	})
	return held, total
}

// Eval evaluates every clause instance of t and calls f with each and
// whether it holds.
func (c *Checker) Eval(t *grammar.Tree, f func(v Violation, ok bool)) {
	c.index(t)
	for ci, cl := range c.set.clauses {
		for i := range c.ix.occ {
			if c.ix.occ[i].rule == cl.scope {
				c.evalScope(ci, cl, i, f)
			}
		}
	}
}

// index indexes t and starts a new generation of Nodes.
func (c *Checker) index(t *grammar.Tree) {
	c.ix.build(c.set.g, t)
	n := len(c.ix.occ)
	if cap(c.nodes) < n {
		c.nodes = make([]Node, n)
		c.made = make([]uint32, n)
	}
	c.nodes, c.made = c.nodes[:n], c.made[:n]
	c.stamp++
	if c.stamp == 0 {
		clear(c.made)
		c.stamp = 1
	}
}

// evalScope evaluates clause cl in scope occurrence s.
func (c *Checker) evalScope(ci int, cl *Clause, s int, f func(Violation, bool)) {
	env := c.envs[ci]
	self := c.node(s)
	env[selfName] = self
	for bi, b := range cl.bindings {
		switch {
		case b.self:
			env[b.sym] = self
		case b.list:
			l := c.lists[ci][bi][:0]
			c.ix.inside(s, b.sym, cl.scope, func(j int) { l = append(l, c.node(j)) })
			c.lists[ci][bi] = l
			env[b.sym] = l
		default:
			var n *Node
			c.ix.inside(s, b.sym, cl.scope, func(j int) {
				if n == nil {
					n = c.node(j)
				}
			})
			env[b.sym] = n
		}
	}
	if cl.each == nil {
		ok, err := c.run(cl, env)
		f(Violation{Clause: cl, Scope: self, At: self, Err: err}, ok)
		return
	}
	for _, e := range env[cl.each.sym].([]*Node) {
		c.one[0] = e
		env[eachName] = c.one
		ok, err := c.run(cl, env)
		f(Violation{Clause: cl, Scope: self, At: e, Err: err}, ok)
	}
}

func (c *Checker) run(cl *Clause, env map[string]any) (bool, error) {
	out, err := c.vm.Run(cl.prog, env)
	if err != nil {
		return false, err
	}
	ok, _ := out.(bool)
	return ok, nil
}

// Inside returns the occurrences of rule inside n, in input order (all
// of them, nested scopes included). The list is n's Checker's and valid
// until its next call.
func (c *Checker) Inside(n *Node, rule string) []*Node {
	c.buf = c.buf[:0]
	c.ix.inside(n.i, rule, "", func(j int) { c.buf = append(c.buf, c.node(j)) })
	return c.buf
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
