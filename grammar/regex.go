package grammar

import (
	"regexp/syntax"
	"sync"
	"unicode"
	"unicode/utf8"
)

// matcher matches a regular-expression terminal anchored at a position and
// reports every length it can match, which a general parser needs: a
// regex such as /a+/ followed by "a" is only parsed right if shorter
// matches are tried as well.
type matcher struct {
	prog     *syntax.Prog
	nullable bool
	first    byteSet // bytes a non-empty match can start with
	alphabet byteSet // bytes that can occur anywhere in a match
	fixed    int     // the byte length of every match, or -1 if matches differ in length

	// Regexes that are a sequence of character-class repetitions, such as
	// [1-9][0-9]* or [^"\\]+, are matched byte by byte when greedy matching
	// is provably the longest match; far faster than the rune machine.
	seq []classRep

	pool sync.Pool // *threadSet pairs for ends
}

// classRep is one element of a byte-level sequence: a byte class repeated
// min..max times (max -1 for unbounded).
type classRep struct {
	class    byteSet
	min, max int
}

func compileMatcher(src string) (*matcher, error) {
	parsed, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	re := parsed.Simplify()
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil, err
	}
	m := &matcher{prog: prog}
	m.nullable = regexFirst(re, &m.first)
	regexAlphabet(re, &m.alphabet)
	m.fixed = fixedLength(re)
	m.detectSequence(parsed)
	n := len(prog.Inst)
	m.pool.New = func() any { return [2]*threadSet{newThreadSet(n), newThreadSet(n)} }
	return m, nil
}

// detectSequence recognises a concatenation of repeated character classes
// that a byte loop matches exactly: each class must be decidable byte by
// byte (contain all runes from U+0080 up or none of them; if all, only as
// X* or X+, where counting bytes instead of runes changes nothing), and a
// repetition of variable length must share no byte with any later class,
// so that greedy matching can never need to give a byte back.
func (m *matcher) detectSequence(re *syntax.Regexp) {
	items := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		items = re.Sub
	}
	var seq []classRep
	for _, it := range items {
		rep := classRep{min: 1, max: 1}
		switch it.Op {
		case syntax.OpStar:
			rep.min, rep.max, it = 0, -1, it.Sub[0]
		case syntax.OpPlus:
			rep.min, rep.max, it = 1, -1, it.Sub[0]
		case syntax.OpQuest:
			rep.min, rep.max, it = 0, 1, it.Sub[0]
		case syntax.OpRepeat:
			rep.min, rep.max, it = it.Min, it.Max, it.Sub[0]
		}
		high, ok := byteClass(it, &rep.class)
		if !ok || high && (rep.max != -1 || rep.min > 1) {
			return
		}
		seq = append(seq, rep)
	}
	for i, a := range seq {
		if a.min == a.max {
			continue
		}
		for _, b := range seq[i+1:] {
			if a.class.intersects(&b.class) {
				return
			}
		}
	}
	m.seq = seq
}

// byteClass converts a single-character regex into a byte set. It reports
// whether the class holds the runes from U+0080 up (as bytes 0x80-0xff),
// and fails for classes that hold only some of them.
func byteClass(re *syntax.Regexp, set *byteSet) (high, ok bool) {
	var ranges []rune
	switch re.Op {
	case syntax.OpCharClass:
		ranges = re.Rune
	case syntax.OpLiteral:
		if len(re.Rune) != 1 || re.Flags&syntax.FoldCase != 0 && hasHighFold(re.Rune[0], re.Rune[0]) {
			return false, false
		}
		r := re.Rune[0]
		ranges = []rune{r, r}
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				ranges = append(ranges, f, f)
			}
		}
	case syntax.OpAnyCharNotNL:
		ranges = []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	case syntax.OpAnyChar:
		ranges = []rune{0, unicode.MaxRune}
	default:
		return false, false
	}
	// Runes at or above 0x80, in order, must cover all or nothing.
	covered := rune(0x80)
	mixed := false
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for c := lo; c <= hi && c < 0x80; c++ {
			set.add(int(c))
		}
		if hi >= 0x80 {
			if lo <= covered {
				covered = max(covered, hi+1)
			} else {
				mixed = true
			}
		}
	}
	switch {
	case !mixed && covered == 0x80:
		return false, true
	case !mixed && covered > unicode.MaxRune:
		set.addHigh()
		return true, true
	}
	return false, false
}

