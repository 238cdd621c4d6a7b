package antlr

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// maxWords bounds the fixed texts a non-greedy loop may stop at.
const maxWords = 32

// lexerRule converts a lexer rule (a token or a fragment) into an arbor
// rule body. Each rule keeps its name, fragments included; what holds no
// rule reference is collapsed into one regular expression, so that a
// token is one leaf of a tree instead of a leaf per character.
func (cv *converter) lexerRule(r *Rule) grammar.Expr {
	if x, ok := cv.lexerExpr[r.Name]; ok {
		return x
	}
	fold := cv.fold(r)
	cv.inHidden = cv.isHidden(r.Name)
	var body grammar.Expr = cv.lexerBlock(r.Body, fold, true)
	cv.inHidden = false
	if set, ok := cv.firstRuleWins(r, fold); ok {
		body = &grammar.Regex{At: r.Pos, Src: set.regex()}
	}
	if alts := cv.typeAlts[r.Name]; len(alts) > 0 {
		body = cv.typeAltsExpr(r.Name, body)
	}
	body = collapse(body)
	cv.lexerExpr[r.Name] = body
	return body
}

// firstRuleWins models ANTLR's rule order for a token that matches
// exactly one character: where an earlier token also matches one
// character alone, ANTLR's lexer makes that character the earlier token
// (same length: the first rule wins; a longer match wins anyway), so the
// later token never stands for it. A catch-all OTHER : . ; after
// single-character tokens is then only the characters no other token
// takes, rather than a second reading of every one of them (an
// ambiguity at every character). It returns the token's characters
// without those, if any were taken.
func (cv *converter) firstRuleWins(r *Rule, fold bool) (runeSet, bool) {
	if r.Fragment || len(cv.typeAlts[r.Name]) > 0 || hasCommand(r, "more") {
		return nil, false
	}
	set, ok := cv.charSet(r.Body, fold, 0)
	if !ok {
		return nil, false
	}
	var taken runeSet
	for _, q := range cv.lexerOrder {
		if q == r {
			break
		}
		if q.Fragment || hasCommand(q, "more") {
			continue
		}
		if qs, ok := cv.charSet(q.Body, cv.fold(q), 0); ok {
			taken = taken.union(qs)
		}
	}
	left := set.minus(taken)
	if left.empty() || slices.Equal(left, set) {
		return nil, false
	}
	return left, true
}

// hasCommand reports whether an alternative of r ends in the lexer
// command name.
func hasCommand(r *Rule, name string) bool {
	for _, a := range r.Body.Alts {
		for _, c := range a.Commands {
			if c.Name == name {
				return true
			}
		}
	}
	return false
}

func (cv *converter) fold(r *Rule) bool {
	if v, ok := r.Options["caseInsensitive"]; ok {
		return strings.TrimSpace(v) == "true"
	}
	return cv.caseInsens
}

// typeAltsExpr adds to a token the rules that make it with -> type(T).
func (cv *converter) typeAltsExpr(name string, body grammar.Expr) grammar.Expr {
	out := &grammar.Alt{}
	if body != nil {
		out.At = body.Pos()
		out.Alts = append(out.Alts, body)
	}
	for _, t := range cv.typeAlts[name] {
		r := cv.lexerRules[t]
		if out.At.Line == 0 {
			out.At = r.Pos
		}
		out.Alts = append(out.Alts, &grammar.Ref{At: r.Pos, Name: t})
	}
	if len(out.Alts) == 1 {
		return out.Alts[0]
	}
	return out
}

func (cv *converter) lexerBlock(b *Block, fold, top bool) grammar.Expr {
	out := &grammar.Alt{At: b.Pos}
	for _, a := range b.Alts {
		if !top && len(a.Commands) > 0 {
			cv.errorf(a.Commands[0].Pos, "lexer commands belong at the end of a rule's alternative")
		}
		out.Alts = append(out.Alts, cv.lexerAlt(a, fold))
	}
	if len(out.Alts) == 1 {
		return out.Alts[0]
	}
	return out
}

