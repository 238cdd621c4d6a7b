package synth

import (
	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
)

// A repair narrows what generation writes unless it is told what to
// keep. Its changes are kept when the tree breaks fewer clause
// instances, and a part of the language that needs other parts to
// agree (graphql's addPost needs an input object with a title, under a
// mutation) loses to one that needs nothing (a field named version):
// the repaired trees collapse onto the easy parts (docs/algorithms.md,
// "The repair narrows what random generation writes"). So Make keeps
// one choice of each tree it repairs, the one generation has least
// often written into a satisfying tree, and repairs around it: the
// node of the tree's rarest 2-path stays, and the changes that would
// take it out change a subtree beside it instead. This is the k-path
// diversity that ISLa's and Fandango's searches reward, applied as a
// constraint on the repair rather than as a term of its fitness.

// pathKey is the map key of the 2-path from symbolic node parent to
// symbolic node child.
func pathKey(parent, child int) uint64 { return uint64(parent)<<32 | uint64(uint32(child)) }

// walkPaths2 calls f for each 2-path of t, with its key and the tree
// nodes from the root down to the path's lower node.
func walkPaths2(t *grammar.Tree, f func(key uint64, path []*grammar.Tree)) {
	var path []*grammar.Tree
	var walk func(t *grammar.Tree, parent int)
	walk = func(t *grammar.Tree, parent int) {
		path = append(path, t)
		if t.Node.Kind.Symbolic() {
			if parent >= 0 {
				f(pathKey(parent, t.Node.ID), path)
			}
			parent = t.Node.ID
		}
		for _, c := range t.Children {
			if c != nil {
				walk(c, parent)
			}
		}
		path = path[:len(path)-1]
	}
	walk(t, -1)
}

// note counts the 2-paths of a satisfying tree Make returns.
func (s *Satisfier) note(t *grammar.Tree) {
	if s.NoKeep {
		return
	}
	if s.held == nil {
		s.held = map[uint64]int{}
	}
	walkPaths2(t, func(k uint64, _ []*grammar.Tree) { s.held[k]++ })
}

// protect makes the repair of t keep the node of t's 2-path that the
// satisfying trees so far hold least often (ties broken at random), and
// so its ancestors; it returns the path's key and whether one was kept.
func (s *Satisfier) protect(t *grammar.Tree) (uint64, bool) {
	if s.held == nil {
		s.held = map[uint64]int{}
	}
	var (
		best  []*grammar.Tree
		least = -1
		ties  int
		kept  uint64
	)
	walkPaths2(t, func(k uint64, path []*grammar.Tree) {
		switch n := s.held[k]; {
		case least < 0 || n < least:
			least, ties = n, 1
			best, kept = append(best[:0], path...), k
		case n == least:
			ties++
			if s.r.IntN(ties) == 0 {
				best, kept = append(best[:0], path...), k
			}
		}
	})
	// A 2-path the satisfying trees already hold n times is kept one
	// time in n+1: keeping costs repair steps, and the rarer a path,
	// the more an input that holds it adds.
	if least < 0 || s.r.IntN(least+1) > 0 {
		return 0, false
	}
	s.keep = make(map[*grammar.Tree]bool, len(best))
	for _, n := range best {
		s.keep[n] = true
	}
	return kept, true
}

// settle ends the keeping of a repair of t that left broken instances
// (protect's kept and protected say what it kept): a satisfying t is
// noted, and a 2-path kept in vain (the repair failed, or let it go
// after its quarter) is counted as if held, so that one the clauses
// forbid stops being the rarest. (Doubling its count instead made the
// inputs narrower on 6 of the 11 grammars with clauses.)
func (s *Satisfier) settle(t *grammar.Tree, broken int, kept uint64, protected bool) {
	mended := protected && s.keep != nil && broken == 0 // around the kept node
	s.keep = nil
	if broken == 0 {
		s.note(t)
	}
	if protected && !mended {
		s.held[kept]++
	}
}

// slot is a place in a tree where a subtree can be generated anew: the
// parent's i-th child, expanded at depth.
type slot struct {
	parent *grammar.Tree
	i      int
	depth  int
}

// regenerateBeside generates anew a subtree inside e that holds no
// kept node: one of the decisions (an alternative, a repetition count,
// a regex terminal's value, a rule's expansion) the kept node does not
// depend on, chosen uniformly.
func (s *Satisfier) regenerateBeside(e *constraint.Node) bool {
	s.slots = s.slots[:0]
	var walk func(t *grammar.Tree, depth int)
	walk = func(t *grammar.Tree, depth int) {
		for i, c := range t.Children {
			if c == nil {
				continue
			}
			if !s.keep[c] {
				switch c.Node.Kind {
				case grammar.KindAlt, grammar.KindQuant, grammar.KindRegex, grammar.KindRef:
					s.slots = append(s.slots, slot{t, i, depth})
				}
			}
			d := depth
			if c.Node.Kind == grammar.KindRef {
				d++
			}
			walk(c, d)
		}
	}
	walk(e.Tree(), e.Depth())
	if len(s.slots) == 0 {
		return false
	}
	at := s.slots[s.r.IntN(len(s.slots))]
	old := at.parent.Children[at.i]
	defer s.bound(old.Size())()
	s.gen.nodes = 0
	s.replaceChild(at.parent, at.i, s.gen.Expand(old.Node, at.depth))
	return true
}
