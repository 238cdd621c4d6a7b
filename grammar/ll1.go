package grammar

import "fmt"

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
}

func (g *Graph) lookahead() *ll1 {
	n := len(g.Nodes)
	ll := &ll1{first: make([]byteSet, n), follow: make([]byteSet, n), table: make([][]int8, n), regexDet: make([]bool, n), nullable: g.nullable}
	g.firstFollow(ll)
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
	return ll
}

// Conflicts lists the decisions that one byte of lookahead cannot make.
// Inputs whose parse meets none of them are parsed by the fast
// deterministic parser; the others by the general parser.
func (g *Graph) Conflicts() []string { return append([]string(nil), g.ll.conflicts...) }
