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

	// Deciding conflicts (speculate.go): the Cats and Quants under way,
	// innermost last; where the speculation under way began in frames;
	// whether a continuation is being checked, and how far it may read;
	// and what speculations found, by (node, position).
	frames   []detFrame
	specBase int
	inRest   bool
	limit    int
	memo     map[uint64]int32
	active   []uint64 // speculations under way, by memo key
	specs    int      // speculations begun

	// before is the literal that follows the node being parsed, when
	// that node is a Cat's element followed by a literal element (see
	// parseRegexAmong); ends is parseRegexAmong's buffer.
	before *Node
	ends   []int
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
	p := newDetParser(g, detBuild, in)
	p.s, p.a = s, newArena(len(in))
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
	p := newDetParser(g, detCheck, in)
	_, out := p.run(g.Root)
	return out == detOK, outcomeErr(out)
}

// visitDeterministic tells v the nodes of the tree of an input that
// checkDeterministic accepted, without building it; s is in as a string.
func (g *Graph) visitDeterministic(in []byte, s string, v Visitor) {
	p := newDetParser(g, detVisit, in)
	p.v, p.s = v, s
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
		if p.inRest && end > p.limit {
			return nil, detBail
		}
		p.pos = end
		return p.leaf(n, n.Name), detOK

	case KindRegex:
		if !p.ll.regexDet[n.ID] {
			return p.parseRegexAmong(n)
		}
		return p.parseRegex(n)

	case KindRef, KindAlt:
		return p.parseChain(n)

	case KindCat:
		return p.parseCat(n)

	case KindQuant:
		return p.parseQuant(n)
	}
	return nil, detFail
}

// parseRegex takes the longest match of regex n, which the caller has
// found to be its only viable one.
func (p *detParser) parseRegex(n *Node) (*Tree, detOutcome) {
	end := n.re.longest(p.in, p.pos)
	if end < 0 {
		return nil, detFail
	}
	if p.inRest && end > p.limit {
		return nil, detBail
	}
	var text string
	if p.mode != detCheck {
		text = p.s[p.pos:end]
	}
	p.pos = end
	return p.leaf(n, text), detOK
}

// parseRegexAmong matches regex n where its longest match need not be
// the only viable one: it takes the one match that can be part of a
// derivation, if there is one. Where the literal that follows n is known
// (p.before), only the matches it follows can be: a terminated token, as
// a comment's text before "-->" or a CDATA section's before "]]>".
// Where several matches remain, the input goes to the general parser.
func (p *detParser) parseRegexAmong(n *Node) (*Tree, detOutcome) {
	p.ends = n.re.ends(p.in, p.pos, p.ends[:0])
	end := -1
	for _, e := range p.ends {
		if p.before != nil {
			lit := p.before.Name
			if e+len(lit) > len(p.in) || string(p.in[e:e+len(lit)]) != lit {
				continue
			}
		}
		if end >= 0 {
			return nil, detBail
		}
		end = e
	}
	if end < 0 {
		return nil, detFail
	}
	if p.inRest && end > p.limit {
		return nil, detBail
	}
	var text string
	if p.mode != detCheck {
		text = p.s[p.pos:end]
	}
	p.pos = end
	return p.leaf(n, text), detOK
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
	f := len(p.frames)
	p.frames = append(p.frames, detFrame{n, 0})
	outer := p.before
	for i, c := range n.Children {
		p.frames[f].i = int32(i)
		switch {
		case i+1 < len(n.Children) && n.Children[i+1].Kind == KindLit:
			p.before = n.Children[i+1]
		case i+1 == len(n.Children):
			// What follows the Cat follows its last element.
			p.before = outer
		default:
			p.before = nil
		}
		ct, out := p.parse(c)
		p.before = nil
		if out != detOK {
			return nil, out
		}
		if t != nil {
			t.Children[i] = ct
		}
	}
	p.frames = p.frames[:f]
	p.leave(n)
	return t, detOK
}

// parseQuant parses the repetitions of a Quant while the lookahead says
// there is one more.
func (p *detParser) parseQuant(n *Node) (*Tree, detOutcome) {
	base := len(p.stack)
	table := p.ll.table[n.ID]
	if n.Max != 1 {
		// A repetition may be followed by the next one, not only by
		// what follows the Quant. An optional part is followed by what
		// follows the Quant.
		p.before = nil
	}
	p.enter(n)
	f := len(p.frames)
	p.frames = append(p.frames, detFrame{n, 0})
	for count := 0; n.Max == Unbounded || count < n.Max; count++ {
		if count >= n.Min {
			switch table[p.look()] {
			case llConflict:
				again, end, out := p.decideQuant(n, f)
				if out != detOK {
					p.stack = p.stack[:base]
					return nil, out
				}
				if !again {
					goto done
				}
				if p.mode == detCheck && end > p.pos {
					// The speculation parsed this repetition already.
					p.pos = end
					continue
				}
			case 0, llFail:
				goto done
			}
		}
		p.frames[f].i = int32(count)
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
	p.frames = p.frames[:f]
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
		k := int(p.ll.table[n.ID][p.look()])
		switch k {
		case llFail:
			return fail(detFail)
		case llConflict:
			var end int
			var out detOutcome
			if k, end, out = p.decideAlt(n); out != detOK {
				return fail(out)
			}
			if p.mode == detCheck && end >= 0 {
				// The speculation parsed the alternative already.
				p.pos = end
				p.chain, p.depth = p.chain[:base], depth
				return nil, detOK
			}
		}
		p.enter(n)
		p.chain = append(p.chain, n)
		n = n.Children[k]
	}
	var t *Tree
	var out detOutcome
	if n.Kind == KindRegex && !p.ll.regexDet[n.ID] && len(p.chain) > base &&
		!n.re.alphabet.intersects(&p.ll.follow[p.chain[base].ID]) {
		// What may follow this use of the regex, the outermost node
		// of the chain, is narrower than what may follow the regex
		// anywhere, and cannot continue a match: the longest is the
		// only viable one.
		t, out = p.parseRegex(n)
	} else {
		t, out = p.parse(n)
	}
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
