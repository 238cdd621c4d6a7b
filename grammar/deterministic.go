package grammar

import (
	"context"
	"math"
	"slices"
)

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
	detCheck  detMode = iota // nothing: only whether it parses
	detVisit                 // the tree's nodes, told to a Visitor
	detRecord                // the tree's nodes, written to rec (record.go), which trees are built from
)

// detParser is a predictive recursive-descent parser driven by the
// graph's one-byte lookahead tables.
type detParser struct {
	ll    *ll1
	chain []*Node // Refs and Alts entered by parseChain, outermost first
	mode  detMode
	v     Visitor // detVisit
	in    []byte
	s     string // in as a string, for leaf values (detVisit)
	pos   int
	depth int

	// rec is the parse recorded (detRecord); once it holds recMax nodes
	// the parser goes on checking only and sets recFull.
	rec     []recNode
	recMax  int
	recFull bool

	// Deciding conflicts (speculate.go): the Cats and Quants under way,
	// innermost last; where the speculation under way began in frames;
	// whether a continuation is being checked, and how far it may read;
	// and what speculations found, by (node, position).
	frames   []detFrame
	specBase int
	inRest   bool
	limit    int
	memo     map[uint64]int32
	specs    int // speculations begun
	// The speculations under way: activeAt[id] is where the innermost
	// speculation of node id began (-1: none), and active, innermost
	// last, the nodes with the positions to restore when each ends.
	activeAt []int32
	active   []activeSpec

	// before is the literal that follows the node being parsed, when
	// that node is a Cat's element followed by a literal element (see
	// parseRegexAmong); ends is parseRegexAmong's buffer.
	before *Node
	ends   []int

	// Bounding the speculation (bound): its work so far, in bytes read
	// plus one a speculation; the most it may do (0: no bound); when to
	// look at the context next; and whether the parser gave up deciding
	// conflicts, which leaves the input to the general parser.
	ctx       context.Context
	work      int
	workMax   int
	nextCheck int
	quit      bool
}

// parseDeterministic returns the input's tree, or nil if the input is not
// in the language or needs the general parser. It returns errTooDeep for
// input that nests deeper than MaxDepth. Its speculation is not bounded
// (the tests compare it with the general parser).
func (g *Graph) parseDeterministic(in []byte) (*Tree, error) {
	return g.buildDeterministic(in, string(in))
}

// parseDeterministicContext is parseDeterministic with its speculation
// bounded, and stopped when ctx is done (see detParser.bound).
func (g *Graph) parseDeterministicContext(ctx context.Context, in []byte) (*Tree, error) {
	p := g.getDet(detRecord, in)
	p.bound(ctx)
	return g.buildWith(p, string(in))
}

// buildDeterministic is parseDeterministic with the input also as a
// string, which the tree's leaves share.
func (g *Graph) buildDeterministic(in []byte, s string) (*Tree, error) {
	return g.buildWith(g.getDet(detRecord, in), s)
}

// buildWith runs p, ready to record, and builds the tree. It records the
// parse and builds the tree from the record in two allocations, one of
// its nodes and one of their child lists: building it as it parses, in
// an arena of blocks, took about twice as long for a large input.
func (g *Graph) buildWith(p *detParser, s string) (*Tree, error) {
	out := p.run(g.Root)
	var t *Tree
	switch {
	case out == detOK && p.recFull:
		g.putDet(p)
		return nil, errTooLarge
	case out == detOK:
		t = buildRecord(g, p.rec, s, make([]Tree, len(p.rec)), make([]*Tree, len(p.rec)))
	}
	g.putDet(p)
	return t, outcomeErr(out)
}

// checkDeterministic reports whether the deterministic parser parses the
// input, without building anything. It returns errTooDeep for input that
// nests deeper than MaxDepth. Its speculation is not bounded.
func (g *Graph) checkDeterministic(in []byte) (bool, error) {
	return g.checkWith(g.getDet(detCheck, in))
}

// checkDeterministicContext is checkDeterministic with its speculation
// bounded, and stopped when ctx is done.
func (g *Graph) checkDeterministicContext(ctx context.Context, in []byte) (bool, error) {
	p := g.getDet(detCheck, in)
	p.bound(ctx)
	return g.checkWith(p)
}

