package synth

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// deriveBudget bounds the backtracking of one derivation.
const deriveBudget = 20000

// deriveRegex returns the decisions with which the generator's draw of
// the regex src produces exactly text, whatever its bounds: any
// character of a class, any count of a repetition, \B like any other
// branch. It returns false if text is not in the regex's language, the
// draw cannot write it (a case-folded literal in the other case, invalid
// UTF-8) or the search ran out of budget. It is how the solver draws a
// terminal's learned value: replaying these decisions keeps the tree's
// choices replayable.
func deriveRegex(src, text string) ([]int, bool) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil || !utf8.ValidString(text) {
		return nil, false // the draw writes runes: it cannot produce invalid UTF-8
	}
	d := &drawDeriver{r: regexGenOf(re), anyCount: true, anyChar: true, noWordBoundary: true, text: []rune(text)}
	return d.run()
}

// drawDeriver finds the decisions with which Generator.draw writes a
// text, in the order draw asks for them (regex alternatives, repetition
// counts, characters): a backtracking search that tries, at each
// decision, the values it may take in increasing order, and gives up
// after a budget of steps. It is arbor's one regex deriver, in three
// modes:
//
//   - derive (ChoicesOf) offers only the options draw offers (the
//     characters it draws from a class, the repetition counts within the
//     bound, no \B where another branch can be drawn, only the shortest
//     choices past the size bound), for a decision outside them would
//     not replay through the fuzzer.
//   - deriveExact (ExactChoicesOf) offers any value the grammar allows,
//     and \B only where the text needs it, with a search of counts linear
//     in the text.
//   - deriveRegex (the solver's steering towards a learned value) offers
//     any value too, but \B as any other branch, and tries each count
//     anew. Where a text has more than one derivation it may find
//     another than deriveExact would, and the solver's inputs for a seed
//     depend on which, so it keeps its own order.
type drawDeriver struct {
	r         *regexGen
	shortest  bool
	maxRepeat int
	// anyCount and anyChar lift the bounds on counts and characters:
	// deriveRegex and deriveExact lift both, derive one at a time, to
	// tell which of them a text that does not derive runs into.
	anyCount, anyChar bool
	// noWordBoundary takes \B where another branch could be drawn.
	noWordBoundary bool
	// exact (deriveExact) tries the counts of a repetition in a search
	// linear in the text (the others', which try each count anew, are
	// quadratic: derive's bounded counts keep it short, and deriveRegex
	// has a budget).
	exact bool

	text   []rune
	budget int
}

// derive returns the decisions, or an error saying why there are none.
func (d *drawDeriver) derive(text string) ([]int, error) {
	if !utf8.ValidString(text) {
		return nil, errors.New("it is not valid UTF-8, and the draw writes runes")
	}
	d.text = []rune(text)
	if dec, ok := d.run(); ok {
		return dec, nil
	}
	if d.budget < 0 {
		return nil, fmt.Errorf("the search gave up after %d steps", deriveBudget)
	}
	// Lift the bounds one at a time, to say which the text runs into.
	lifted := *d
	for _, lift := range []struct {
		counts, chars bool
		why           string
	}{
		{true, false, fmt.Sprintf("it needs more repetitions inside the regex than the bound %d", d.maxRepeat)},
		{true, true, "it has characters the draw does not write (a class's printable ASCII members and a few others)"},
	} {
		lifted.shortest, lifted.anyCount, lifted.anyChar = false, lift.counts, lift.chars
		_, ok := lifted.run()
		switch {
		case ok && d.shortest:
			return nil, errors.New("past the size bound (or under the shortest policy) the draw takes only its shortest choices")
		case ok:
			return nil, errors.New(lift.why)
		case lifted.budget < 0:
			return nil, errors.New("it is not derivable within the generator's bounds")
		}
	}
	return nil, errors.New("the draw cannot write it (it writes a case-folded literal such as [eE] in one case only)")
}

// deriveExact returns decisions that write text when replayed as they
// are: any count within a repetition's own bounds, any character of a
// class, and \B only where the text needs it.
func (d *drawDeriver) deriveExact(text string) ([]int, error) {
	if !utf8.ValidString(text) {
		return nil, errors.New("it is not valid UTF-8, and the draw writes runes")
	}
	d.text = []rune(text)
	d.shortest, d.anyCount, d.anyChar, d.exact = false, true, true, true
	for _, b := range []bool{false, true} {
		d.noWordBoundary = b
		if dec, ok := d.run(); ok {
			return dec, nil
		}
		if d.budget < 0 {
			return nil, fmt.Errorf("the search gave up after %d steps", d.limit())
		}
	}
	return nil, errors.New("the draw cannot write it whatever it chooses (it writes a case-folded literal such as [eE] in one case only)")
}

// limit is the search's budget: an exact search may take a few steps per
// character of a long text.
func (d *drawDeriver) limit() int {
	if d.exact {
		return max(deriveBudget, 64*len(d.text))
	}
	return deriveBudget
}

func (d *drawDeriver) run() ([]int, bool) {
	d.budget = d.limit()
	var out []int
	ok := d.match(d.r.re, 0, nil, func(pos int, dec *drawn) bool {
		if pos != len(d.text) {
			return false
		}
		out = dec.slice()
		return true
	})
	return out, ok
}