func (cv *converter) lexerAlt(a *Alt, fold bool) grammar.Expr {
	seq := &grammar.Seq{At: a.Pos}
	for i := 0; i < len(a.Elems); i++ {
		e := a.Elems[i]
		if rep, ok := e.(*Repeat); ok && !rep.Greedy && rep.Op != '?' {
			x, rest := cv.nonGreedy(rep, a.Elems[i+1:], fold)
			if x != nil {
				seq.Items = append(seq.Items, x)
				if !rest {
					break
				}
				continue
			}
		}
		if x := cv.lexerElem(e, fold); x != nil {
			seq.Items = append(seq.Items, x)
		}
	}
	return flatten(seq)
}

// nonGreedy converts X*? or X+? followed by tail. Where tail is a fixed
// set of texts (as in '/*' .*? '*/' or '"' .*? ('"' | '\n')) and X a
// character set, the loop and tail become one regular expression that
// stops at the first text (untilFirst), as ANTLR's lexer does. Where X
// is not a set (as in '"' (ESC | .)*? '"'), the characters the texts
// start with are taken out of X's wide sets and the loop made greedy:
// exact for the usual escape-and-any-character loops. rest reports
// whether tail is still to be converted.
func (cv *converter) nonGreedy(rep *Repeat, tail []Elem, fold bool) (x grammar.Expr, rest bool) {
	words, ok := cv.words(tail, 0)
	eof := false
	if !ok && len(tail) == 1 {
		// '//' .*? ('\n' | EOF): the texts, or the end of the input.
		if b, isBlock := tail[0].(*Block); isBlock {
			var rest []*Alt
			for _, a := range b.Alts {
				if len(a.Elems) == 1 {
					if ref, isRef := a.Elems[0].(*Ref); isRef && ref.Name == "EOF" {
						eof = true
						continue
					}
				}
				rest = append(rest, a)
			}
			if eof && len(rest) > 0 {
				words, ok = cv.words([]Elem{&Block{Pos: b.Pos, Alts: rest}}, 0)
			}
		}
	}
	if !ok {
		cv.warnf(rep.Pos, "non-greedy loop converted as greedy: what follows it is not fixed text")
		return nil, true
	}
	if set, ok := cv.charSet(rep.X, fold, 0); ok {
		src, ok := untilFirst(set, words)
		if ok {
			// Up to the end of the input instead, where that may end the
			// token: only single-character texts, whose absence a set can
			// say. A hidden token is left without that way out: a
			// generator would draw the $ as nothing and glue the comment
			// to what follows; a last line comment needs its newline.
			if eof && !cv.inHidden {
				var firsts runeSet
				single := true
				for _, w := range words {
					c, n := utf8.DecodeRuneInString(w)
					single = single && n == len(w)
					firsts = firsts.union(runeSet{c, c})
				}
				if single {
					src = "(?:" + src + "|" + set.minus(firsts).regex() + "*$)"
				}
			}
			if rep.Op == '+' {
				src = set.regex() + "(?:" + src + ")"
			}
			return &grammar.Regex{At: rep.Pos, Src: src}, false
		}
		cv.warnf(rep.Pos, "non-greedy loop converted as greedy: the texts it stops at are too many or too long")
		return nil, true
	}
	var firsts runeSet
	for _, w := range words {
		c, _ := utf8.DecodeRuneInString(w)
		firsts = firsts.union(runeSet{c, c})
	}
	inner := cv.lexerElem(rep.X, fold)
	if inner == nil {
		return nil, true
	}
	inner = subtractWide(inner, firsts)
	min, max := rep.bounds() // * or +: lexerAlt leaves ? to lexerElem
	return &grammar.Repeat{At: rep.Pos, X: inner, Min: min, Max: max}, true
}