// longest returns the end of the longest match starting at i, or -1.
func (m *matcher) longest(in []byte, i int) int {
	if m.seq != nil {
		return m.longestSeq(in, i)
	}
	ends := m.ends(in, i, nil)
	if len(ends) == 0 {
		return -1
	}
	return ends[len(ends)-1]
}

// longestSeq matches a byte-level sequence greedily.
func (m *matcher) longestSeq(in []byte, i int) int {
	for k := range m.seq {
		// By pointer: a class is 32 bytes, and this is a hot loop.
		r := &m.seq[k]
		n := 0
		for (r.max < 0 || n < r.max) && i < len(in) && r.class.has(int(in[i])) {
			i++
			n++
		}
		if n < r.min {
			return -1
		}
	}
	return i
}

// ends appends to dst, in increasing order, every k such that in[i:k] is
// in the regex's language. Assertions such as ^ and \b see the terminal as
// the start of a text.
func (m *matcher) ends(in []byte, i int, dst []int) []int {
	p := m.prog
	sets := m.pool.Get().([2]*threadSet)
	defer m.pool.Put(sets)
	cur, next := sets[0], sets[1]
	cur.clear()
	pos := i
	r, w := decodeAt(in, pos)
	m.addThread(cur, uint32(p.Start), syntax.EmptyOpContext(-1, r))
	for {
		matched := false
		for _, pc := range cur.dense {
			if p.Inst[pc].Op == syntax.InstMatch {
				matched = true
				break
			}
		}
		if matched {
			dst = append(dst, pos)
		}
		if w == 0 || len(cur.dense) == 0 {
			return dst
		}
		nextPos := pos + w
		nr, nw := decodeAt(in, nextPos)
		ctx := syntax.EmptyOpContext(r, nr)
		next.clear()
		for _, pc := range cur.dense {
			inst := &p.Inst[pc]
			ok := false
			switch inst.Op {
			case syntax.InstRune, syntax.InstRune1:
				ok = inst.MatchRune(r)
			case syntax.InstRuneAny:
				ok = true
			case syntax.InstRuneAnyNotNL:
				ok = r != '\n'
			}
			if ok {
				m.addThread(next, inst.Out, ctx)
			}
		}
		cur, next = next, cur
		pos, r, w = nextPos, nr, nw
	}
}

func decodeAt(in []byte, pos int) (rune, int) {
	if pos >= len(in) {
		return -1, 0
	}
	if c := in[pos]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(in[pos:])
}

func (m *matcher) addThread(s *threadSet, pc uint32, ctx syntax.EmptyOp) {
	if s.has(pc) {
		return
	}
	s.add(pc)
	inst := &m.prog.Inst[pc]
	switch inst.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		m.addThread(s, inst.Out, ctx)
		m.addThread(s, inst.Arg, ctx)
	case syntax.InstCapture, syntax.InstNop:
		m.addThread(s, inst.Out, ctx)
	case syntax.InstEmptyWidth:
		if syntax.EmptyOp(inst.Arg)&^ctx == 0 {
			m.addThread(s, inst.Out, ctx)
		}
	}
}

// threadSet is a sparse set of program counters.
type threadSet struct {
	sparse []uint32
	dense  []uint32
}

func newThreadSet(n int) *threadSet {
	return &threadSet{sparse: make([]uint32, n), dense: make([]uint32, 0, n)}
}

func (s *threadSet) has(pc uint32) bool {
	i := s.sparse[pc]
	return int(i) < len(s.dense) && s.dense[i] == pc
}

func (s *threadSet) add(pc uint32) {
	s.sparse[pc] = uint32(len(s.dense))
	s.dense = append(s.dense, pc)
}

func (s *threadSet) clear() { s.dense = s.dense[:0] }