func (g *Graph) checkWith(p *detParser) (bool, error) {
	out := p.run(g.Root)
	g.putDet(p)
	return out == detOK, outcomeErr(out)
}

// visitDeterministic tells v the nodes of the tree of an input that
// checkDeterministic accepted, without building it; s is in as a string.
func (g *Graph) visitDeterministic(in []byte, s string, v Visitor) {
	p := g.getDet(detVisit, in)
	p.v, p.s = v, s
	p.run(g.Root)
	g.putDet(p)
}

// getDet returns a deterministic parser for an input, from the graph's
// pool: a parse of a small input costs little more than its parse then,
// where allocating the parser and growing its stacks anew would cost
// about as much again.
func (g *Graph) getDet(mode detMode, in []byte) *detParser {
	p, _ := g.detPool.Get().(*detParser)
	if p == nil {
		p = new(detParser)
	}
	p.reset(g.ll, mode, in)
	return p
}

// putDet returns p to the pool, keeping no reference to its input or
// its visitor, nor a record larger than maxPooledRecord nodes: as
// encoding/json and fmt do with their buffers, so that one large input
// does not pin its memory in the pool.
func (g *Graph) putDet(p *detParser) {
	p.reset(nil, detCheck, nil)
	if cap(p.rec) > maxPooledRecord {
		p.rec = nil
	}
	g.detPool.Put(p)
}

// maxPooledRecord is the capacity, in nodes, of the largest record the
// pool keeps: 64 MB, the record of a JSON input of 1.5 to 3 MB. (The
// pool itself is emptied by the collector when it goes unused.)
const maxPooledRecord = 1 << 22

// memoKeep is the number of speculation results from which a reused
// parser drops its memo table rather than clearing it for the next
// input: clearing takes time in proportion to the table's size, which
// one large input would otherwise impose on every small one after it.
const memoKeep = 1024

// reset readies p for an input, keeping the storage of its previous
// parse but none of its state.
// bound bounds the parser's speculation on its input (see specBudget),
// and makes it look at ctx as it speculates: past the bound, or once ctx
// is done, it stops deciding conflicts, and the input goes to the general
// parser, which has a budget of its own and stops when ctx is done. The
// rest of the deterministic parser is linear in the input.
func (p *detParser) bound(ctx context.Context) {
	p.ctx, p.workMax = ctx, specBudget(len(p.in))
}

// The bound of speculation. Deciding a conflict may read ahead up to
// restBudget bytes, at every level of nesting where the grammar has
// one, and a choice speculated inside a continuation is not kept: the
// expression grammar of a converted ANTLR grammar (one rule per level
// of precedence, whitespace between tokens) read 44,000 bytes per input
// byte of a 6 KB input (21 s, where the general parser then took 21 ms),
// and 18 times more for each parenthesis nested in a short one (48
// bytes, six deep: 830 million, two minutes). Inputs of the bundled
// grammars read at most 17 bytes per input byte where the deterministic
// parser took them, and 375 where it gave them to the general parser
// (docs/limits.md, "Parse budget").
const (
	specPerByte = 256
	specMin     = 1 << 16
	// specCheckEvery is the work between looks at the bound and the
	// context: about a millisecond.
	specCheckEvery = 1 << 14
)

// specBudget is the most speculation a parse of an n-byte input may do.
func specBudget(n int) int {
	if n > (1<<62)/specPerByte {
		return 1 << 62
	}
	return specMin + specPerByte*n
}

// speculated counts a speculation that read n bytes, and gives up
// speculating once the bound is reached or the context is done.
func (p *detParser) speculated(n int) {
	p.work += n + 1
	if p.work < p.nextCheck {
		return
	}
	p.nextCheck = p.work + specCheckEvery
	if p.workMax > 0 && p.work >= p.workMax || p.ctx != nil && p.ctx.Err() != nil {
		p.quit = true
	}
}