// subtractWide takes chars out of the wide character classes (such as .
// or ~[x]) among the top alternatives of e.
func subtractWide(e grammar.Expr, chars runeSet) grammar.Expr {
	if a, ok := e.(*grammar.Alt); ok {
		out := &grammar.Alt{At: a.At}
		for _, x := range a.Alts {
			out.Alts = append(out.Alts, subtractWide(x, chars))
		}
		return out
	}
	r, ok := e.(*grammar.Regex)
	if !ok {
		return e
	}
	parsed, err := syntax.Parse(r.Src, syntax.Perl)
	if err != nil {
		return e
	}
	var set runeSet
	switch parsed.Op {
	case syntax.OpCharClass:
		set = normalize(parsed.Rune)
	case syntax.OpAnyChar:
		set = runeSet{0, unicode.MaxRune}
	case syntax.OpAnyCharNotNL:
		set = runeSet{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	default:
		return e
	}
	if set.size() < 128 {
		return e
	}
	return &grammar.Regex{At: r.At, Src: set.minus(chars).regex()}
}

// words returns the texts a sequence of lexer elements can match, if
// they are few and fixed.
func (cv *converter) words(elems []Elem, depth int) ([]string, bool) {
	out, ok := cv.wordsOrEmpty(elems, depth)
	if !ok {
		return nil, false
	}
	for _, w := range out {
		if w == "" || utf8.RuneCountInString(w) > 16 {
			return nil, false
		}
	}
	return dedupe(out), len(out) > 0
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func (cv *converter) elemWords(e Elem, depth int) ([]string, bool) {
	if depth > 20 {
		return nil, false
	}
	switch e := e.(type) {
	case *Lit:
		return []string{e.Text}, true
	case *Action:
		return []string{""}, !e.Predicate
	case *Block:
		var out []string
		for _, a := range e.Alts {
			ws, ok := cv.wordsOrEmpty(a.Elems, depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, ws...)
		}
		return out, len(out) <= maxWords
	case *Repeat:
		if e.Op != '?' {
			return nil, false
		}
		ws, ok := cv.elemWords(e.X, depth+1)
		return append([]string{""}, ws...), ok
	case *Ref:
		r := cv.lexerRules[e.Name]
		if r == nil {
			return nil, false
		}
		return cv.elemWords(r.Body, depth+1)
	case *Set, *Range:
		set, ok := cv.charSet(e, false, depth)
		if !ok || set.size() > 8 {
			return nil, false
		}
		var out []string
		for i := 0; i+1 < len(set); i += 2 {
			for c := set[i]; c <= set[i+1]; c++ {
				out = append(out, string(c))
			}
		}
		return out, true
	}
	return nil, false
}

// wordsOrEmpty is words that lets a text be empty (an alternative of a block).
func (cv *converter) wordsOrEmpty(elems []Elem, depth int) ([]string, bool) {
	out := []string{""}
	for _, e := range elems {
		ws, ok := cv.elemWords(e, depth)
		if !ok {
			return nil, false
		}
		var next []string
		for _, a := range out {
			for _, b := range ws {
				next = append(next, a+b)
			}
		}
		if len(next) > maxWords {
			return nil, false
		}
		out = next
	}
	return out, true
}

// charSet returns the characters a lexer element matches if it matches
// exactly one character: a set, a range, a one-character literal, ., a
// ~set, a block of those, or a rule that is one of those.
func (cv *converter) charSet(e Elem, fold bool, depth int) (runeSet, bool) {
	if depth > 20 {
		return nil, false
	}
	var s runeSet
	switch e := e.(type) {
	case *Set:
		s = normalize(e.Ranges)
		for _, p := range e.Props {
			ps, ok := propertySet(p)
			if !ok {
				return nil, false
			}
			s = s.union(ps)
		}
	case *Range:
		s = runeSet{e.From, e.To}
	case *Lit:
		c, n := utf8.DecodeRuneInString(e.Text)
		if n == 0 || n != len(e.Text) {
			return nil, false
		}
		s = runeSet{c, c}
	case *Wildcard:
		return runeSet{0, unicode.MaxRune}, true
	case *Not:
		inner, ok := cv.charSet(e.X, fold, depth+1)
		if !ok {
			return nil, false
		}
		return inner.complement(), true
	case *Block:
		for _, a := range e.Alts {
			if len(a.Elems) != 1 {
				return nil, false
			}
			x, ok := cv.charSet(a.Elems[0], fold, depth+1)
			if !ok {
				return nil, false
			}
			s = s.union(x)
		}
	case *Ref:
		r := cv.lexerRules[e.Name]
		if r == nil {
			return nil, false
		}
		return cv.charSet(r.Body, fold, depth+1)
	default:
		return nil, false
	}
	if fold {
		s = s.fold()
	}
	return s, true
}

func (cv *converter) lexerElem(e Elem, fold bool) grammar.Expr {
	switch e := e.(type) {
	case *Lit:
		if e.Text == "" {
			cv.errorf(e.Pos, "empty literal ''")
			return nil
		}
		return cv.lit(e.Pos, e.Text, fold)
	case *Set:
		for _, p := range e.Props {
			if _, ok := propertySet(p); !ok {
				cv.errorf(e.Pos, "unsupported: Unicode property \\p{%s}", strings.TrimPrefix(p, "^"))
				return nil
			}
		}
		if len(e.Ranges) == 0 && len(e.Props) == 0 {
			cv.errorf(e.Pos, "empty character set []")
			return nil
		}
		if len(e.Props) > 0 && !fold {
			return &grammar.Regex{At: e.Pos, Src: propClass(e, false)}
		}
		s, _ := cv.charSet(e, fold, 0)
		return &grammar.Regex{At: e.Pos, Src: s.regex()}
	case *Range, *Wildcard:
		s, _ := cv.charSet(e, fold, 0)
		return &grammar.Regex{At: e.At(), Src: s.regex()}
	case *Not:
		if set, ok := e.X.(*Set); ok && len(set.Props) > 0 && !fold {
			if _, ok := cv.charSet(set, fold, 0); ok {
				return &grammar.Regex{At: e.Pos, Src: propClass(set, true)}
			}
		}
		s, ok := cv.charSet(e, fold, 0)
		if !ok {
			cv.errorf(e.Pos, "~ in a lexer rule takes a set of characters, as in ~[\\r\\n] or ~('a' | 'b')")
			return nil
		}
		if s.empty() {
			cv.errorf(e.Pos, "~ leaves no character to match")
			return nil
		}
		return &grammar.Regex{At: e.Pos, Src: s.regex()}
	case *Ref:
		if e.Name == "EOF" {
			// $ holds only at the end of the input (arbor's matcher sees
			// what follows a terminal).
			return &grammar.Regex{At: e.Pos, Src: "$"}
		}
		if _, ok := cv.lexerRules[e.Name]; !ok {
			if !isTokenName(e.Name) {
				cv.errorf(e.Pos, "lexer rule refers to parser rule %s", e.Name)
			} else if len(cv.typeAlts[e.Name]) == 0 {
				cv.errorf(e.Pos, "undefined lexer rule %s", e.Name)
			}
			if len(cv.typeAlts[e.Name]) == 0 {
				return nil
			}
		}
		return &grammar.Ref{At: e.Pos, Name: e.Name}
	case *Block:
		return cv.lexerBlock(e, fold, false)
	case *Repeat:
		x := cv.lexerElem(e.X, fold)
		if x == nil {
			return nil
		}
		min, max := e.bounds()
		return &grammar.Repeat{At: e.Pos, X: x, Min: min, Max: max}
	case *Action:
		if e.Predicate {
			cv.errorf(e.Pos, "unsupported: semantic predicate {...}? in a lexer rule")
			return nil
		}
		cv.warnf(e.Pos, "lexer action {...} dropped")
		return nil
	}
	return nil
}

// propClass writes a set with Unicode properties as a class that names
// them (\p{L}) rather than listing their thousands of ranges.
func propClass(set *Set, negate bool) string {
	var b strings.Builder
	b.WriteByte('[')
	if negate {
		b.WriteByte('^')
	}
	for _, r := range normalize(set.Ranges).regexRanges() {
		b.WriteString(r)
	}
	for _, p := range set.Props {
		if name, ok := strings.CutPrefix(p, "^"); ok {
			b.WriteString(`\P{` + name + "}")
		} else {
			b.WriteString(`\p{` + p + "}")
		}
	}
	b.WriteByte(']')
	return b.String()
}

// collapse turns what holds no rule reference into one regular
// expression, leaving literals and alternatives of literals as they are:
// they are the most readable terminals.
func collapse(e grammar.Expr) grammar.Expr {
	switch x := e.(type) {
	case *grammar.Seq:
		var items []grammar.Expr
		var run []grammar.Expr
		flush := func() {
			switch len(run) {
			case 0:
			case 1:
				items = append(items, run[0])
			default:
				items = append(items, terminal(&grammar.Seq{At: run[0].Pos(), Items: run}))
			}
			run = nil
		}
		for _, it := range x.Items {
			it = collapse(it)
			if refFree(it) {
				run = append(run, it)
				continue
			}
			flush()
			items = append(items, it)
		}
		flush()
		if len(items) == 1 {
			return items[0]
		}
		return &grammar.Seq{At: x.At, Items: items}
	case *grammar.Alt:
		out := &grammar.Alt{At: x.At}
		free, lits := true, true
		for _, a := range x.Alts {
			a = collapse(a)
			out.Alts = append(out.Alts, a)
			if !refFree(a) {
				free = false
			}
			if _, ok := a.(*grammar.Lit); !ok {
				lits = false
			}
		}
		if free && !lits {
			return terminal(out)
		}
		return out
	case *grammar.Repeat:
		out := &grammar.Repeat{At: x.At, X: collapse(x.X), Min: x.Min, Max: x.Max}
		if refFree(out.X) {
			return terminal(out)
		}
		return out
	}
	return e
}

// terminal writes a reference-free expression as a literal (if it is
// only literals in a row) or a regular expression.
func terminal(e grammar.Expr) grammar.Expr {
	if s, ok := e.(*grammar.Seq); ok {
		var b strings.Builder
		all := true
		for _, it := range s.Items {
			l, ok := it.(*grammar.Lit)
			if !ok {
				all = false
				break
			}
			b.WriteString(l.Text)
		}
		if all {
			return &grammar.Lit{At: s.At, Text: b.String()}
		}
	}
	r, err := exprRegex(e, func(string) grammar.Expr { return nil }, map[string]bool{})
	if err != nil || len(r.s) > maxRegex || !fits(r.s) {
		return e
	}
	return &grammar.Regex{At: e.Pos(), Src: r.s}
}

func refFree(e grammar.Expr) bool {
	free := true
	forEachRef(e, func(string) { free = false })
	return free
}

// gapRules makes the rules Gap, SpaceGap and WordGap from the hidden tokens: one
// regular expression of all of them, so that a run of white space is one
// leaf and parses one way only.
func (cv *converter) gapRules() []*grammar.Rule {
	hs := cv.hiddenRegexes()
	if len(hs) == 0 {
		return nil
	}
	cv.closeOpenLoops(hs)
	h := joinHidden(hs)
	gap := "(?:" + h + ")*"
	space := "(?:" + h + ")+"
	// (H)*(H|\B) is H+|\B. The generator never draws \B where another
	// alternative exists (it cannot see the next character), so the gaps
	// it generates are never empty and never glue two words together.
	word := "(?:" + h + ")*(?:" + h + "|\\B)"
	// \b|\B always holds, so the parser reads (H)*(H|\b|\B) as (H)*; the
	// generator draws no assertion where another alternative exists, so
	// it draws H+.
	glue := "(?:" + h + ")*(?:" + h + "|\\b|\\B)"
	for _, h := range hs {
		if re, err := regexp.Compile(h.src); err == nil {
			if p, _ := re.LiteralPrefix(); utf8.RuneCountInString(p) >= 2 {
				r := []rune(p)
				cv.glue = append(cv.glue, [2]rune{r[0], r[1]})
			}
		}
	}
	if !fits(glue) {
		cv.errorf(cv.hidden[0].Pos, "unsupported: the hidden tokens make a regular expression of %d bytes (arbor takes up to %d)", len(glue), maxRegex)
		return nil
	}
	at := cv.hidden[0].Pos
	return []*grammar.Rule{
		{Name: Gap, Pos: at, Body: &grammar.Regex{At: at, Src: gap}},
		{Name: SpaceGap, Pos: at, Body: &grammar.Regex{At: at, Src: space}},
		{Name: WordGap, Pos: at, Body: &grammar.Regex{At: at, Src: word}},
		{Name: GlueGap, Pos: at, Body: &grammar.Regex{At: at, Src: glue}},
	}
}

// hiddenRegex is a hidden token's rule and its regular expression.
type hiddenRegex struct {
	rule *Rule
	src  string
}

// hiddenRegexes are the hidden tokens' regular expressions; a hidden
// token that is not regular is an error, and left out.
func (cv *converter) hiddenRegexes() []hiddenRegex {
	resolve := func(name string) grammar.Expr {
		r := cv.lexerRules[name]
		if r == nil {
			return nil
		}
		return cv.lexerRule(r)
	}
	var hs []hiddenRegex
	for _, r := range cv.hidden {
		x, err := exprRegex(cv.lexerRule(r), resolve, map[string]bool{r.Name: true})
		if err != nil {
			cv.errorf(r.Pos, "unsupported: hidden token %s is not regular (%v)", r.Name, err)
			continue
		}
		hs = append(hs, hiddenRegex{r, x.s})
	}
	return hs
}

// joinHidden is the alternation of the hidden tokens' expressions.
func joinHidden(hs []hiddenRegex) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = h.src
	}
	return strings.Join(parts, "|")
}

