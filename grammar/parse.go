package grammar

import (
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits that keep a hostile grammar file from exhausting memory.
const (
	maxRepeat    = 1000  // largest m or n in {m,n}
	maxNesting   = 200   // deepest nesting of parenthesised groups
	maxErrors    = 10    // errors reported before the parser gives up
	maxRegexSize = 4096  // longest regular expression source
	maxWhereSize = 16384 // longest constraint expression
)

// Parse parses a grammar in the native notation. Filename is used in
// positions only. The result is the syntax as written: names are not
// resolved; Build does that. The error, if any, is an ErrorList.
func Parse(filename string, src []byte) (*Grammar, error) {
	p := &parser{filename: filename, src: src, lines: NewLineIndex(filename, src)}
	g := p.grammar()
	p.errs.sort()
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	return g, nil
}

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tString
	tRegex
	tDefine // :=
	tSemi
	tBar
	tLParen
	tRParen
	tQuest
	tStar
	tPlus
	tLBrace
	tRBrace
	tComma
	tNumber
	tIllegal
)

var tokNames = [...]string{
	tEOF: "end of file", tIdent: "rule name", tString: "literal", tRegex: "regular expression",
	tDefine: "':='", tSemi: "';'", tBar: "'|'", tLParen: "'('", tRParen: "')'", tQuest: "'?'",
	tStar: "'*'", tPlus: "'+'", tLBrace: "'{'", tRBrace: "'}'", tComma: "','", tNumber: "number",
	tIllegal: "illegal character",
}

type token struct {
	kind tokKind
	off  int
	text string // identifier, unescaped literal, regex source, number
}

type parser struct {
	filename string
	src      []byte
	lines    *LineIndex
	off      int // scanner offset
	tok      token
	errs     ErrorList
	depth    int
	bail     bool // too many errors
}

func (p *parser) pos(off int) Position { return p.lines.Position(off) }

func (p *parser) errorf(off int, format string, args ...any) {
	if len(p.errs) >= maxErrors {
		p.bail = true
		return
	}
	// One error per position is enough: later ones are usually echoes.
	if n := len(p.errs); n > 0 && p.errs[n-1].Pos.Offset == off {
		return
	}
	p.errs.add(p.pos(off), format, args...)
}

func describe(t token) string {
	switch t.kind {
	case tIdent:
		return "rule name " + t.text
	case tString:
		return "literal " + QuoteLit(t.text)
	case tRegex:
		return "regular expression /" + t.text + "/"
	case tNumber:
		return "number " + t.text
	case tIllegal:
		return fmt.Sprintf("illegal character %q", t.text)
	}
	return tokNames[t.kind]
}

