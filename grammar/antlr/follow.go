package antlr

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// next is what can come at a place of a grammar: a first character of
// chars, or the end of the input.
type next struct {
	chars runeSet
	end   bool
}

func (a next) union(b next) next { return next{a.chars.union(b.chars), a.end || b.end} }

func (a next) equal(b next) bool { return a.end == b.end && slices.Equal(a.chars, b.chars) }

var anyChar = runeSet{0, unicode.MaxRune}

// refineGaps decides the gap after each token that characters could
// extend (ext: a gap placed as WordGap), from what can follow it:
//
//   - nothing that could extend the token follows: Gap;
//   - only what could extend it follows: SpaceGap, hidden material
//     required ('if' before an identifier);
//   - else, where what could extend it is exactly the word characters
//     that follow: WordGap, which allows nothing only before a character
//     that is not a word character;
//   - else Gap, accepting two tokens glued together that ANTLR's lexer
//     would read as one (an approximation).
//
// A gap left Gap becomes GlueGap where the token before it (tok) can end
// in the first character of a hidden token and what follows can start
// with its second (glue): the generator then never glues them.
//
// It needs FIRST, LAST and FOLLOW sets of the converted grammar, computed
// to a fixed point.
func refineGaps(rules []*grammar.Rule, ext map[*grammar.Ref]runeSet, tok map[*grammar.Ref]grammar.Expr, glue [][2]rune) {
	ff := &firstFollow{first: map[string]next{}, last: map[string]next{}, follow: map[string]next{}}
	ff.fix(rules, ff.first, false)
	if len(glue) > 0 {
		ff.fix(rules, ff.last, true)
	}
	ff.follow[rules[0].Name] = next{end: true}
	for changed := true; changed; {
		changed = false
		for _, r := range rules {
			ff.walk(r.Body, ff.follow[r.Name], func(ref *grammar.Ref, n next) {
				if u := n.union(ff.follow[ref.Name]); !u.equal(ff.follow[ref.Name]) {
					ff.follow[ref.Name] = u
					changed = true
				}
			})
		}
	}
	for _, r := range rules {
		ff.walk(r.Body, ff.follow[r.Name], func(ref *grammar.Ref, n next) {
			defer func() {
				if ref.Name == Gap && tok[ref] != nil && glues(ff.lastOf(tok[ref]).chars, n.chars, glue) {
					ref.Name = GlueGap
				}
			}()
			e, ok := ext[ref]
			if !ok {
				return
			}
			extending := n.chars.minus(e.complement()) // n.chars ∩ e
			switch {
			case extending.empty():
				ref.Name = Gap
			case !n.end && slices.Equal(extending, n.chars):
				ref.Name = SpaceGap
			case slices.Equal(extending, n.chars.minus(wordChars.complement())):
				ref.Name = WordGap
			default:
				ref.Name = Gap
			}
		})
	}
}

// glues reports whether a character of last followed by one of first
// begins a hidden token.
func glues(last, first runeSet, glue [][2]rune) bool {
	for _, g := range glue {
		if last.has(g[0]) && first.has(g[1]) {
			return true
		}
	}
	return false
}

type firstFollow struct {
	first  map[string]next // end set: the rule can match nothing
	last   map[string]next // what the rule's matches can end with
	follow map[string]next
}

// fix computes each rule's FIRST (fromEnd false) or LAST set into m, to
// a fixed point.
func (ff *firstFollow) fix(rules []*grammar.Rule, m map[string]next, fromEnd bool) {
	for changed := true; changed; {
		changed = false
		for _, r := range rules {
			if u := ff.edgeOf(r.Body, fromEnd).union(m[r.Name]); !u.equal(m[r.Name]) {
				m[r.Name] = u
				changed = true
			}
		}
	}
}

// firstOf returns what an expression's matches can start with; end set
// means it can match nothing. Gaps count as nothing: they stand between
// the tokens whose characters decide.
func (ff *firstFollow) firstOf(e grammar.Expr) next { return ff.edgeOf(e, false) }

// lastOf returns what an expression's matches can end with.
func (ff *firstFollow) lastOf(e grammar.Expr) next { return ff.edgeOf(e, true) }