// closeOpenLoops makes a hidden token that ends in an open loop, such
// as a line comment '//' ~[\r\n]*, take along the character the loop
// stops at where that character is itself hidden (the newline of a line
// comment). Such a token must be followed by a character the loop stops
// at: else the parser could end the comment early and read the rest of
// the line as tokens.
func (cv *converter) closeOpenLoops(hs []hiddenRegex) {
	base := joinHidden(hs)
	baseRE, err := regexp.Compile("^(?:" + base + ")$")
	if err != nil {
		return
	}
	for i, h := range hs {
		stop, ok := cv.openLoopStop(h.rule)
		if !ok || stop.size() > 4 {
			continue
		}
		hiddenToo := true
		for j := 0; j+1 < len(stop); j += 2 {
			for c := stop[j]; c <= stop[j+1]; c++ {
				if !baseRE.MatchString(string(c)) {
					hiddenToo = false
				}
			}
		}
		if hiddenToo {
			hs[i].src = cat(source(h.src), atom(stop.regex())).s
		}
	}
}

// openLoopStop returns the characters that end a rule whose every
// alternative ends in a greedy loop over a character set (~[\r\n]*): the
// set's complement.
func (cv *converter) openLoopStop(r *Rule) (runeSet, bool) {
	var stop runeSet
	for i, a := range r.Body.Alts {
		if len(a.Elems) == 0 {
			return nil, false
		}
		rep, ok := a.Elems[len(a.Elems)-1].(*Repeat)
		if !ok || !rep.Greedy || rep.Op == '?' {
			return nil, false
		}
		set, ok := cv.charSet(rep.X, cv.fold(r), 0)
		if !ok {
			return nil, false
		}
		c := set.complement()
		if i > 0 && !slices.Equal(c, stop) {
			return nil, false
		}
		stop = c
	}
	return stop, !stop.empty()
}

