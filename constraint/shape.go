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
func occurrences(g *grammar.Graph, scope, sym string) (most int, optional bool) {
	o := &occ{g: g, scope: scope, sym: sym, memo: map[*grammar.Node]span{}, busy: map[string]bool{}, reach: map[string]bool{}}
	body := g.Bodies[scope]
	if body == nil {
		return 0, true
	}
	s, _ := o.count(body)
	return s.hi, s.lo == 0
}

// span is a range of counts, hi capped at many.
type span struct{ lo, hi int }

type occ struct {
	g          *grammar.Graph
	scope, sym string
	memo       map[*grammar.Node]span
	busy       map[string]bool // rules being counted: a cycle
	reach      map[string]bool // reaches' answers
}

// count is how often sym can occur in a derivation of n, and whether
// that depended on a rule being counted further up (a cycle), in which
// case it depends on where the cycle was entered and is not memoized.
func (o *occ) count(n *grammar.Node) (span, bool) {
	if s, ok := o.memo[n]; ok {
		return s, false
	}
	var s span
	cyclic := false
	switch n.Kind {
	case grammar.KindLit, grammar.KindRegex:
	case grammar.KindRef:
		switch {
		case n.Name == o.scope:
			// A nested scope occurrence holds its own symbols.
		case o.busy[n.Name]:
			// Recursion: a rule that can reach sym through itself can
			// repeat it without bound.
			cyclic = true
			if o.reaches(n.Name) {
				s = span{0, many}
			}
		default:
			o.busy[n.Name] = true
			s, cyclic = o.count(n.Children[0])
			delete(o.busy, n.Name)
			if n.Name == o.sym {
				s = span{min(many, s.lo+1), min(many, s.hi+1)}
			}
		}
	case grammar.KindAlt:
		for i, c := range n.Children {
			cs, cc := o.count(c)
			cyclic = cyclic || cc
			if i == 0 {
				s = cs
				continue
			}
			s = span{min(s.lo, cs.lo), max(s.hi, cs.hi)}
		}
	case grammar.KindCat:
		for _, c := range n.Children {
			cs, cc := o.count(c)
			cyclic = cyclic || cc
			s = span{min(many, s.lo+cs.lo), min(many, s.hi+cs.hi)}
		}
	case grammar.KindQuant:
		cs, cc := o.count(n.Children[0])
		cyclic = cc
		s.lo = min(many, cs.lo*n.Min)
		switch {
		case cs.hi == 0:
		case n.Max == grammar.Unbounded || n.Max > 1:
			s.hi = many
		default:
			s.hi = cs.hi
		}
	}
	if !cyclic {
		o.memo[n] = s
	}
	return s, cyclic
}

// reaches reports whether rule from can derive an occurrence of sym
// without passing through scope.
func (o *occ) reaches(from string) bool {
	if r, ok := o.reach[from]; ok {
		return r
	}
	r := o.search(from)
	o.reach[from] = r
	return r
}

func (o *occ) search(from string) bool {
	seen := map[string]bool{}
	var walk func(n *grammar.Node) bool
	walk = func(n *grammar.Node) bool {
		if n.Kind == grammar.KindRef {
			if n.Name == o.sym {
				return true
			}
			if n.Name == o.scope || seen[n.Name] {
				return false
			}
			seen[n.Name] = true
		}
		for _, c := range n.Children {
			if walk(c) {
				return true
			}
		}
		return false
	}
	return walk(o.g.Bodies[from])
}