func (p *detParser) reset(ll *ll1, mode detMode, in []byte) {
	memo := p.memo
	if len(memo) > memoKeep {
		memo = nil
	} else {
		clear(memo)
	}
	// Every speculation ends before its parse does; a parse left under
	// way still leaves activeAt as it found it.
	for i := len(p.active) - 1; i >= 0; i-- {
		p.activeAt[p.active[i].node] = p.active[i].prev
	}
	activeAt := p.activeAt
	if ll != nil && len(activeAt) != len(ll.first) {
		activeAt = nil // made when first needed
	}
	*p = detParser{
		ll: ll, mode: mode, in: in, specBase: -1, recMax: math.MaxInt32,
		chain: p.chain[:0], frames: p.frames[:0], memo: memo, active: p.active[:0],
		activeAt: activeAt, ends: p.ends[:0], rec: p.rec[:0],
	}
}

// run parses the whole input from n; detFail if input is left over.
func (p *detParser) run(n *Node) detOutcome {
	out := p.parse(n)
	if out == detOK && p.pos != len(p.in) {
		return detFail
	}
	return out
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

func (p *detParser) parse(n *Node) detOutcome {
	switch n.Kind {
	case KindLit:
		end := p.pos + len(n.Name)
		if end > len(p.in) || string(p.in[p.pos:end]) != n.Name {
			return detFail
		}
		if p.inRest && end > p.limit {
			return detBail
		}
		start := p.pos
		p.pos = end
		if p.mode == detCheck || p.recordLeaf(n, start) {
			return detOK
		}
		p.leaf(n, start)
		return detOK

	case KindRegex:
		if !p.ll.regexDet[n.ID] {
			return p.parseRegexAmong(n)
		}
		return p.parseRegex(n)

	case KindRef, KindAlt:
		return p.parseChain(n)

	case KindCat:
		if p.ll.plain {
			return p.parseCatPlain(n)
		}
		return p.parseCat(n)

	case KindQuant:
		if p.ll.plain {
			return p.parseQuantPlain(n)
		}
		return p.parseQuant(n)
	}
	return detFail
}

// parseCatPlain is parseCat for a grammar without conflicts (ll1.plain):
// nothing will speculate, so it keeps no frames and no literal ahead.
// Where every decision takes one byte of lookahead (JSON), the parser
// spends its time in this and parseQuantPlain and parseChain, which call
// each other directly rather than through parse.
func (p *detParser) parseCatPlain(n *Node) detOutcome {
	r := len(p.rec)
	if p.mode != detCheck && !p.tryRecord(n) {
		r = p.enter(n)
	}
	for _, c := range n.Children {
		var out detOutcome
		switch c.Kind {
		case KindRef, KindAlt:
			out = p.parseChain(c)
		case KindQuant:
			out = p.parseQuantPlain(c)
		default:
			out = p.parse(c)
		}
		if out != detOK {
			return out
		}
	}
	if p.mode == detRecord {
		p.closeRecord(r)
	} else if p.mode == detVisit {
		p.leave(n, r)
	}
	return detOK
}

// parseQuantPlain is parseQuant for a grammar without conflicts.
func (p *detParser) parseQuantPlain(n *Node) detOutcome {
	table := p.ll.table[n.ID]
	r := len(p.rec)
	if p.mode != detCheck && !p.tryRecord(n) {
		r = p.enter(n)
	}
	c := n.Children[0]
	for count := 0; n.Max == Unbounded || count < n.Max; count++ {
		if count >= n.Min && table[p.look()] != 1 {
			break // 0: what follows the Quant; llFail: nothing can
		}
		start := p.pos
		var out detOutcome
		switch c.Kind {
		case KindRef, KindAlt:
			out = p.parseChain(c)
		case KindCat:
			out = p.parseCatPlain(c)
		default:
			out = p.parse(c)
		}
		if out != detOK {
			return out
		}
		if p.pos == start && count >= n.Min {
			// An empty repetition beyond the minimum: ambiguous.
			return detBail
		}
	}
	if p.mode == detRecord {
		p.closeRecord(r)
	} else if p.mode == detVisit {
		p.leave(n, r)
	}
	return detOK
}

// parseRegex takes the longest match of regex n, which the caller has
// found to be its only viable one.
func (p *detParser) parseRegex(n *Node) detOutcome {
	return p.takeRegex(n, n.re.longest(p.in, p.pos))
}

// parseRegexAmong matches regex n where its longest match need not be
// the only viable one: it takes the one match that can be part of a
// derivation, if there is one. Where the literal that follows n is known
// (p.before), only the matches it follows can be: a terminated token, as
// a comment's text before "-->" or a CDATA section's before "]]>".
// Where several matches remain, the input goes to the general parser.
func (p *detParser) parseRegexAmong(n *Node) detOutcome {
	p.ends = n.re.ends(p.in, p.pos, p.ends[:0])
	end := -1
	for _, e := range p.ends {
		if p.before != nil && !hasPrefix(p.in[e:], p.before.Name) {
			continue
		}
		if end >= 0 {
			return detBail
		}
		end = e
	}
	return p.takeRegex(n, end)
}

// takeRegex ends regex n's match at end (-1: no match).
func (p *detParser) takeRegex(n *Node, end int) detOutcome {
	if end < 0 {
		return detFail
	}
	if p.inRest && end > p.limit {
		return detBail
	}
	start := p.pos
	p.pos = end
	if p.mode == detCheck || p.recordLeaf(n, start) {
		return detOK
	}
	p.leaf(n, start)
	return detOK
}

// parseCat parses the elements of a Cat in turn. It and parseQuant are
// apart from parse so that parse, which every level of nesting calls, has
// a small stack frame.
func (p *detParser) parseCat(n *Node) detOutcome {
	r := len(p.rec)
	if p.mode != detCheck && !p.tryRecord(n) {
		r = p.enter(n)
	}
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
		out := p.parse(c)
		p.before = nil
		if out != detOK {
			return out
		}
	}
	p.frames = p.frames[:f]
	if p.mode == detRecord {
		p.closeRecord(r)
	} else if p.mode == detVisit {
		p.leave(n, r)
	}
	return detOK
}