// ---- what can extend a token, for choosing the gap after it ----

// tokenExt returns the characters that could extend a match of a token
// into a longer token, which ANTLR's lexer would then read instead: the
// characters of the greedy loops a match can end in ([0-9]+ can go on
// with a digit), and for a token that can end in literal text ending in
// a word character ('if'), the word characters, which an identifier
// could go on with. Other tokens that could extend it are not looked
// for ('+' before '+' where '++' is a token): an approximation.
func (cv *converter) tokenExt(name string) runeSet {
	if s, ok := cv.ext[name]; ok {
		return s
	}
	cv.ext[name] = wordChars // cautious, while the rule is being looked at
	var s runeSet
	if r := cv.lexerRules[name]; r != nil {
		s = cv.blockExt(r.Body)
	}
	for _, t := range cv.typeAlts[name] {
		s = s.union(cv.tokenExt(t))
	}
	cv.ext[name] = s
	return s
}

func (cv *converter) blockExt(b *Block) runeSet {
	var s runeSet
	for _, a := range b.Alts {
		for i := len(a.Elems) - 1; i >= 0; i-- {
			s = s.union(cv.elemExt(a.Elems[i]))
			if !cv.elemNullable(a.Elems[i]) {
				break
			}
		}
	}
	return s
}

func (cv *converter) elemExt(e Elem) runeSet {
	switch e := e.(type) {
	case *Lit:
		c, _ := utf8.DecodeLastRuneInString(e.Text)
		if e.Text != "" && isWordRune(c) && cv.hasWordLoop() {
			return wordChars
		}
	case *Ref:
		if e.Name != "EOF" {
			return cv.tokenExt(e.Name)
		}
	case *Block:
		return cv.blockExt(e)
	case *Repeat:
		s := cv.elemExt(e.X)
		if e.Op != '?' && e.Greedy {
			if set, ok := cv.charSet(e.X, false, 0); ok {
				s = s.union(set)
			} else {
				s = s.union(cv.elemFirst(e.X, 0))
			}
		}
		return s
	}
	return nil
}

