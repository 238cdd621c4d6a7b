package grammar

import "strings"

type detOutcome uint8

const (
	detOK      detOutcome = iota
	detFail               // the input is not in the language (or not at this choice)
	detBail               // a decision needs more than one byte of lookahead
	detTooDeep            // rule expansions nest deeper than MaxDepth
)

// detParser is a predictive recursive-descent parser driven by the
// graph's one-byte lookahead tables.
type detParser struct {
	ll    *ll1
	in    []byte
	s     string
	pos   int
	depth int
	a     *arena
	stack []*Tree
}

// parseDeterministic returns the input's tree, or nil if the input is not
// in the language or needs the general parser. It returns errTooDeep for
// input that nests deeper than MaxDepth.
func (g *Graph) parseDeterministic(in []byte) (*Tree, error) {
	p := &detParser{ll: g.ll, in: in, s: string(in), a: newArena(len(in))}
	t, out := p.parse(g.Root)
	if out == detTooDeep {
		return nil, errTooDeep
	}
	if out != detOK || p.pos != len(in) {
		return nil, nil
	}
	return t, nil
}

func (p *detParser) look() int {
	if p.pos < len(p.in) {
		return int(p.in[p.pos])
	}
	return eof
}

func (p *detParser) parse(n *Node) (*Tree, detOutcome) {
	switch n.Kind {
	case KindLit:
		if !strings.HasPrefix(p.s[p.pos:], n.Name) {
			return nil, detFail
		}
		p.pos += len(n.Name)
		t := p.a.node()
		t.Node, t.Value = n, n.Name
		return t, detOK

	case KindRegex:
		if !p.ll.regexDet[n.ID] {
			return nil, detBail
		}
		end := n.re.longest(p.in, p.pos)
		if end < 0 {
			return nil, detFail
		}
		t := p.a.node()
		t.Node, t.Value = n, p.s[p.pos:end]
		p.pos = end
		return t, detOK

	case KindRef:
		p.depth++
		if p.depth > MaxDepth {
			return nil, detTooDeep
		}
		c, out := p.parse(n.Children[0])
		p.depth--
		if out != detOK {
			return nil, out
		}
		return p.a.wrap(n, c), detOK

	case KindAlt:
		k := p.ll.table[n.ID][p.look()]
		switch k {
		case llFail:
			return nil, detFail
		case llConflict:
			return nil, detBail
		}
		c, out := p.parse(n.Children[k])
		if out != detOK {
			return nil, out
		}
		return p.a.wrap(n, c), detOK

	case KindCat:
		t := p.a.node()
		t.Node, t.Children = n, p.a.children(len(n.Children))
		for i, c := range n.Children {
			ct, out := p.parse(c)
			if out != detOK {
				return nil, out
			}
			t.Children[i] = ct
		}
		return t, detOK

	case KindQuant:
		base := len(p.stack)
		table := p.ll.table[n.ID]
		for count := 0; n.Max == Unbounded || count < n.Max; count++ {
			if count >= n.Min {
				switch table[p.look()] {
				case llConflict:
					p.stack = p.stack[:base]
					return nil, detBail
				case 0, llFail:
					goto done
				}
			}
			start := p.pos
			ct, out := p.parse(n.Children[0])
			if out != detOK {
				p.stack = p.stack[:base]
				return nil, out
			}
			if p.pos == start && count >= n.Min {
				// An empty repetition beyond the minimum: ambiguous.
				p.stack = p.stack[:base]
				return nil, detBail
			}
			p.stack = append(p.stack, ct)
		}
	done:
		t := p.a.node()
		t.Node, t.Children = n, p.a.children(len(p.stack)-base)
		copy(t.Children, p.stack[base:])
		p.stack = p.stack[:base]
		return t, detOK
	}
	return nil, detFail
}
