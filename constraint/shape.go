package constraint

import "github.com/arbor-fuzz/arbor/grammar"

// many is the occurrence count that stands for "more than one".
const many = 2

// occurrences reports how often rule sym can occur in one occurrence of
// rule scope, not counting occurrences inside a nested occurrence of
// scope (which is a scope occurrence of its own): at most (0, 1 or
// many), and whether it may be absent. A symbol that occurs at most
// once is bound to one node (nil where absent); one that may occur more
// often, to a list.
//
// The counts are a fixpoint over the grammar's rules: each rule's fewest
// and most occurrences of sym in one derivation, the fewest falling from
// "none derived yet" and the most rising from zero until no rule
// changes. Each round is linear in the grammar and the counts take four
// values, so it ends after a few rounds, however the rules recurse; a
// search that followed every path through the rules instead took
// exponential time on grammars whose rules form one large cycle (an
// expression language's).
func occurrences(g *grammar.Graph, scope, sym string) (most int, optional bool) {
	body := g.Bodies[scope]
	if body == nil {
		return 0, true
	}
	o := &occ{scope: scope, sym: sym, spans: map[string]span{}}
	for name := range g.Bodies {
		o.spans[name] = span{lo: none}
	}
	for changed := true; changed; {
		changed = false
		for name, b := range g.Bodies {
			if name == scope {
				continue
			}
			s := o.count(b)
			if name == sym {
				s = span{add(s.lo, 1), add(s.hi, 1)}
			}
			if s != o.spans[name] {
				o.spans[name], changed = s, true
			}
		}
	}
	s := o.count(body)
	return s.hi, s.lo == 0
}

// span is a range of counts, hi capped at many; lo is none while no
// derivation has been counted.
type span struct{ lo, hi int }

// none is the fewest occurrences of a rule none of whose derivations has
// been counted yet: more than any count.
const none = many + 1

// add adds counts, capped at many, none absorbing.
func add(a, b int) int {
	if a == none || b == none {
		return none
	}
	return min(many, a+b)
}

type occ struct {
	scope, sym string
	spans      map[string]span // by rule: occurrences of sym a reference to it derives
}

// count is how often sym can occur in a derivation of n, given the
// rules' spans so far.
func (o *occ) count(n *grammar.Node) span {
	switch n.Kind {
	case grammar.KindRef:
		if n.Name == o.scope {
			// A nested scope occurrence holds its own symbols.
			return span{}
		}
		return o.spans[n.Name]
	case grammar.KindAlt:
		s := span{lo: none}
		for _, c := range n.Children {
			cs := o.count(c)
			s = span{min(s.lo, cs.lo), max(s.hi, cs.hi)}
		}
		return s
	case grammar.KindCat:
		var s span
		for _, c := range n.Children {
			cs := o.count(c)
			s = span{add(s.lo, cs.lo), add(s.hi, cs.hi)}
		}
		return s
	case grammar.KindQuant:
		cs := o.count(n.Children[0])
		var s span
		if n.Min > 0 {
			s.lo = cs.lo
			for range min(n.Min, many) - 1 {
				s.lo = add(s.lo, cs.lo)
			}
		}
		switch {
		case cs.hi == 0:
		case n.Max == grammar.Unbounded || n.Max > 1:
			s.hi = many
		default:
			s.hi = cs.hi
		}
		return s
	}
	return span{} // a literal or a regular expression
}
