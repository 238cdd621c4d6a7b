package grammar

import (
	"fmt"
	"slices"
)

// Decision codes in the lookahead tables.
const (
	llFail     = -1 // no choice can succeed on this byte
	llConflict = -2 // more than one choice can succeed: only the general parser decides
)

// ll1 holds, for every decision of the grammar, which choice one byte of
// lookahead selects. Where a decision is determined this way for every
// input the deterministic parser needs no general parsing; a decision
// that is not (a conflict) sends the input to the general parser.
type ll1 struct {
	first, follow []byteSet
	// alt[id] for Alt nodes: the child to take for each byte (or eof).
	// quant[id] for Quant nodes: 1 to repeat again, 0 to stop.
	table     [][]int8
	regexDet  []bool   // a regex whose longest match is its only viable one
	conflicts []string // descriptions of non-deterministic decisions
	nullable  []bool   // the graph's, for deciding conflicts by speculation
	// prefix[id] is text every derivation of node id starts with (""
	// if none is known): a speculation that does not start with it fails
	// at once, without parsing or looking up what it found before.
	prefix []string
	// plain is set when no decision is a conflict and every regex's
	// longest match is its only viable one: the deterministic parser
	// then never speculates, and keeps none of what speculation reads.
	plain bool
}

func (g *Graph) lookahead() *ll1 {
	n := len(g.Nodes)
	ll := &ll1{first: make([]byteSet, n), follow: make([]byteSet, n), table: make([][]int8, n), regexDet: make([]bool, n), nullable: g.nullable}
	g.firstFollow(ll)
	ll.prefix = g.prefixes()
	for _, nd := range g.Nodes {
		switch nd.Kind {
		case KindAlt:
			t := make([]int8, eof+1)
			conflict := false
			for b := 0; b <= eof; b++ {
				t[b] = llFail
				for i, c := range nd.Children {
					if ll.first[c.ID].has(b) || g.nullable[c.ID] && ll.follow[nd.ID].has(b) {
						if t[b] == llFail {
							t[b] = int8(min(i, 127))
						} else {
							t[b] = llConflict
						}
					}
				}
				conflict = conflict || t[b] == llConflict
				if len(nd.Children) > 127 && t[b] >= 0 {
					t[b] = llConflict // too many alternatives to index here
				}
			}
			if conflict {
				ll.conflicts = append(ll.conflicts, fmt.Sprintf("%s: alternatives of %s overlap in their first byte", nd.Pos, nd.Rule))
			}
			ll.table[nd.ID] = t
		case KindQuant:
			t := make([]int8, eof+1)
			c := nd.Children[0]
			conflict := false
			for b := 0; b <= eof; b++ {
				again, stop := ll.first[c.ID].has(b), ll.follow[nd.ID].has(b)
				switch {
				case again && stop:
					t[b], conflict = llConflict, true
				case again:
					t[b] = 1
				case stop:
					t[b] = 0
				default:
					t[b] = llFail
				}
			}
			if conflict {
				ll.conflicts = append(ll.conflicts, fmt.Sprintf("%s: in %s, a repetition can also be followed by what it repeats", nd.Pos, nd.Rule))
			}
			ll.table[nd.ID] = t
		case KindRegex:
			ll.regexDet[nd.ID] = nd.re.fixed >= 0 || !nd.re.alphabet.intersects(&ll.follow[nd.ID])
			if !ll.regexDet[nd.ID] {
				ll.conflicts = append(ll.conflicts, fmt.Sprintf("%s: in %s, %s can be followed by a byte it could also match", nd.Pos, nd.Rule, nd.Label()))
			}
		}
	}
	ll.plain = true
	for _, nd := range g.Nodes {
		if nd.Kind == KindRegex && !ll.regexDet[nd.ID] || slices.Contains(ll.table[nd.ID], llConflict) {
			ll.plain = false
		}
	}
	return ll
}

// Conflicts lists the decisions that one byte of lookahead cannot make.
// Inputs whose parse meets none of them are parsed by the fast
// deterministic parser; the others by the general parser.
func (g *Graph) Conflicts() []string { return append([]string(nil), g.ll.conflicts...) }

// maxPrefix bounds the prefixes the lookahead tables keep. A prefix only
// lets a speculation fail early, so a shorter one is never wrong, and 64
// bytes tell apart any keywords or delimiters a speculation meets; an
// unbounded one made a chain of N rules each starting with a literal
// (r0 := "a" r1 ; r1 := "a" r2 ; ...) keep prefixes of N, N-1, ... bytes:
// memory quadratic in the grammar's size (40,000 rules: 1.6 GB).
const maxPrefix = 64

// prefixes returns, for every node, the longest text (up to maxPrefix
// bytes) every derivation of it is known to start with: a literal, the
// literals a Cat starts with, the common start of an Alt's alternatives.
// A node met again while its own prefix is being computed (left
// recursion) counts as "", which only makes prefixes shorter, never
// wrong.
func (g *Graph) prefixes() []string {
	n := len(g.Nodes)
	prefix := make([]string, n)
	exact := make([]bool, n) // the node derives exactly its prefix
	const (
		unseen = iota
		active
		done
	)
	state := make([]uint8, n)
	// An explicit stack: grammars nest deeper than a goroutine's stack
	// comfortably recurses.
	type frame struct {
		nd *Node
		i  int // children visited
	}
	var stack []frame
	for _, root := range g.Nodes {
		if state[root.ID] != unseen {
			continue
		}
		state[root.ID] = active
		stack = append(stack[:0], frame{nd: root})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.i < len(f.nd.Children) {
				c := f.nd.Children[f.i]
				f.i++
				if state[c.ID] == unseen {
					state[c.ID] = active
					stack = append(stack, frame{nd: c})
				}
				continue
			}
			nd := f.nd
			stack = stack[:len(stack)-1]
			state[nd.ID] = done
			prefix[nd.ID], exact[nd.ID] = nodePrefix(nd, prefix, exact, state)
		}
	}
	return prefix
}

// nodePrefix computes nd's prefix from its children's; a child still
// active (on a cycle through nd) counts as "". A prefix cut at maxPrefix
// is not exact: the node derives more than it.
func nodePrefix(nd *Node, prefix []string, exact []bool, state []uint8) (string, bool) {
	const done = 2
	child := func(c *Node) (string, bool) {
		if state[c.ID] != done {
			return "", false
		}
		return prefix[c.ID], exact[c.ID]
	}
	switch nd.Kind {
	case KindLit:
		if len(nd.Name) > maxPrefix {
			return nd.Name[:maxPrefix], false
		}
		return nd.Name, true
	case KindRef:
		return child(nd.Children[0])
	case KindAlt:
		common, _ := child(nd.Children[0])
		for _, c := range nd.Children[1:] {
			p, _ := child(c)
			k := 0
			for k < len(common) && k < len(p) && common[k] == p[k] {
				k++
			}
			common = common[:k]
		}
		return common, false
	case KindCat:
		var b []byte
		for _, c := range nd.Children {
			p, ex := child(c)
			if len(b)+len(p) > maxPrefix {
				return string(append(b, p[:maxPrefix-len(b)]...)), false
			}
			b = append(b, p...)
			if !ex {
				return string(b), false
			}
		}
		return string(b), true
	case KindQuant:
		if nd.Min >= 1 {
			p, _ := child(nd.Children[0])
			return p, false
		}
	}
	return "", false
}