// parseQuant parses the repetitions of a Quant while the lookahead says
// there is one more.
func (p *detParser) parseQuant(n *Node) detOutcome {
	table := p.ll.table[n.ID]
	if n.Max != 1 {
		// A repetition may be followed by the next one, not only by
		// what follows the Quant. An optional part is followed by what
		// follows the Quant.
		p.before = nil
	}
	r := len(p.rec)
	if p.mode != detCheck && !p.tryRecord(n) {
		r = p.enter(n)
	}
	f := len(p.frames)
	p.frames = append(p.frames, detFrame{n, 0})
	for count := 0; n.Max == Unbounded || count < n.Max; count++ {
		if count >= n.Min {
			switch table[p.look()] {
			case llConflict:
				again, end, out := p.decideQuant(n, f)
				if out != detOK {
					return out
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
		out := p.parse(n.Children[0])
		if out != detOK {
			return out
		}
		if p.pos == start && count >= n.Min {
			// An empty repetition beyond the minimum: ambiguous.
			return detBail
		}
	}
done:
	p.frames = p.frames[:f]
	if p.mode == detRecord {
		p.closeRecord(r)
	} else if p.mode == detVisit {
		p.leave(n, r)
	}
	return detOK
}

// parseChain parses a chain of Refs and Alts (a rule expansion, the
// alternative taken, the rule it refers to...) in a loop rather than by
// recursion, down to the Cat, Quant or terminal it ends in. Such chains
// are most of the nesting of a deep input, whose cost is the goroutine
// stack the recursion takes.
func (p *detParser) parseChain(n *Node) detOutcome {
	// The chain's nodes are recorded one after another from r: no
	// other node is recorded before its end (speculation only checks).
	base, depth, r := len(p.chain), p.depth, len(p.rec)
	fail := func(out detOutcome) detOutcome {
		p.chain, p.depth = p.chain[:base], depth
		return out
	}
	for n.Kind == KindRef || n.Kind == KindAlt {
		if n.Kind == KindRef {
			if p.depth++; p.depth > MaxDepth {
				return fail(detTooDeep)
			}
			if p.mode != detCheck && !p.tryRecord(n) {
				p.enter(n)
			}
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
				return detOK
			}
		}
		if p.mode != detCheck && !p.tryRecord(n) {
			p.enter(n)
		}
		p.chain = append(p.chain, n)
		n = n.Children[k]
	}
	var out detOutcome
	if n.Kind == KindRegex && !p.ll.regexDet[n.ID] && len(p.chain) > base &&
		!n.re.alphabet.intersects(&p.ll.follow[p.chain[base].ID]) {
		// What may follow this use of the regex, the outermost node
		// of the chain, is narrower than what may follow the regex
		// anywhere, and cannot continue a match: the longest is the
		// only viable one.
		out = p.parseRegex(n)
	} else {
		out = p.parse(n)
	}
	if out != detOK {
		return fail(out)
	}
	if p.mode == detRecord {
		// The chain's nodes all end here.
		next := int32(len(p.rec))
		for i := r; i < r+len(p.chain)-base; i++ {
			p.rec[i].next = next
		}
	} else if p.mode == detVisit {
		for i := len(p.chain) - 1; i >= base; i-- {
			p.v.Leave(p.chain[i])
		}
	}
	p.chain, p.depth = p.chain[:base], depth
	return detOK
}

// What the parser makes of a node besides parsing it: entering it
// (enter), leaving it (leave) and matching a terminal (leaf). They are
// called at every node, so the parse functions call them only where the
// mode makes something, and record through the inlined tryRecord,
// recordLeaf and closeRecord where the record has room: a check or a
// recording parse pays no call for them.

// enter tells the visitor that n starts (detVisit), or records it
// (detRecord). It returns where n is recorded, for leave.
func (p *detParser) enter(n *Node) int {
	switch p.mode {
	case detVisit:
		p.v.Enter(n, "")
	case detRecord:
		if len(p.rec) == cap(p.rec) && !p.growRecord() {
			break
		}
		p.rec = append(p.rec, recNode{node: int32(n.ID)})
	}
	return len(p.rec) - 1
}

// leave tells the visitor that n ends (detVisit), or ends its record,
// rec[r] (detRecord).
func (p *detParser) leave(n *Node, r int) {
	switch p.mode {
	case detVisit:
		p.v.Leave(n)
	case detRecord:
		p.closeRecord(r)
	}
}

// leaf tells the visitor of a terminal n that matched the input from
// start to the position (detVisit), or records it (detRecord).
func (p *detParser) leaf(n *Node, start int) {
	switch p.mode {
	case detVisit:
		p.v.Enter(n, p.text(n, start))
		p.v.Leave(n)
	case detRecord:
		if len(p.rec) == cap(p.rec) && !p.growRecord() {
			break
		}
		p.recordLeaf(n, start)
	}
}

// tryRecord records n where the parser records and the record has room,
// and reports whether it did.
func (p *detParser) tryRecord(n *Node) bool {
	r := len(p.rec)
	if p.mode != detRecord || r == cap(p.rec) {
		return false
	}
	p.rec = p.rec[:r+1]
	p.rec[r] = recNode{node: int32(n.ID)}
	return true
}

// recordLeaf is tryRecord for a terminal n that matched from start.
func (p *detParser) recordLeaf(n *Node, start int) bool {
	r := len(p.rec)
	if p.mode != detRecord || r == cap(p.rec) {
		return false
	}
	p.rec = p.rec[:r+1]
	p.rec[r] = recNode{node: int32(n.ID), next: int32(r + 1), lo: int32(start), hi: int32(p.pos)}
	return true
}

// closeRecord ends the record of a node, rec[r]: its subtree is what
// was recorded since.
func (p *detParser) closeRecord(r int) {
	p.rec[r].next = int32(len(p.rec))
}

// growRecord makes room for one more node in the record, or if the
// record holds recMax nodes already, stops recording and reports false.
func (p *detParser) growRecord() bool {
	if len(p.rec) >= p.recMax {
		p.stopRecording()
		return false
	}
	if len(p.rec) == cap(p.rec) {
		p.rec = slices.Grow(p.rec, min(max(len(p.rec), 256), p.recMax-len(p.rec)))
	}
	return true
}

// stopRecording turns a recording parse into a check when the record
// is full: the record is dropped, and the parse goes on only to say
// whether the input parses. The parse under way is not a speculation
// (speculations only check), so no saved mode brings recording back.
func (p *detParser) stopRecording() {
	p.mode, p.recFull, p.rec = detCheck, true, p.rec[:0]
}

// text is what terminal n derives, from start to the position: a
// literal's own text, which leaves share, or the input's.
func (p *detParser) text(n *Node, start int) string {
	if n.Kind == KindLit {
		return n.Name
	}
	return p.s[start:p.pos]
}