// match matches re at pos as draw would write it, with the decisions made
// so far, and calls k with each way it can end until k accepts one. It
// is one switch over the regex operators, case for case draw's, kept
// whole so that the two can be read side by side.
func (d *drawDeriver) match(re *syntax.Regexp, pos int, dec *drawn, k func(int, *drawn) bool) bool {
	if d.budget--; d.budget < 0 {
		return false
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return k(pos, dec)
	case syntax.OpLiteral:
		for i, r := range re.Rune {
			if pos+i >= len(d.text) || r != d.text[pos+i] {
				return false
			}
		}
		return k(pos+len(re.Rune), dec)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		if pos >= len(d.text) {
			return false
		}
		c := d.text[pos]
		if d.anyChar {
			if !inClass(re, c) {
				return false
			}
		} else {
			opts := d.r.candidates(re)
			if d.shortest {
				opts = opts[:1]
			}
			if !slices.Contains(opts, int(c)) {
				return false
			}
		}
		return k(pos+1, dec.then(int(c)))
	case syntax.OpCapture:
		return d.match(re.Sub[0], pos, dec, k)
	case syntax.OpConcat:
		var step func(i, pos int, dec *drawn) bool
		step = func(i, pos int, dec *drawn) bool {
			if i == len(re.Sub) {
				return k(pos, dec)
			}
			return d.match(re.Sub[i], pos, dec, func(p int, dc *drawn) bool { return step(i+1, p, dc) })
		}
		return step(0, pos, dec)
	case syntax.OpAlternate:
		// The branches draw offers (see draw).
		best := -1
		if d.shortest {
			for _, s := range re.Sub {
				if l := d.r.shortest(s); (best < 0 || l < best) && !(s.Op == syntax.OpNoWordBoundary && drawable(re.Sub)) {
					best = l
				}
			}
		}
		for i, s := range re.Sub {
			if s.Op == syntax.OpNoWordBoundary && drawable(re.Sub) && !d.noWordBoundary || d.shortest && d.r.shortest(s) != best {
				continue
			}
			if d.match(s, pos, dec.then(i), k) {
				return true
			}
			if d.budget < 0 {
				return false
			}
		}
		return false
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		// The counts draw offers (see draw).
		lo, hi := repeatRange(re, d.maxRepeat)
		if d.shortest {
			hi = lo
		}
		if d.anyCount && re.Op != syntax.OpQuest && (re.Op != syntax.OpRepeat || re.Max < 0) {
			hi = lo + len(d.text) - pos + 1
		}
		// A repetition beyond lo that matches nothing can be left out,
		// so more than one per remaining character never helps.
		hi = min(hi, lo+len(d.text)-pos+1)
		if d.exact {
			return d.repeat(re.Sub[0], lo, hi, pos, dec, k)
		}
		for c := lo; c <= hi; c++ {
			var rep func(i, pos int, dec *drawn) bool
			rep = func(i, pos int, dec *drawn) bool {
				if i == c {
					return k(pos, dec)
				}
				return d.match(re.Sub[0], pos, dec, func(p int, dc *drawn) bool { return rep(i+1, p, dc) })
			}
			if rep(0, pos, dec.then(c)) {
				return true
			}
			if d.budget < 0 {
				return false
			}
		}
		return false
	}
	return false
}

// repeat matches lo to hi repetitions of sub at pos, trying fewer first
// as match does, but in one pass: after each repetition it tries the
// count so far with k, then matches one more, so that a repetition of
// n characters costs about n steps rather than n²/2. The count comes
// before the repetitions' decisions, as draw asks for it: its slot is
// reserved and set before each call of k: every path to a result passes
// through that call, and nothing reads the slot but a result.
func (d *drawDeriver) repeat(sub *syntax.Regexp, lo, hi, pos int, dec *drawn, k func(int, *drawn) bool) bool {
	count := dec.then(lo)
	var rep func(i, pos int, dec *drawn) bool
	rep = func(i, pos int, dec *drawn) bool {
		if i >= lo {
			count.v = i
			if k(pos, dec) {
				return true
			}
			if d.budget < 0 {
				return false
			}
		}
		if i >= hi {
			return false
		}
		return d.match(sub, pos, dec, func(p int, dc *drawn) bool { return rep(i+1, p, dc) })
	}
	return rep(0, pos, count)
}

// drawn is one decision of a partial derivation, linked to those
// before it, so that the search's paths share their common beginnings:
// a decision costs one cell whatever the length of the path.
type drawn struct {
	v    int
	prev *drawn
	n    int // decisions up to this one
}

// then returns the path dec followed by v.
func (dec *drawn) then(v int) *drawn {
	n := 1
	if dec != nil {
		n = dec.n + 1
	}
	return &drawn{v: v, prev: dec, n: n}
}

// slice returns the path's decisions in order.
func (dec *drawn) slice() []int {
	if dec == nil {
		return nil
	}
	out := make([]int, dec.n)
	for ; dec != nil; dec = dec.prev {
		out[dec.n-1] = dec.v
	}
	return out
}

// inClass reports whether c is a character of the class (or any-character
// part) re.
func inClass(re *syntax.Regexp, c rune) bool {
	switch re.Op {
	case syntax.OpAnyChar:
		return true
	case syntax.OpAnyCharNotNL:
		return c != '\n'
	}
	for i := 0; i+1 < len(re.Rune); i += 2 {
		if re.Rune[i] <= c && c <= re.Rune[i+1] {
			return true
		}
	}
	return false
}
