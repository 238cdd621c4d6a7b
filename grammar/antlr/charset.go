package antlr

import (
	"fmt"
	"regexp/syntax"
	"sort"
	"unicode"
)

// runeSet is a set of characters as sorted, disjoint, non-adjacent
// ranges lo0, hi0, lo1, hi1, ... (the form of regexp/syntax classes).
type runeSet []rune

func normalize(r []rune) runeSet {
	type span struct{ lo, hi rune }
	spans := make([]span, 0, len(r)/2)
	for i := 0; i+1 < len(r); i += 2 {
		spans = append(spans, span{r[i], r[i+1]})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var out runeSet
	for _, s := range spans {
		if n := len(out); n > 0 && s.lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], s.hi)
			continue
		}
		out = append(out, s.lo, s.hi)
	}
	return out
}

func (s runeSet) union(t runeSet) runeSet {
	return normalize(append(append([]rune{}, s...), t...))
}

func (s runeSet) complement() runeSet {
	var out runeSet
	next := rune(0)
	for i := 0; i+1 < len(s); i += 2 {
		if s[i] > next {
			out = append(out, next, s[i]-1)
		}
		next = s[i+1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, next, unicode.MaxRune)
	}
	return out
}

func (s runeSet) minus(t runeSet) runeSet {
	return s.complement().union(t).complement()
}

func (s runeSet) has(c rune) bool {
	for i := 0; i+1 < len(s); i += 2 {
		if s[i] <= c && c <= s[i+1] {
			return true
		}
	}
	return false
}

func (s runeSet) intersects(t runeSet) bool {
	return len(s.minus(t.complement())) > 0
}

func (s runeSet) empty() bool { return len(s) == 0 }

// size is the number of characters in the set.
func (s runeSet) size() int {
	n := 0
	for i := 0; i+1 < len(s); i += 2 {
		n += int(s[i+1]-s[i]) + 1
	}
	return n
}

// fold adds the upper and lower case of every letter (caseInsensitive).
func (s runeSet) fold() runeSet {
	out := append(runeSet{}, s...)
	for i := 0; i+1 < len(s); i += 2 {
		lo, hi := s[i], s[i+1]
		if hi-lo > 0x3000 {
			continue // wide ranges already hold both cases, or hold no letters that fold
		}
		// Upper and lower case only, as ANTLR folds: the Kelvin sign is
		// not a k to it.
		for c := lo; c <= hi; c++ {
			u, l := unicode.ToUpper(c), unicode.ToLower(c)
			out = append(out, u, u, l, l)
		}
	}
	return normalize(out)
}

// regex writes the set as an RE2 character class.
func (s runeSet) regex() string {
	if len(s) == 2 && s[0] == s[1] {
		return (&syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{s[0]}}).String()
	}
	if len(s) == 0 {
		return `[^\x00-\x{10FFFF}]`
	}
	return (&syntax.Regexp{Op: syntax.OpCharClass, Rune: s}).String()
}

// regexRanges writes each range for use inside a class, escaped.
func (s runeSet) regexRanges() []string {
	esc := func(c rune) string {
		if c < 0x80 && (c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return string(c)
		}
		return fmt.Sprintf(`\x{%x}`, c)
	}
	var out []string
	for i := 0; i+1 < len(s); i += 2 {
		if s[i] == s[i+1] {
			out = append(out, esc(s[i]))
		} else {
			out = append(out, esc(s[i])+"-"+esc(s[i+1]))
		}
	}
	return out
}

// wordChars are the characters RE2's \b and \B take for word characters.
var wordChars = runeSet{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}

func isWordRune(c rune) bool { return wordChars.has(c) }

// propertySet returns the characters of a Unicode property named as in
// \p{L}, \p{Lu} or \p{Greek}, or false for a name Go does not know.
func propertySet(name string) (runeSet, bool) {
	neg := false
	if len(name) > 0 && name[0] == '^' {
		neg, name = true, name[1:]
	}
	t := unicode.Categories[name]
	if t == nil {
		t = unicode.Scripts[name]
	}
	if t == nil {
		t = unicode.Properties[name]
	}
	if t == nil {
		return nil, false
	}
	var r []rune
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			r = append(r, lo, hi)
			return
		}
		for c := lo; c <= hi; c += stride {
			r = append(r, c, c)
		}
	}
	for _, x := range t.R16 {
		add(rune(x.Lo), rune(x.Hi), rune(x.Stride))
	}
	for _, x := range t.R32 {
		add(rune(x.Lo), rune(x.Hi), rune(x.Stride))
	}
	s := normalize(r)
	if neg {
		s = s.complement()
	}
	return s, true
}
