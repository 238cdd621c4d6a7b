package synth

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// regexGen draws strings of a regex terminal's language. Every decision
// (alternation branch, repetition count, character) is a Point, so regex
// draws replay like the rest of a tree.
type regexGen struct {
	re    *syntax.Regexp
	index map[*syntax.Regexp]int   // pre-order number of each part: Point.Sub
	parts []*syntax.Regexp         // the parts by that number
	chars map[*syntax.Regexp][]int // candidate characters of each class
	short map[*syntax.Regexp]int   // shortest match length of each part, in runes
}

func newRegexGen(src string) *regexGen {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		// The grammar package has compiled every regex terminal already.
		re = &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	return regexGenOf(re)
}

// regexGenOf returns the drawer of the parsed regex re.
func regexGenOf(re *syntax.Regexp) *regexGen {
	r := &regexGen{re: re, index: map[*syntax.Regexp]int{}, chars: map[*syntax.Regexp][]int{}, short: map[*syntax.Regexp]int{}}
	var number func(*syntax.Regexp)
	number = func(re *syntax.Regexp) {
		r.index[re] = len(r.parts)
		r.parts = append(r.parts, re)
		for _, s := range re.Sub {
			number(s)
		}
	}
	number(re)
	return r
}

// regexGen is the drawer of regex terminal n, made on first use.
func (x *Generator) regexGen(n *grammar.Node) *regexGen {
	if x.regexes == nil {
		x.regexes = map[int]*regexGen{}
	}
	r := x.regexes[n.ID]
	if r == nil {
		r = newRegexGen(n.Name)
		x.regexes[n.ID] = r
	}
	return r
}

// repeatBounds is the range of counts a repetition part (a *, +, ? or
// {m,n}) allows, hi -1 where it is unbounded; ok is false for a part
// that is not a repetition.
func repeatBounds(re *syntax.Regexp) (lo, hi int, ok bool) {
	switch re.Op {
	case syntax.OpStar:
		return 0, -1, true
	case syntax.OpPlus:
		return 1, -1, true
	case syntax.OpQuest:
		return 0, 1, true
	case syntax.OpRepeat:
		return re.Min, re.Max, true
	}
	return 0, 0, false
}

// repeatRange is the range of counts the draw offers for a repetition
// part: its own, an unbounded * or + cut at maxRepeat, an unbounded {m,}
// at maxRepeat past m.
func repeatRange(re *syntax.Regexp, maxRepeat int) (lo, hi int) {
	lo, hi, _ = repeatBounds(re)
	switch {
	case hi >= 0:
	case re.Op == syntax.OpRepeat:
		hi = lo + maxRepeat
	default:
		hi = maxRepeat
	}
	return lo, max(lo, hi)
}

func (x *Generator) regex(n *grammar.Node, depth int) string {
	r := x.regexGen(n)
	if x.MaxDistinct <= 0 {
		var b strings.Builder
		x.draw(&b, r, r.re, n, depth)
		return b.String()
	}
	if x.drawn == nil {
		x.drawn = map[int][]string{}
	}
	pool := x.drawn[n.ID]
	if len(pool) > 0 {
		x.opts = x.opts[:0]
		for i := range pool {
			x.opts = append(x.opts, i)
		}
		if len(pool) < x.MaxDistinct {
			x.opts = append(x.opts, len(pool))
		}
		if i := x.choose(Point{Node: n, Kind: RegexReuse, Depth: depth, Options: x.opts}); i >= 0 && i < len(pool) {
			return pool[i]
		}
	}
	var b strings.Builder
	x.draw(&b, r, r.re, n, depth)
	v := b.String()
	if !slices.Contains(pool, v) {
		// A replay may draw a new value past the bound; it joins the
		// pool all the same, so that later indexes mean what they meant.
		x.drawn[n.ID] = append(pool, v)
	}
	return v
}

