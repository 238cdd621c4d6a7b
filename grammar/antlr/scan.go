package antlr

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Limits that keep a hostile grammar file from exhausting memory or stack.
const (
	maxNesting = 200 // deepest nesting of blocks and ~ operators
	maxErrors  = 10  // errors reported before the parser gives up
)

type tokKind int

const (
	tEOF        tokKind = iota
	tTokenRef           // name starting with an upper-case letter
	tRuleRef            // name starting with a lower-case letter
	tString             // 'literal'; text holds the unescaped value
	tSet                // [a-z]: a character set in a lexer rule, an argument list elsewhere; text is raw
	tAction             // {...}; text is raw
	tColon              // :
	tColonColon         // ::
	tSemi               // ;
	tBar                // |
	tLParen             // (
	tRParen             // )
	tQuest              // ?
	tStar               // *
	tPlus               // +
	tPlusAssign         // +=
	tAssign             // =
	tTilde              // ~
	tDot                // .
	tRange              // ..
	tArrow              // ->
	tComma              // ,
	tPound              // #
	tLt                 // <
	tGt                 // >
	tAt                 // @
	tLBrace             // { of options and tokens blocks (scanned as tAction otherwise)
	tRBrace             // }
	tInt                // a number
	tIllegal
)

var tokNames = [...]string{
	tEOF: "end of file", tTokenRef: "token name", tRuleRef: "rule name", tString: "literal",
	tSet: "character set", tAction: "action", tColon: "':'", tColonColon: "'::'", tSemi: "';'",
	tBar: "'|'", tLParen: "'('", tRParen: "')'", tQuest: "'?'", tStar: "'*'", tPlus: "'+'",
	tPlusAssign: "'+='", tAssign: "'='", tTilde: "'~'", tDot: "'.'", tRange: "'..'",
	tArrow: "'->'", tComma: "','", tPound: "'#'", tLt: "'<'", tGt: "'>'", tAt: "'@'",
	tLBrace: "'{'", tRBrace: "'}'", tInt: "number", tIllegal: "illegal character",
}

type token struct {
	kind tokKind
	off  int
	end  int
	text string
}

// scanner splits a .g4 file into tokens. Braces are ambiguous in ANTLR's
// notation: they open actions in rules but blocks after options, tokens
// and channels. The parser tells the scanner which it expects (braceBlock).
type scanner struct {
	src        []byte
	off        int
	lines      *grammar.LineIndex
	errs       *errorList
	braceBlock bool // scan { as tLBrace instead of an action
}

func (s *scanner) errorf(off int, format string, args ...any) {
	s.errs.add(s.lines.Position(off), format, args...)
}

// next scans the next token. It is one switch over the token's first
// character, as a lexer's is: each case is a line or two, and split up
// the table of tokens would no longer read at a glance.
func (s *scanner) next() token {
	s.skipSpace()
	start := s.off
	if s.off >= len(s.src) {
		return token{kind: tEOF, off: start, end: start}
	}
	c := s.src[s.off]
	tok := func(k tokKind, n int) token {
		s.off += n
		return token{kind: k, off: start, end: s.off}
	}
	peek := func(i int) byte {
		if s.off+i < len(s.src) {
			return s.src[s.off+i]
		}
		return 0
	}
	switch {
	case c >= 'A' && c <= 'Z':
		return s.name(tTokenRef)
	case c >= 'a' && c <= 'z' || c == '_':
		return s.name(tRuleRef)
	case c >= '0' && c <= '9':
		for s.off < len(s.src) && s.src[s.off] >= '0' && s.src[s.off] <= '9' {
			s.off++
		}
		return token{kind: tInt, off: start, end: s.off, text: string(s.src[start:s.off])}
	case c == '\'':
		text := s.literal()
		return token{kind: tString, off: start, end: s.off, text: text}
	case c == '[':
		text := s.bracket()
		return token{kind: tSet, off: start, end: s.off, text: text}
	case c == '{':
		if s.braceBlock {
			return tok(tLBrace, 1)
		}
		text := s.action()
		return token{kind: tAction, off: start, end: s.off, text: text}
	case c == '}':
		return tok(tRBrace, 1)
	case c == ':':
		if peek(1) == ':' {
			return tok(tColonColon, 2)
		}
		return tok(tColon, 1)
	case c == ';':
		return tok(tSemi, 1)
	case c == '|':
		return tok(tBar, 1)
	case c == '(':
		return tok(tLParen, 1)
	case c == ')':
		return tok(tRParen, 1)
	case c == '?':
		return tok(tQuest, 1)
	case c == '*':
		return tok(tStar, 1)
	case c == '+':
		if peek(1) == '=' {
			return tok(tPlusAssign, 2)
		}
		return tok(tPlus, 1)
	case c == '=':
		return tok(tAssign, 1)
	case c == '~':
		return tok(tTilde, 1)
	case c == '.':
		if peek(1) == '.' {
			return tok(tRange, 2)
		}
		return tok(tDot, 1)
	case c == '-':
		if peek(1) == '>' {
			return tok(tArrow, 2)
		}
	case c == ',':
		return tok(tComma, 1)
	case c == '#':
		return tok(tPound, 1)
	case c == '<':
		return tok(tLt, 1)
	case c == '>':
		return tok(tGt, 1)
	case c == '@':
		return tok(tAt, 1)
	}
	r, n := utf8.DecodeRune(s.src[s.off:])
	s.off += n
	return token{kind: tIllegal, off: start, end: s.off, text: string(r)}
}

