package grammar

type detOutcome uint8

const (
	detOK      detOutcome = iota
	detFail               // the input is not in the language (or not at this choice)
	detBail               // a decision needs more than one byte of lookahead
	detTooDeep            // rule expansions nest deeper than MaxDepth
)

// detMode is what the deterministic parser makes of the input.
type detMode uint8

const (
	detBuild detMode = iota // its tree
	detCheck                // nothing: only whether it parses
	detVisit                // the tree's nodes, told to a Visitor
)

// detParser is a predictive recursive-descent parser driven by the
// graph's one-byte lookahead tables.
type detParser struct {
	ll    *ll1
	chain []*Node // Refs and Alts entered by parseChain, outermost first
	mode  detMode
	v     Visitor // detVisit
	in    []byte
	s     string // in as a string, for leaf values (detBuild, detVisit)
	pos   int
	depth int
	a     *arena
	stack []*Tree
}

// parseDeterministic returns the input's tree, or nil if the input is not
// in the language or needs the general parser. It returns errTooDeep for
// input that nests deeper than MaxDepth.
func (g *Graph) parseDeterministic(in []byte) (*Tree, error) {
	return g.buildDeterministic(in, string(in))
}

// buildDeterministic is parseDeterministic with the input also as a
// string, which the tree's leaves share.
func (g *Graph) buildDeterministic(in []byte, s string) (*Tree, error) {
	p := &detParser{ll: g.ll, in: in, s: s, a: newArena(len(in))}
	t, out := p.run(g.Root)
	if out != detOK {
		return nil, outcomeErr(out)
	}
	return t, nil
}

// checkDeterministic reports whether the deterministic parser parses the
// input, without building anything. It returns errTooDeep for input that
// nests deeper than MaxDepth.
func (g *Graph) checkDeterministic(in []byte) (bool, error) {
	p := &detParser{ll: g.ll, mode: detCheck, in: in}
	_, out := p.run(g.Root)
	return out == detOK, outcomeErr(out)
}

// visitDeterministic tells v the nodes of the tree of an input that
// checkDeterministic accepted, without building it; s is in as a string.
func (g *Graph) visitDeterministic(in []byte, s string, v Visitor) {
	p := &detParser{ll: g.ll, mode: detVisit, v: v, in: in, s: s}
	p.run(g.Root)
}

// run parses the whole input from n; detFail if input is left over.
func (p *detParser) run(n *Node) (*Tree, detOutcome) {
	t, out := p.parse(n)
	if out == detOK && p.pos != len(p.in) {
		return nil, detFail
	}
	return t, out
}

func outcomeErr(out detOutcome) error {
	if out == detTooDeep {
		return errTooDeep
	}
	return nil
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
		end := p.pos + len(n.Name)
		if end > len(p.in) || string(p.in[p.pos:end]) != n.Name {
			return nil, detFail
		}
		p.pos = end
		return p.leaf(n, n.Name), detOK

	case KindRegex:
		if !p.ll.regexDet[n.ID] {
			return nil, detBail
		}
		end := n.re.longest(p.in, p.pos)
		if end < 0 {
			return nil, detFail
		}
		var text string
		if p.mode != detCheck {
			text = p.s[p.pos:end]
		}
		p.pos = end
		return p.leaf(n, text), detOK

	case KindRef, KindAlt:
		return p.parseChain(n)

	case KindCat:
		return p.parseCat(n)

	case KindQuant:
		return p.parseQuant(n)
	}
	return nil, detFail
}

// parseCat parses the elements of a Cat in turn. It and parseQuant are
// apart from parse so that parse, which every level of nesting calls, has
// a small stack frame.
func (p *detParser) parseCat(n *Node) (*Tree, detOutcome) {
	var t *Tree
	if p.mode == detBuild {
		t = p.a.node()
		t.Node, t.Children = n, p.a.children(len(n.Children))
	}
	p.enter(n)
	for i, c := range n.Children {
		ct, out := p.parse(c)
		if out != detOK {
			return nil, out
		}
		if t != nil {
			t.Children[i] = ct
		}
	}
	p.leave(n)
	return t, detOK
}

// parseQuant parses the repetitions of a Quant while the lookahead says
// there is one more.
func (p *detParser) parseQuant(n *Node) (*Tree, detOutcome) {
	base := len(p.stack)
	table := p.ll.table[n.ID]
	p.enter(n)
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
		if p.mode == detBuild {
			p.stack = append(p.stack, ct)
		}
	}
done:
	if p.mode != detBuild {
		p.leave(n)
		return nil, detOK
	}
	t := p.a.node()
	t.Node, t.Children = n, p.a.children(len(p.stack)-base)
	copy(t.Children, p.stack[base:])
	p.stack = p.stack[:base]
	return t, detOK
}

// parseChain parses a chain of Refs and Alts (a rule expansion, the
// alternative taken, the rule it refers to...) in a loop rather than by
// recursion, down to the Cat, Quant or terminal it ends in. Such chains
// are most of the nesting of a deep input, whose cost is the goroutine
// stack the recursion takes.
func (p *detParser) parseChain(n *Node) (*Tree, detOutcome) {
	base, depth := len(p.chain), p.depth
	fail := func(out detOutcome) (*Tree, detOutcome) {
		p.chain, p.depth = p.chain[:base], depth
		return nil, out
	}
	for n.Kind == KindRef || n.Kind == KindAlt {
		if n.Kind == KindRef {
			if p.depth++; p.depth > MaxDepth {
				return fail(detTooDeep)
			}
			p.enter(n)
			p.chain = append(p.chain, n)
			n = n.Children[0]
			continue
		}
		k := p.ll.table[n.ID][p.look()]
		switch k {
		case llFail:
			return fail(detFail)
		case llConflict:
			return fail(detBail)
		}
		p.enter(n)
		p.chain = append(p.chain, n)
		n = n.Children[k]
	}
	t, out := p.parse(n)
	if out != detOK {
		return fail(out)
	}
	for i := len(p.chain) - 1; i >= base; i-- {
		t = p.wrap(p.chain[i], t)
	}
	p.chain, p.depth = p.chain[:base], depth
	return t, detOK
}

// enter tells the visitor that n starts (detVisit).
func (p *detParser) enter(n *Node) {
	if p.mode == detVisit {
		p.v.Enter(n, "")
	}
}

// leave tells the visitor that n ends (detVisit).
func (p *detParser) leave(n *Node) {
	if p.mode == detVisit {
		p.v.Leave(n)
	}
}

// leaf returns the tree of a terminal (detBuild) or tells the visitor of
// it (detVisit).
func (p *detParser) leaf(n *Node, text string) *Tree {
	switch p.mode {
	case detBuild:
		t := p.a.node()
		t.Node, t.Value = n, text
		return t
	case detVisit:
		p.v.Enter(n, text)
		p.v.Leave(n)
	}
	return nil
}

// wrap returns the tree of a Ref or Alt n with child c (detBuild), or
// tells the visitor that n ends (detVisit).
func (p *detParser) wrap(n *Node, c *Tree) *Tree {
	switch p.mode {
	case detBuild:
		return p.a.wrap(n, c)
	case detVisit:
		p.v.Leave(n)
	}
	return nil
}