// next scans the next token into p.tok.
func (p *parser) next() {
	p.skipSpace()
	start := p.off
	if p.off >= len(p.src) {
		p.tok = token{kind: tEOF, off: start}
		return
	}
	c := p.src[p.off]
	single := func(k tokKind) { p.off++; p.tok = token{kind: k, off: start} }
	switch {
	case isIdentStart(c):
		for p.off < len(p.src) && isIdentPart(p.src[p.off]) {
			p.off++
		}
		p.tok = token{kind: tIdent, off: start, text: string(p.src[start:p.off])}
	case c >= '0' && c <= '9':
		for p.off < len(p.src) && p.src[p.off] >= '0' && p.src[p.off] <= '9' {
			p.off++
		}
		p.tok = token{kind: tNumber, off: start, text: string(p.src[start:p.off])}
	case c == '"':
		p.tok = token{kind: tString, off: start, text: p.scanString()}
	case c == '/':
		p.tok = token{kind: tRegex, off: start, text: p.scanRegex()}
	case c == ':':
		if p.off+1 < len(p.src) && p.src[p.off+1] == '=' {
			p.off += 2
			p.tok = token{kind: tDefine, off: start}
			return
		}
		if p.off+2 < len(p.src) && p.src[p.off+1] == ':' && p.src[p.off+2] == '=' {
			p.errorf(start, "use ':=' to define a rule, not '::='")
			p.off += 3
			p.tok = token{kind: tDefine, off: start}
			return
		}
		p.off++
		p.tok = token{kind: tIllegal, off: start, text: ":"}
	case c == ';':
		single(tSemi)
	case c == '|':
		single(tBar)
	case c == '(':
		single(tLParen)
	case c == ')':
		single(tRParen)
	case c == '?':
		single(tQuest)
	case c == '*':
		single(tStar)
	case c == '+':
		single(tPlus)
	case c == '{':
		single(tLBrace)
	case c == '}':
		single(tRBrace)
	case c == ',':
		single(tComma)
	default:
		r, n := utf8.DecodeRune(p.src[p.off:])
		p.off += n
		p.tok = token{kind: tIllegal, off: start, text: string(r)}
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '\'' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c == '$' || c >= '0' && c <= '9' }

func (p *parser) skipSpace() {
	for p.off < len(p.src) {
		c := p.src[p.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			p.off++
		case c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '/':
			for p.off < len(p.src) && p.src[p.off] != '\n' {
				p.off++
			}
		case c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '*':
			start := p.off
			end := strings.Index(string(p.src[p.off+2:]), "*/")
			if end < 0 {
				p.errorf(start, "block comment is not closed: add */")
				p.off = len(p.src)
				return
			}
			p.off += 2 + end + 2
		default:
			return
		}
	}
}

// scanString scans a double-quoted literal at p.off and returns its unescaped text.
func (p *parser) scanString() string {
	start := p.off
	p.off++ // opening quote
	var b strings.Builder
	for {
		if p.off >= len(p.src) || p.src[p.off] == '\n' {
			p.errorf(start, "literal is not closed: add a closing \"")
			return b.String()
		}
		c := p.src[p.off]
		switch c {
		case '"':
			p.off++
			return b.String()
		case '\\':
			p.scanEscape(&b)
		default:
			b.WriteByte(c)
			p.off++
		}
	}
}

func (p *parser) scanEscape(b *strings.Builder) {
	at := p.off
	p.off++ // backslash
	if p.off >= len(p.src) {
		p.errorf(at, "escape sequence is not finished")
		return
	}
	c := p.src[p.off]
	p.off++
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case '"', '\\', '/', '\'':
		b.WriteByte(c)
	case 'x':
		v, ok := p.hexDigits(2)
		if !ok {
			p.errorf(at, `\x needs exactly two hex digits, as in \x7f`)
			return
		}
		b.WriteByte(byte(v))
	case 'u':
		v, ok := p.hexDigits(4)
		if !ok {
			p.errorf(at, `\u needs exactly four hex digits, as in \u00e9`)
			return
		}
		if !utf8.ValidRune(rune(v)) {
			p.errorf(at, `\u%04x is not a valid Unicode character`, v)
			return
		}
		b.WriteRune(rune(v))
	default:
		p.errorf(at, `unknown escape \%c in literal (known: \n \r \t \" \\ \/ \xHH \uXXXX)`, c)
	}
}

