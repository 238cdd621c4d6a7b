package grammar

// Deciding lookahead conflicts by speculation. Where one byte of
// lookahead leaves more than one choice, the deterministic parser tries
// each choice ahead, only checking, and takes the one choice that can
// still succeed. That keeps trees identical to the general parser's: the
// parser's other decisions are forced (every choice but the one taken
// cannot derive the input in any context), a speculation that fails
// proves its choice impossible, and a decision is taken only when all
// other choices are proved impossible. So the derivation found is the
// only one, the one the general parser would find. Where two choices stay
// possible, the input may be ambiguous, and it goes to the general parser
// as before.
//
// Two kinds of speculation:
//   - a choice itself: the alternative of an Alt, or one more repetition
//     of a Quant, parsed from the current position. Its result depends
//     only on the node and the position (its own conflicts look no
//     further than the node, see specBase), so it is kept in memo: a
//     choice speculated inside another speculation is not parsed again,
//     which keeps nested speculation (an XML element inside another)
//     linear rather than exponential.
//   - the continuation: what follows a Quant that stops, or an Alt's
//     alternative, read off the Cats and Quants under way (frames),
//     outward, up to restBudget bytes. Inside it, conflicts are decided
//     only where all but one choice fails at once.

// detFrame is a Cat or Quant under way: the child (Cat) or repetition
// (Quant) being parsed.
type detFrame struct {
	n *Node
	i int32
}

// activeSpec is a speculation under way: its node, and where the one of
// the same node it is inside began (-1: none).
type activeSpec struct{ node, prev int32 }

// restBudget bounds how far a continuation is read: past it, the choice
// it would have ruled out stays possible.
const restBudget = 4096

// Values of memo besides an end position.
const (
	memoFail = -1
	memoBail = -2
)

// decideAlt picks the alternative of Alt n that one byte of lookahead
// could not. It returns its index and, if a speculation parsed it, where
// it ends (else -1).
func (p *detParser) decideAlt(n *Node) (int, int, detOutcome) {
	b := p.look()
	type option struct{ k, end int }
	var buf [4]option
	opts := buf[:0]
	for k, c := range n.Children {
		if !p.ll.first[c.ID].has(b) && !(p.ll.nullable[c.ID] && p.ll.follow[n.ID].has(b)) {
			continue
		}
		end, out := p.spec(c)
		switch out {
		case detFail:
			continue
		case detOK:
			opts = append(opts, option{k, end})
		default:
			opts = append(opts, option{k, -1})
		}
	}
	if len(opts) > 1 && !p.inRest {
		// Several alternatives parse here: what follows them may rule
		// out all but one.
		kept := opts[:0]
		for _, o := range opts {
			if o.end >= 0 && p.restImpossibleAt(len(p.frames), o.end) {
				continue
			}
			kept = append(kept, o)
		}
		opts = kept
	}
	switch len(opts) {
	case 0:
		return 0, -1, detFail
	case 1:
		if opts[0].end < 0 {
			// The one choice left did not settle in speculation
			// either; parsing it again at every level of a deep
			// input would take quadratic time.
			return 0, -1, detBail
		}
		return opts[0].k, opts[0].end, detOK
	}
	return 0, -1, detBail
}

// decideQuant decides whether Quant n, whose frame is frames[f], repeats
// once more where one byte of lookahead could not. If it repeats and a
// speculation parsed the repetition, end is where that ends (else -1).
func (p *detParser) decideQuant(n *Node, f int) (again bool, end int, out detOutcome) {
	end, out = p.spec(n.Children[0])
	switch {
	case out == detFail:
		return false, -1, detOK
	case out == detOK && end == p.pos:
		// An empty repetition beyond the minimum: ambiguous.
		return false, -1, detBail
	case p.inRest, out != detOK:
		// Undecided, or (as in decideAlt) a repetition that did not
		// settle in speculation.
		return false, -1, detBail
	}
	if !p.restImpossibleAt(f, p.pos) {
		return false, -1, detBail
	}
	return true, end, detOK
}