// edgeOf is firstOf, or with fromEnd lastOf: the two differ only in
// which end of a literal and of a sequence they look at.
func (ff *firstFollow) edgeOf(e grammar.Expr, fromEnd bool) next {
	switch e := e.(type) {
	case *grammar.Lit:
		if e.Text == "" {
			return next{end: true}
		}
		c, _ := utf8.DecodeRuneInString(e.Text)
		if fromEnd {
			c, _ = utf8.DecodeLastRuneInString(e.Text)
		}
		return next{chars: runeSet{c, c}}
	case *grammar.Regex:
		re, err := syntax.Parse(e.Src, syntax.Perl)
		if err != nil {
			return next{chars: anyChar, end: true}
		}
		return reEdge(re, fromEnd)
	case *grammar.Ref:
		if isGap(e.Name) {
			return next{end: true}
		}
		if fromEnd {
			return ff.last[e.Name]
		}
		return ff.first[e.Name]
	case *grammar.Seq:
		var f next
		for i := range e.Items {
			if fromEnd {
				i = len(e.Items) - 1 - i
			}
			xf := ff.edgeOf(e.Items[i], fromEnd)
			f.chars = f.chars.union(xf.chars)
			if !xf.end {
				return f
			}
		}
		f.end = true
		return f
	case *grammar.Alt:
		var f next
		for _, x := range e.Alts {
			f = f.union(ff.edgeOf(x, fromEnd))
		}
		return f
	case *grammar.Repeat:
		f := ff.edgeOf(e.X, fromEnd)
		f.end = f.end || e.Min == 0
		return f
	}
	return next{end: true}
}

// walk calls fn for every reference in e with what can follow it, given
// what follows e.
func (ff *firstFollow) walk(e grammar.Expr, after next, fn func(*grammar.Ref, next)) {
	switch e := e.(type) {
	case *grammar.Ref:
		fn(e, after)
	case *grammar.Seq:
		for i := len(e.Items) - 1; i >= 0; i-- {
			ff.walk(e.Items[i], after, fn)
			f := ff.firstOf(e.Items[i])
			if f.end {
				after = next{after.chars.union(f.chars), after.end}
			} else {
				after = f
			}
		}
	case *grammar.Alt:
		for _, x := range e.Alts {
			ff.walk(x, after, fn)
		}
	case *grammar.Repeat:
		if e.Max != 1 {
			after = next{after.chars.union(ff.firstOf(e.X).chars), after.end}
		}
		ff.walk(e.X, after, fn)
	}
}

func isGap(name string) bool {
	return name == Gap || name == WordGap || name == SpaceGap || name == GlueGap
}

// reEdge returns what a regular expression's matches can start with, or
// with fromEnd end with.
func reEdge(re *syntax.Regexp, fromEnd bool) next {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return next{end: true}
		}
		c := re.Rune[0]
		if fromEnd {
			c = re.Rune[len(re.Rune)-1]
		}
		s := runeSet{c, c}
		if re.Flags&syntax.FoldCase != 0 {
			s = s.fold()
		}
		return next{chars: s}
	case syntax.OpCharClass:
		return next{chars: normalize(re.Rune)}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return next{chars: anyChar}
	case syntax.OpCapture, syntax.OpPlus:
		return reEdge(re.Sub[0], fromEnd)
	case syntax.OpStar, syntax.OpQuest:
		f := reEdge(re.Sub[0], fromEnd)
		f.end = true
		return f
	case syntax.OpRepeat:
		f := reEdge(re.Sub[0], fromEnd)
		f.end = f.end || re.Min == 0
		return f
	case syntax.OpConcat:
		var f next
		for i := range re.Sub {
			if fromEnd {
				i = len(re.Sub) - 1 - i
			}
			sf := reEdge(re.Sub[i], fromEnd)
			f.chars = f.chars.union(sf.chars)
			if !sf.end {
				return f
			}
		}
		f.end = true
		return f
	case syntax.OpAlternate:
		var f next
		for _, s := range re.Sub {
			f = f.union(reEdge(s, fromEnd))
		}
		return f
	case syntax.OpNoMatch:
		return next{}
	}
	return next{end: true} // empty matches and assertions
}