func (p *parser) hexDigits(n int) (uint64, bool) {
	if p.off+n > len(p.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.src[p.off:p.off+n]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.off += n
	return v, true
}

// scanRegex scans /.../ at p.off and returns the source between the slashes.
// A slash inside is written \/ ; other escapes are passed to RE2 unchanged.
func (p *parser) scanRegex() string {
	start := p.off
	p.off++
	from := p.off
	for {
		if p.off >= len(p.src) || p.src[p.off] == '\n' {
			p.errorf(start, "regular expression is not closed: add a closing /")
			return string(p.src[from:p.off])
		}
		switch p.src[p.off] {
		case '\\':
			p.off += 2
			if p.off > len(p.src) {
				p.off = len(p.src)
			}
		case '/':
			src := string(p.src[from:p.off])
			p.off++
			return src
		default:
			p.off++
		}
	}
}

func (p *parser) expect(k tokKind, context string) bool {
	if p.tok.kind != k {
		p.errorf(p.tok.off, "expected %s %s, found %s", tokNames[k], context, describe(p.tok))
		return false
	}
	p.next()
	return true
}

// grammar = rule* EOF
func (p *parser) grammar() *Grammar {
	g := &Grammar{Filename: p.filename}
	p.next()
	for p.tok.kind != tEOF && !p.bail {
		if p.atWhere() {
			if w := p.where(); w != nil {
				g.Where = append(g.Where, w)
			}
			continue
		}
		if r := p.rule(); r != nil {
			g.Rules = append(g.Rules, r)
		} else {
			p.recover()
		}
	}
	if len(g.Rules) == 0 && len(p.errs) == 0 {
		p.errorf(0, "the grammar has no rules; write at least one, as in Start := \"a\" ;")
	}
	return g
}

// recover skips to just after the next ';' so that later rules are still checked.
func (p *parser) recover() {
	for p.tok.kind != tEOF && p.tok.kind != tSemi {
		p.next()
	}
	if p.tok.kind == tSemi {
		p.next()
	}
}

// atWhere reports whether the current token starts a constraint clause:
// the word where not followed by ':=' (a rule may still be named where).
func (p *parser) atWhere() bool {
	if p.tok.kind != tIdent || p.tok.text != "where" {
		return false
	}
	off := p.off
	p.skipSpace()
	rule := strings.HasPrefix(string(p.src[p.off:min(p.off+3, len(p.src))]), ":=")
	p.off = off
	return !rule
}

// where = "where" [Ident ":"] expression ";"
//
// The expression is kept as text for package constraint to compile; the
// parser only finds where it ends: at the first ';' outside brackets,
// string literals and comments.
func (p *parser) where() *Where {
	w := &Where{Pos: p.pos(p.tok.off)}
	p.skipSpace()
	// An optional scope: a rule name followed by ':' (but not ':=' or '::').
	if p.off < len(p.src) && isIdentStart(p.src[p.off]) {
		end := p.off
		for end < len(p.src) && isIdentPart(p.src[end]) {
			end++
		}
		colon := end
		for colon < len(p.src) && (p.src[colon] == ' ' || p.src[colon] == '\t') {
			colon++
		}
		if colon < len(p.src) && p.src[colon] == ':' && (colon+1 == len(p.src) || p.src[colon+1] != '=' && p.src[colon+1] != ':') {
			w.Scope, w.ScopePos = string(p.src[p.off:end]), p.pos(p.off)
			p.off = colon + 1
			p.skipSpace()
		}
	}
	start := p.off
	end, ok := p.scanWhereExpr()
	if !ok {
		p.next()
		return nil
	}
	w.Expr, w.ExprPos = strings.TrimSpace(string(p.src[start:end])), p.pos(start)
	if w.Expr == "" {
		p.errorf(start, "the constraint has no expression; write one before ';', as in where Range: Start.num <= End.num ;")
		p.next()
		return nil
	}
	if end-start > maxWhereSize {
		p.errorf(start, "the constraint is %d bytes long; the limit is %d", end-start, maxWhereSize)
		p.next()
		return nil
	}
	p.next()
	return w
}

// scanWhereExpr advances p.off past the ';' that ends a constraint's
// expression and returns the offset of that ';'. Brackets are counted and
// string literals ("...", '...', `...`) and comments skipped, so that a
// ';' inside them (expr-lang's let x = ...; y) does not end the clause.
func (p *parser) scanWhereExpr() (int, bool) {
	start, depth := p.off, 0
	for p.off < len(p.src) {
		c := p.src[p.off]
		switch {
		case c == ';' && depth <= 0:
			end := p.off
			p.off++
			return end, true
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == '"' || c == '\'' || c == '`':
			q, at := c, p.off
			for p.off++; p.off < len(p.src) && p.src[p.off] != q; p.off++ {
				if p.src[p.off] == '\\' && q != '`' {
					p.off++
				}
			}
			if p.off >= len(p.src) {
				p.errorf(at, "string in constraint is not closed: add a closing %c", q)
				return 0, false
			}
		case c == '/' && p.off+1 < len(p.src) && (p.src[p.off+1] == '/' || p.src[p.off+1] == '*'):
			p.skipSpace()
			continue
		}
		p.off++
	}
	p.errorf(start, "the constraint is not finished: end it with ';'")
	return 0, false
}

// rule = Ident ":=" alt ";"
func (p *parser) rule() *Rule {
	if p.tok.kind != tIdent {
		p.errorf(p.tok.off, "expected a rule name at the start of a rule, found %s", describe(p.tok))
		return nil
	}
	r := &Rule{Name: p.tok.text, Pos: p.pos(p.tok.off)}
	p.next()
	if p.tok.kind != tDefine {
		p.errorf(p.tok.off, "expected ':=' after rule name %s, found %s", r.Name, describe(p.tok))
		return nil
	}
	p.next()
	nerr := len(p.errs)
	r.Body = p.alt()
	if len(p.errs) > nerr {
		return nil
	}
	if p.tok.kind != tSemi {
		p.errorf(p.tok.off, "expected ';' to end rule %s, found %s", r.Name, describe(p.tok))
		return nil
	}
	p.next()
	return r
}

// alt = seq ("|" seq)*
func (p *parser) alt() Expr {
	at := p.tok.off
	first := p.seq()
	if p.tok.kind != tBar {
		return first
	}
	a := &Alt{At: p.pos(at), Alts: []Expr{first}}
	for p.tok.kind == tBar && !p.bail {
		p.next()
		a.Alts = append(a.Alts, p.seq())
	}
	return a
}

// seq = repeat* ; an empty sequence stands for the empty string.
func (p *parser) seq() Expr {
	s := &Seq{At: p.pos(p.tok.off)}
loop:
	for !p.bail {
		switch p.tok.kind {
		case tIdent, tString, tRegex, tLParen:
			s.Items = append(s.Items, p.repeat())
		case tQuest, tStar, tPlus, tLBrace:
			p.errorf(p.tok.off, "%s has nothing to repeat: put it after a symbol or a (group)", describe(p.tok))
			p.next()
		case tIllegal:
			p.errorf(p.tok.off, "%s; literals are written \"...\" and regular expressions /.../", describe(p.tok))
			p.next()
		case tNumber:
			p.errorf(p.tok.off, "unexpected %s; a number may only appear in a repetition such as {2,5}", describe(p.tok))
			p.next()
		default:
			break loop
		}
	}
	if len(s.Items) == 1 {
		return s.Items[0]
	}
	return s
}

// repeat = primary ("?" | "*" | "+" | "{" m? ("," n?)? "}")*
func (p *parser) repeat() Expr {
	x := p.primary()
	for !p.bail {
		at := p.tok.off
		min, max := 0, 0
		switch p.tok.kind {
		case tQuest:
			min, max = 0, 1
			p.next()
		case tStar:
			min, max = 0, Unbounded
			p.next()
		case tPlus:
			min, max = 1, Unbounded
			p.next()
		case tLBrace:
			var ok bool
			min, max, ok = p.braces()
			if !ok {
				return x
			}
		default:
			return x
		}
		x = &Repeat{At: p.pos(at), X: x, Min: min, Max: max}
	}
	return x
}

// braces parses {m} {m,} {,n} {m,n}.
func (p *parser) braces() (min, max int, ok bool) {
	at := p.tok.off
	p.next()
	num := func() (int, bool) {
		if p.tok.kind != tNumber {
			return 0, false
		}
		v, err := strconv.Atoi(p.tok.text)
		if err != nil || v > maxRepeat {
			p.errorf(p.tok.off, "repetition count %s is too large (at most %d)", p.tok.text, maxRepeat)
			v = maxRepeat
		}
		p.next()
		return v, true
	}
	m, hasM := num()
	max = m
	if p.tok.kind == tComma {
		p.next()
		n, hasN := num()
		if hasN {
			max = n
		} else {
			max = Unbounded
		}
		if !hasM && !hasN {
			p.errorf(at, "repetition {,} needs a bound, as in {2,} or {,5}")
			return 0, 0, false
		}
	} else if !hasM {
		p.errorf(p.tok.off, "expected a number in repetition {m,n}, found %s", describe(p.tok))
		return 0, 0, false
	}
	if p.tok.kind != tRBrace {
		p.errorf(p.tok.off, "expected '}' to close the repetition, found %s", describe(p.tok))
		return 0, 0, false
	}
	p.next()
	if max != Unbounded && m > max {
		p.errorf(at, "repetition {%d,%d} has its minimum above its maximum", m, max)
		return 0, 0, false
	}
	if max == 0 {
		p.errorf(at, "repetition with a maximum of 0 can never match anything; remove it")
		return 0, 0, false
	}
	return m, max, true
}

// primary = Ident | String | Regex | "(" alt ")"
func (p *parser) primary() Expr {
	t := p.tok
	switch t.kind {
	case tIdent:
		p.next()
		if p.tok.kind == tDefine {
			p.errorf(t.off, "rule %s starts here, but the rule before it has no ';'", t.text)
		}
		return &Ref{At: p.pos(t.off), Name: t.text}
	case tString:
		p.next()
		return &Lit{At: p.pos(t.off), Text: t.text}
	case tRegex:
		p.next()
		p.checkRegex(t)
		return &Regex{At: p.pos(t.off), Src: t.text}
	case tLParen:
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxNesting {
			p.errorf(t.off, "groups are nested more than %d deep", maxNesting)
			p.bail = true
			return &Seq{At: p.pos(t.off)}
		}
		p.next()
		x := p.alt()
		p.expect(tRParen, "to close the group opened at "+p.pos(t.off).String())
		return x
	}
	p.errorf(t.off, "expected a symbol, literal, regular expression or (group), found %s", describe(t))
	return &Seq{At: p.pos(t.off)}
}

func (p *parser) checkRegex(t token) {
	if len(t.text) > maxRegexSize {
		p.errorf(t.off, "regular expression is longer than %d bytes", maxRegexSize)
		return
	}
	if _, err := syntax.Parse(t.text, syntax.Perl); err != nil {
		msg := err.Error()
		if e, ok := err.(*syntax.Error); ok {
			msg = fmt.Sprintf("%s in %q", e.Code, e.Expr)
		}
		p.errorf(t.off, "bad regular expression /%s/: %s", t.text, msg)
	}
}