// hasWordLoop reports whether some token loops over word characters, as
// an identifier does: only such a token can make a keyword longer.
func (cv *converter) hasWordLoop() bool {
	if cv.wordLoop == 0 {
		cv.wordLoop = memoNo
		for _, name := range cv.tokenOrder {
			if cv.loopsOverWords(cv.lexerRules[name].Body, 0) {
				cv.wordLoop = memoYes
				break
			}
		}
	}
	return cv.wordLoop == memoYes
}

func (cv *converter) loopsOverWords(e Elem, depth int) bool {
	if depth > 20 {
		return false
	}
	switch e := e.(type) {
	case *Repeat:
		if e.Op != '?' {
			if set, ok := cv.charSet(e.X, false, 0); ok && set.intersects(wordChars) {
				return true
			}
		}
		return cv.loopsOverWords(e.X, depth+1)
	case *Block:
		for _, a := range e.Alts {
			for _, x := range a.Elems {
				if cv.loopsOverWords(x, depth+1) {
					return true
				}
			}
		}
	case *Ref:
		if r := cv.lexerRules[e.Name]; r != nil && r.Fragment {
			return cv.loopsOverWords(r.Body, depth+1)
		}
	}
	return false
}

// elemFirst returns the characters a lexer element's matches can start
// with (all of them where that cannot be told).
func (cv *converter) elemFirst(e Elem, depth int) runeSet {
	if depth > 20 {
		return runeSet{0, unicode.MaxRune}
	}
	if set, ok := cv.charSet(e, false, depth); ok {
		return set
	}
	switch e := e.(type) {
	case *Lit:
		c, _ := utf8.DecodeRuneInString(e.Text)
		return runeSet{c, c}
	case *Ref:
		if r := cv.lexerRules[e.Name]; r != nil {
			return cv.elemFirst(r.Body, depth+1)
		}
	case *Block:
		var s runeSet
		for _, a := range e.Alts {
			for _, x := range a.Elems {
				s = s.union(cv.elemFirst(x, depth+1))
				if !cv.elemNullable(x) {
					break
				}
			}
		}
		return s
	case *Repeat:
		return cv.elemFirst(e.X, depth+1)
	}
	return runeSet{0, unicode.MaxRune}
}

const (
	memoBusy = 1
	memoNo   = 2
	memoYes  = 3
)

func (cv *converter) elemNullable(e Elem) bool {
	switch e := e.(type) {
	case *Lit:
		return e.Text == ""
	case *Action:
		return true
	case *Repeat:
		return e.Op != '+' || cv.elemNullable(e.X)
	case *Block:
		for _, a := range e.Alts {
			all := true
			for _, x := range a.Elems {
				if !cv.elemNullable(x) {
					all = false
					break
				}
			}
			if all {
				return true
			}
		}
		return false
	case *Ref:
		r := cv.lexerRules[e.Name]
		if r == nil || cv.nullable[e.Name] == memoBusy {
			return false
		}
		if m := cv.nullable[e.Name]; m != 0 {
			return m == memoYes
		}
		cv.nullable[e.Name] = memoBusy
		yes := cv.elemNullable(r.Body)
		cv.nullable[e.Name] = memoNo
		if yes {
			cv.nullable[e.Name] = memoYes
		}
		return yes
	}
	return false
}