func (s *scanner) name(k tokKind) token {
	start := s.off
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			s.off++
			continue
		}
		break
	}
	return token{kind: k, off: start, end: s.off, text: string(s.src[start:s.off])}
}

func (s *scanner) skipSpace() {
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			s.off++
		case c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '/':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.off++
			}
		case c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '*':
			end := strings.Index(string(s.src[s.off+2:]), "*/")
			if end < 0 {
				s.errorf(s.off, "comment is not closed: add */")
				s.off = len(s.src)
				return
			}
			s.off += 2 + end + 2
		default:
			return
		}
	}
}

// literal scans a quoted literal and returns its value with ANTLR's
// escapes (\n \r \t \b \f \\ \' \uXXXX \u{X...}) resolved.
func (s *scanner) literal() string {
	start := s.off
	s.off++
	var b strings.Builder
	for {
		if s.off >= len(s.src) || s.src[s.off] == '\n' || s.src[s.off] == '\r' {
			s.errorf(start, "literal is not closed: add a closing '")
			return b.String()
		}
		c := s.src[s.off]
		switch c {
		case '\'':
			s.off++
			return b.String()
		case '\\':
			r, ok := s.escape(false)
			if ok {
				b.WriteRune(r)
			}
		default:
			r, n := utf8.DecodeRune(s.src[s.off:])
			b.WriteRune(r)
			s.off += n
		}
	}
}

// escape scans an escape sequence at s.off (a backslash) and returns the
// character it stands for. In character sets, \] \- and \[ are escapes too.
func (s *scanner) escape(inSet bool) (rune, bool) {
	at := s.off
	s.off++
	if s.off >= len(s.src) {
		s.errorf(at, "escape sequence is not finished")
		return 0, false
	}
	c := s.src[s.off]
	s.off++
	switch c {
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case '\\', '\'', '"':
		return rune(c), true
	case 'u':
		if s.off < len(s.src) && s.src[s.off] == '{' {
			end := strings.IndexByte(string(s.src[s.off:min(len(s.src), s.off+10)]), '}')
			if end < 0 {
				s.errorf(at, `\u{...} needs a closing } after at most 6 hex digits`)
				return 0, false
			}
			v, err := strconv.ParseUint(string(s.src[s.off+1:s.off+end]), 16, 32)
			s.off += end + 1
			if err != nil || !utf8.ValidRune(rune(v)) {
				s.errorf(at, `\u{...} holds no valid Unicode character`)
				return 0, false
			}
			return rune(v), true
		}
		if s.off+4 > len(s.src) {
			s.errorf(at, `\u needs four hex digits, as in \u00e9`)
			s.off = len(s.src)
			return 0, false
		}
		v, err := strconv.ParseUint(string(s.src[s.off:s.off+4]), 16, 32)
		if err != nil {
			s.errorf(at, `\u needs four hex digits, as in \u00e9`)
			return 0, false
		}
		s.off += 4
		if !utf8.ValidRune(rune(v)) {
			// Surrogate halves: ANTLR accepts them, Go strings cannot hold them.
			s.errorf(at, `\u%04x is not a valid Unicode character (a surrogate half?)`, v)
			return 0, false
		}
		return rune(v), true
	}
	if inSet && (c == ']' || c == '-' || c == '[' || c == '^') {
		return rune(c), true
	}
	s.errorf(at, `unknown escape \%c`, c)
	return 0, false
}

// bracket scans [...] and returns its raw text without the brackets. A
// backslash escapes the next byte, so \] does not close the set.
func (s *scanner) bracket() string {
	start := s.off
	s.off++
	from := s.off
	for s.off < len(s.src) {
		switch s.src[s.off] {
		case '\\':
			s.off += 2
		case ']':
			text := string(s.src[from:s.off])
			s.off++
			return text
		default:
			s.off++
		}
	}
	s.errorf(start, "character set or argument list is not closed: add ]")
	s.off = len(s.src)
	return string(s.src[from:])
}

// action scans a {...} action, skipping nested braces, strings and
// comments of the target language, and returns the text inside.
func (s *scanner) action() string {
	start := s.off
	depth := 0
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case c == '{':
			depth++
			s.off++
		case c == '}':
			depth--
			s.off++
			if depth == 0 {
				return string(s.src[start+1 : s.off-1])
			}
		case c == '"' || c == '\'':
			s.off++
			for s.off < len(s.src) && s.src[s.off] != c && s.src[s.off] != '\n' {
				if s.src[s.off] == '\\' {
					s.off++
				}
				s.off++
			}
			s.off++
		case c == '/' && s.off+1 < len(s.src) && (s.src[s.off+1] == '/' || s.src[s.off+1] == '*'):
			s.skipSpace()
		default:
			s.off++
		}
	}
	s.errorf(start, "action is not closed: add }")
	s.off = len(s.src)
	return string(s.src[start+1:])
}

// errorList collects positioned errors, at most maxErrors of them.
type errorList struct {
	list grammar.ErrorList
	bail bool
}

func (l *errorList) add(pos grammar.Position, format string, args ...any) {
	if len(l.list) >= maxErrors {
		l.bail = true
		return
	}
	if n := len(l.list); n > 0 && l.list[n-1].Pos.Offset == pos.Offset && l.list[n-1].Pos.Filename == pos.Filename {
		return // one error per position: later ones are usually echoes
	}
	l.list = append(l.list, &grammar.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (l *errorList) err() error {
	if len(l.list) == 0 {
		return nil
	}
	sort.SliceStable(l.list, func(i, j int) bool {
		a, b := l.list[i].Pos, l.list[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	return l.list
}