// regexFirst adds to first the bytes a non-empty match of re can start
// with and reports whether re can match the empty string. Both are
// over-approximations where assertions are involved, which keeps the
// lookahead analysis that uses them sound.
func regexFirst(re *syntax.Regexp, first *byteSet) (nullable bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		addRunes(first, re.Rune[0], re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			addRunes(first, re.Rune[i], re.Rune[i+1], false)
		}
		return false
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		addRunes(first, 0, unicode.MaxRune, false)
		return false
	case syntax.OpCapture:
		return regexFirst(re.Sub[0], first)
	case syntax.OpStar, syntax.OpQuest:
		regexFirst(re.Sub[0], first)
		return true
	case syntax.OpPlus:
		return regexFirst(re.Sub[0], first)
	case syntax.OpRepeat:
		n := regexFirst(re.Sub[0], first)
		return n || re.Min == 0
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !regexFirst(s, first) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		n := false
		for _, s := range re.Sub {
			if regexFirst(s, first) {
				n = true
			}
		}
		return n
	}
	addRunes(first, 0, unicode.MaxRune, false)
	return true
}

// regexAlphabet adds every byte that can occur in a match of re.
func regexAlphabet(re *syntax.Regexp, set *byteSet) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			addRunes(set, r, r, re.Flags&syntax.FoldCase != 0)
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			addRunes(set, re.Rune[i], re.Rune[i+1], false)
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		addRunes(set, 0, unicode.MaxRune, false)
	}
	for _, s := range re.Sub {
		regexAlphabet(s, set)
	}
}

// addRunes adds the bytes that begin or continue the UTF-8 encodings of
// runes lo..hi. Every byte of a multi-byte encoding is 0x80 or above, and
// input that is not UTF-8 is read a byte at a time as U+FFFD, so any rune
// at or above 0x80 stands for all of those bytes.
func addRunes(set *byteSet, lo, hi rune, fold bool) {
	for c := lo; c <= hi && c < 0x80; c++ {
		set.add(int(c))
		if fold {
			for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
				if f < 0x80 {
					set.add(int(f))
				} else {
					set.addHigh()
				}
			}
		}
	}
	if hi >= 0x80 || fold && lo < 0x80 && hasHighFold(lo, hi) {
		set.addHigh()
	}
}

func hasHighFold(lo, hi rune) bool {
	for c := lo; c <= hi && c < 0x80; c++ {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= 0x80 {
				return true
			}
		}
	}
	return false
}

// byteSet is a set of byte values plus eof (256), the end of the input.
type byteSet [5]uint64

const eof = 256

func (s *byteSet) add(c int)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c int) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *byteSet) addHigh()       { s[2], s[3] = ^uint64(0), ^uint64(0) }
func (s *byteSet) union(t *byteSet) bool {
	changed := false
	for i := range s {
		if n := s[i] | t[i]; n != s[i] {
			s[i], changed = n, true
		}
	}
	return changed
}
func (s *byteSet) intersects(t *byteSet) bool {
	for i := range s {
		if s[i]&t[i] != 0 {
			return true
		}
	}
	return false
}

// fixedLength returns the byte length shared by every match of re, or -1.
func fixedLength(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return 0
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			for _, r := range re.Rune {
				if r >= 0x80 || hasHighFold(r, r) {
					return -1
				}
			}
			return len(re.Rune)
		}
		return len(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return -1
		}
		n := utf8.RuneLen(re.Rune[0])
		for i, r := range re.Rune {
			if utf8.RuneLen(r) != n {
				return -1
			}
			// Bytes that are not UTF-8 are read one at a time as U+FFFD.
			if i%2 == 1 && re.Rune[i-1] <= utf8.RuneError && r >= utf8.RuneError && n != 1 {
				return -1
			}
		}
		return n
	case syntax.OpCapture:
		return fixedLength(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min != re.Max {
			return -1
		}
		if n := fixedLength(re.Sub[0]); n >= 0 {
			return n * re.Min
		}
	case syntax.OpConcat:
		total := 0
		for _, s := range re.Sub {
			n := fixedLength(s)
			if n < 0 {
				return -1
			}
			total += n
		}
		return total
	case syntax.OpAlternate:
		n := fixedLength(re.Sub[0])
		for _, s := range re.Sub[1:] {
			if fixedLength(s) != n {
				return -1
			}
		}
		return n
	}
	return -1
}
