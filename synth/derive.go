package synth

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// deriveBudget bounds the backtracking of one derivation.
const deriveBudget = 20000

// deriveRegex returns the decisions with which the generator's draw of
// the regex src produces exactly text, in the order it asks for them
// (regex alternatives, repetition counts, characters), or false if text
// is not in the regex's language or the search ran out of budget. It is
// how the solver draws a terminal's learned value: replaying these
// decisions keeps the tree's choices replayable.
func deriveRegex(src, text string) ([]int, bool) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil || !utf8.ValidString(text) {
		return nil, false // the draw writes runes: it cannot produce invalid UTF-8
	}
	d := &deriver{text: []rune(text), budget: deriveBudget}
	var out []int
	ok := d.match(re, 0, nil, func(pos int, dec []int) bool {
		if pos != len(d.text) {
			return false
		}
		out = dec
		return true
	})
	return out, ok
}

type deriver struct {
	text   []rune
	budget int
}

// match matches re at pos with the decisions made so far, and calls k
// with each way it can end until k accepts one.
func (d *deriver) match(re *syntax.Regexp, pos int, dec []int, k func(int, []int) bool) bool {
	if d.budget--; d.budget < 0 {
		return false
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return k(pos, dec)
	case syntax.OpLiteral:
		for i, r := range re.Rune {
			// The draw writes a literal as parsed, even a case-folded one
			// ([eE] parses as a folded "E"), so only that text derives.
			if pos+i >= len(d.text) || r != d.text[pos+i] {
				return false
			}
		}
		return k(pos+len(re.Rune), dec)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		if pos >= len(d.text) || !inClass(re, d.text[pos]) {
			return false
		}
		return k(pos+1, append(slices.Clip(dec), int(d.text[pos])))
	case syntax.OpCapture:
		return d.match(re.Sub[0], pos, dec, k)
	case syntax.OpConcat:
		var step func(i, pos int, dec []int) bool
		step = func(i, pos int, dec []int) bool {
			if i == len(re.Sub) {
				return k(pos, dec)
			}
			return d.match(re.Sub[i], pos, dec, func(p int, dc []int) bool { return step(i+1, p, dc) })
		}
		return step(0, pos, dec)
	case syntax.OpAlternate:
		for i, s := range re.Sub {
			if d.match(s, pos, append(slices.Clip(dec), i), k) {
				return true
			}
		}
		return false
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, -1
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		if limit := lo + len(d.text) - pos + 1; hi < 0 || hi > limit {
			hi = limit // each repetition beyond lo must consume something to help
		}
		for c := lo; c <= hi; c++ {
			var rep func(i, pos int, dec []int) bool
			rep = func(i, pos int, dec []int) bool {
				if i == c {
					return k(pos, dec)
				}
				return d.match(re.Sub[0], pos, dec, func(p int, dc []int) bool { return rep(i+1, p, dc) })
			}
			if rep(0, pos, append(slices.Clip(dec), c)) {
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