// spec parses node c from the current position, only checking, and
// returns where it ends; the position is left unchanged.
func (p *detParser) spec(c *Node) (int, detOutcome) {
	if p.quit {
		return -1, detBail
	}
	if pre := p.ll.prefix[c.ID]; pre != "" && !hasPrefix(p.in[p.pos:], pre) {
		return -1, detFail
	}
	key := uint64(c.ID)<<32 | uint64(uint32(p.pos))
	if v, ok := p.memo[key]; ok {
		switch v {
		case memoFail:
			return -1, detFail
		case memoBail:
			return -1, detBail
		}
		return int(v), detOK
	}
	// While c is being speculated here, speculating it here again (left
	// recursion) cannot settle anything. Speculations under way nest, and
	// their positions grow inward, so if one of c is under way here, the
	// innermost one of c is. (Scanning the speculations under way at this
	// position took time quadratic in their number: a chain of 40,000
	// rules r := s "a" | "b" speculates all of them at the first byte.)
	if p.activeAt == nil {
		p.activeAt = make([]int32, len(p.ll.first))
		for i := range p.activeAt {
			p.activeAt[i] = -1
		}
	}
	if int(p.activeAt[c.ID]) == p.pos {
		return -1, detBail
	}
	p.active = append(p.active, activeSpec{int32(c.ID), p.activeAt[c.ID]})
	p.activeAt[c.ID] = int32(p.pos)
	specs := p.specs
	p.specs++
	// The result is kept by node and position alone, so it must not
	// depend on the literal that follows c here (see parseRegexAmong).
	pos, mode, base, nframes, before := p.pos, p.mode, p.specBase, len(p.frames), p.before
	p.mode, p.specBase, p.before = detCheck, len(p.frames), nil
	out := p.parse(c)
	end := p.pos
	p.speculated(end - pos)
	p.pos, p.mode, p.specBase, p.frames, p.before = pos, mode, base, p.frames[:nframes], before
	p.activeAt[c.ID] = p.active[len(p.active)-1].prev
	p.active = p.active[:len(p.active)-1]
	// Inside a continuation conflicts are decided less far: that is not
	// kept. A result too deep is kept as undecided (the general parser
	// then says it is too deep), for trying it again at every level of a
	// deep input would take exponential time. A short speculation with
	// none inside it is not kept: the enclosing speculation, which is,
	// and the parse itself are the only ones to repeat it, and parsing it
	// again costs less than keeping it.
	keep := !p.inRest && (out != detOK && out != detFail || p.specs-specs > 1 || end-pos >= memoSpan)
	if keep {
		if p.memo == nil {
			p.memo = make(map[uint64]int32)
		}
		v := int32(end)
		switch out {
		case detFail:
			v = memoFail
		case detBail, detTooDeep:
			v = memoBail
		}
		p.memo[key] = v
	}
	if out != detOK {
		end = -1
	}
	return end, out
}

// memoSpan is the length from which a speculation's result is kept even
// when no other speculation was made inside it.
const memoSpan = 64

// restImpossibleAt reports whether the continuation frames[:top] cannot
// go on from position pos: parsing it fails before it ends. When the
// parse under way is not a speculation, the continuation ends with the
// input's end.
func (p *detParser) restImpossibleAt(top, pos int) bool {
	if p.inRest || p.quit {
		return false
	}
	savedPos, mode, nframes, before := p.pos, p.mode, len(p.frames), p.before
	p.pos, p.inRest, p.mode, p.limit, p.before = pos, true, detCheck, pos+restBudget, nil
	impossible := false
	low := max(p.specBase, 0)
	k := top - 1
walk:
	for ; k >= low; k-- {
		fr := p.frames[k]
		var out detOutcome
		switch fr.n.Kind {
		case KindCat:
			for _, c := range fr.n.Children[fr.i+1:] {
				if out = p.parse(c); out != detOK {
					break
				}
			}
		case KindQuant:
			out = p.continueQuant(fr.n, int(fr.i)+1)
		}
		switch out {
		case detOK:
		case detFail:
			impossible = true
			break walk
		default:
			break walk
		}
	}
	if k < low && p.specBase < 0 {
		impossible = p.pos != len(p.in)
	}
	p.speculated(p.pos - pos)
	p.pos, p.inRest, p.mode, p.frames, p.before = savedPos, false, mode, p.frames[:nframes], before
	return impossible
}

// continueQuant parses the repetitions of Quant n from the count-th on,
// only checking (in a continuation).
func (p *detParser) continueQuant(n *Node, count int) detOutcome {
	table := p.ll.table[n.ID]
	for ; n.Max == Unbounded || count < n.Max; count++ {
		if count >= n.Min {
			switch table[p.look()] {
			case llConflict:
				again, _, out := p.decideQuant(n, 0)
				if out != detOK {
					return out
				}
				if !again {
					return detOK
				}
			case 0, llFail:
				return detOK
			}
		}
		start := p.pos
		if out := p.parse(n.Children[0]); out != detOK {
			return out
		}
		if p.pos == start && count >= n.Min {
			return detBail
		}
	}
	return detOK
}

func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}
