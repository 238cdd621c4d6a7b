package antlr

import (
	"regexp/syntax"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// What can come next at a place of a grammar, as far as choosing a gap
// goes: a word character, another character, or the end of the input.
type nextSet uint8

const (
	nextWord nextSet = 1 << iota
	nextOther
	nextEnd
)

// refineGaps replaces each WordGap by a cheaper gap where what follows it
// settles the choice: SpaceGap where a word character always follows
// (hidden material is then required, and a generator never glues two
// words), Gap where one never does. It needs FIRST and FOLLOW sets of
// the converted grammar, computed to a fixed point.
func refineGaps(rules []*grammar.Rule) {
	bodies := map[string]grammar.Expr{}
	for _, r := range rules {
		bodies[r.Name] = r.Body
	}
	ff := &firstFollow{bodies: bodies, first: map[string]nextSet{}, nullable: map[string]bool{}, follow: map[string]nextSet{}}
	for changed := true; changed; {
		changed = false
		for _, r := range rules {
			f, n := ff.firstOf(r.Body)
			if f|ff.first[r.Name] != ff.first[r.Name] || n && !ff.nullable[r.Name] {
				ff.first[r.Name] |= f
				ff.nullable[r.Name] = ff.nullable[r.Name] || n
				changed = true
			}
		}
	}
	ff.follow[rules[0].Name] = nextEnd
	for changed := true; changed; {
		changed = false
		for _, r := range rules {
			ff.walk(r.Body, ff.follow[r.Name], func(ref *grammar.Ref, next nextSet) {
				if next|ff.follow[ref.Name] != ff.follow[ref.Name] {
					ff.follow[ref.Name] |= next
					changed = true
				}
			})
		}
	}
	for _, r := range rules {
		ff.walk(r.Body, ff.follow[r.Name], func(ref *grammar.Ref, next nextSet) {
			if ref.Name != WordGap {
				return
			}
			switch {
			case next == nextWord:
				ref.Name = SpaceGap
			case next&nextWord == 0:
				ref.Name = Gap
			}
		})
	}
}

type firstFollow struct {
	bodies   map[string]grammar.Expr
	first    map[string]nextSet
	nullable map[string]bool
	follow   map[string]nextSet
}

// firstOf returns what an expression's matches can start with, and
// whether it can match nothing. Gaps count as nothing: they stand
// between the tokens whose characters decide.
func (ff *firstFollow) firstOf(e grammar.Expr) (nextSet, bool) {
	switch e := e.(type) {
	case *grammar.Lit:
		if e.Text == "" {
			return 0, true
		}
		c, _ := utf8.DecodeRuneInString(e.Text)
		return classOf(c), false
	case *grammar.Regex:
		return regexFirst(e.Src)
	case *grammar.Ref:
		if isGap(e.Name) {
			return 0, true
		}
		return ff.first[e.Name], ff.nullable[e.Name]
	case *grammar.Seq:
		var f nextSet
		for _, x := range e.Items {
			xf, n := ff.firstOf(x)
			f |= xf
			if !n {
				return f, false
			}
		}
		return f, true
	case *grammar.Alt:
		var f nextSet
		null := false
		for _, x := range e.Alts {
			xf, n := ff.firstOf(x)
			f |= xf
			null = null || n
		}
		return f, null
	case *grammar.Repeat:
		f, n := ff.firstOf(e.X)
		return f, n || e.Min == 0
	}
	return 0, true
}

// walk calls fn for every reference in e with what can follow it, given
// what follows e.
func (ff *firstFollow) walk(e grammar.Expr, next nextSet, fn func(*grammar.Ref, nextSet)) {
	switch e := e.(type) {
	case *grammar.Ref:
		fn(e, next)
	case *grammar.Seq:
		for i := len(e.Items) - 1; i >= 0; i-- {
			ff.walk(e.Items[i], next, fn)
			f, n := ff.firstOf(e.Items[i])
			if n {
				next |= f
			} else {
				next = f
			}
		}
	case *grammar.Alt:
		for _, x := range e.Alts {
			ff.walk(x, next, fn)
		}
	case *grammar.Repeat:
		if e.Max != 1 {
			f, _ := ff.firstOf(e.X)
			next |= f
		}
		ff.walk(e.X, next, fn)
	}
}

func isGap(name string) bool { return name == Gap || name == WordGap || name == SpaceGap }

func classOf(c rune) nextSet {
	if isWordRune(c) {
		return nextWord
	}
	return nextOther
}

// regexFirst returns what a regular expression's matches can start with.
func regexFirst(src string) (nextSet, bool) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nextWord | nextOther, true
	}
	return reFirst(re)
}

func reFirst(re *syntax.Regexp) (nextSet, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return 0, true
		}
		return classOf(re.Rune[0]), false
	case syntax.OpCharClass:
		var f nextSet
		s := runeSet(re.Rune)
		if s.intersects(wordChars) {
			f |= nextWord
		}
		if s.intersects(wordChars.complement()) {
			f |= nextOther
		}
		return f, false
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return nextWord | nextOther, false
	case syntax.OpCapture:
		return reFirst(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		f, _ := reFirst(re.Sub[0])
		return f, true
	case syntax.OpPlus:
		return reFirst(re.Sub[0])
	case syntax.OpRepeat:
		f, n := reFirst(re.Sub[0])
		return f, n || re.Min == 0
	case syntax.OpConcat:
		var f nextSet
		for _, s := range re.Sub {
			sf, n := reFirst(s)
			f |= sf
			if !n {
				return f, false
			}
		}
		return f, true
	case syntax.OpAlternate:
		var f nextSet
		null := false
		for _, s := range re.Sub {
			sf, n := reFirst(s)
			f |= sf
			null = null || n
		}
		return f, null
	case syntax.OpNoMatch:
		return 0, false
	}
	return 0, true // empty matches and assertions
}