func (x *Generator) draw(b *strings.Builder, r *regexGen, re *syntax.Regexp, n *grammar.Node, depth int) {
	point := func(k PointKind, opts []int) int {
		return x.choose(Point{Node: n, Kind: k, Sub: r.index[re], Depth: depth, Options: opts})
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			b.WriteRune(c)
		}
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		opts := r.candidates(re)
		if x.shortest() {
			opts = opts[:1]
		}
		b.WriteRune(rune(point(RegexChar, opts)))
	case syntax.OpCapture:
		x.draw(b, r, re.Sub[0], n, depth)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			x.draw(b, r, s, n, depth)
		}
	case syntax.OpAlternate:
		x.opts = x.opts[:0]
		best := -1
		for i, s := range re.Sub {
			// \b, \B, ^ and $ hold or not by the characters around,
			// which the generator cannot see (the next is not drawn yet):
			// drawing \B as nothing glues words together (an imported
			// grammar's gap between tokens is H+|\B), drawing $ as the
			// end of a line comment ('--' ~[\n]* (\n|$)) comments out
			// what follows. An assertion is drawn only when nothing else
			// can be, which also lets a grammar say "the parser accepts
			// nothing here, the generator draws H" with H|\b|\B.
			if assertion(s) && drawable(re.Sub) {
				continue
			}
			if !x.shortest() {
				x.opts = append(x.opts, i)
				continue
			}
			switch l := r.shortest(s); {
			case best < 0 || l < best:
				best = l
				x.opts = append(x.opts[:0], i)
			case l == best:
				x.opts = append(x.opts, i)
			}
		}
		x.draw(b, r, re.Sub[point(RegexAlternative, x.opts)], n, depth)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := repeatRange(re, x.maxRepeat())
		if x.shortest() {
			hi = lo
		}
		x.opts = x.opts[:0]
		for c := lo; c <= hi; c++ {
			x.opts = append(x.opts, c)
		}
		count := point(RegexRepetition, x.opts)
		for i := 0; i < count; i++ {
			x.draw(b, r, re.Sub[0], n, depth)
		}
	}
	// Empty matches and assertions (^, $, \b) add nothing.
}

// assertion reports whether re is a zero-width assertion: \b, \B, ^, $
// and their multi-line forms.
func assertion(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary,
		syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	}
	return false
}

// drawable reports whether some alternative is not an assertion.
func drawable(alts []*syntax.Regexp) bool {
	for _, a := range alts {
		if !assertion(a) {
			return true
		}
	}
	return false
}

// candidates are the characters a class draws from: its printable ASCII
// members, then a few representative characters beyond ASCII (accented
// Latin, Greek, CJK, an emoji) where the class has them, so that inputs
// stay readable yet exercise UTF-8. A class with no such members draws
// from up to 16 characters spread over its ranges.
func (r *regexGen) candidates(re *syntax.Regexp) []int {
	if c, ok := r.chars[re]; ok {
		return c
	}
	ranges := re.Rune
	switch re.Op {
	case syntax.OpAnyChar:
		ranges = []rune{0, unicode.MaxRune}
	case syntax.OpAnyCharNotNL:
		ranges = []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	}
	in := func(c rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= c && c <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	var out []int
	for c := rune(0x20); c < 0x7f; c++ {
		if in(c) {
			out = append(out, int(c))
		}
	}
	for _, c := range []rune{'\t', 'é', 'ß', 'λ', 'Ж', '日', '🎉'} {
		if in(c) {
			out = append(out, int(c))
		}
	}
	if len(out) == 0 {
		for i := 0; i+1 < len(ranges) && len(out) < 16; i += 2 {
			lo, hi := ranges[i], ranges[i+1]
			step := max(1, (hi-lo)/4)
			for c := lo; c <= hi && len(out) < 16; c += step {
				if utf8.ValidRune(c) {
					out = append(out, int(c))
				}
			}
		}
	}
	if len(out) == 0 {
		out = []int{int(utf8.RuneError)}
	}
	r.chars[re] = out
	return out
}

// shortest is the fewest characters a match of re can have.
func (r *regexGen) shortest(re *syntax.Regexp) int {
	if n, ok := r.short[re]; ok {
		return n
	}
	n := 0
	switch re.Op {
	case syntax.OpLiteral:
		n = len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		n = 1
	case syntax.OpCapture, syntax.OpPlus:
		n = r.shortest(re.Sub[0])
	case syntax.OpRepeat:
		n = re.Min * r.shortest(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			n += r.shortest(s)
		}
	case syntax.OpAlternate:
		n = -1
		for _, s := range re.Sub {
			if l := r.shortest(s); n < 0 || l < n {
				n = l
			}
		}
	}
	r.short[re] = n
	return n
}
