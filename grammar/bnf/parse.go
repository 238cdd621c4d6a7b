package bnf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/arbor-fuzz/arbor/grammar"
)

// nonterminal is how fuzzingbook finds nonterminals in an expansion:
// angle brackets around anything but brackets and spaces.
var nonterminal = regexp.MustCompile(`<[^<> ]*>`)

// Limits that keep hostile input from exhausting memory.
const (
	maxNesting = 64 // deepest JSON nesting read
	maxErrors  = 10
)

// ParseJSON parses a grammar in fuzzingbook's JSON form: an object from
// nonterminals to lists of expansions,
//
//	{"<start>": ["<digit>", "<digit><start>"], "<digit>": ["0", "1"]}
//
// where, in an expansion, text in angle brackets without spaces is a
// nonterminal and everything else is literal text. An expansion may also
// be a list whose first item is the text (fuzzingbook's expansions with
// options); the options are ignored. The start symbol is <start> if the
// grammar has it, else the first key. Names are kept without their
// brackets, with characters the arbor notation does not take in names
// replaced by _. Filename is used in positions; the error, if any, is a
// grammar.ErrorList.
func ParseJSON(filename string, src []byte) (*grammar.Grammar, error) {
	p := &jsonParser{filename: filename, src: src, dec: json.NewDecoder(bytes.NewReader(src))}
	p.dec.UseNumber()
	p.lines = grammar.NewLineIndex(filename, src)
	g := p.grammar()
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Pos.Offset < p.errs[j].Pos.Offset })
		return nil, p.errs
	}
	return g, nil
}

type jsonParser struct {
	filename string
	src      []byte
	dec      *json.Decoder
	lines    *grammar.LineIndex
	errs     grammar.ErrorList
}

func (p *jsonParser) pos(off int) grammar.Position { return p.lines.Position(off) }

func (p *jsonParser) errorf(off int, format string, args ...any) {
	if len(p.errs) < maxErrors {
		p.errs = append(p.errs, &grammar.Error{Pos: p.pos(off), Msg: fmt.Sprintf(format, args...)})
	}
}

// tokenStart is the offset where the next JSON token starts.
func (p *jsonParser) tokenStart() int {
	off := int(p.dec.InputOffset())
	for off < len(p.src) && strings.IndexByte(" \t\r\n,:", p.src[off]) >= 0 {
		off++
	}
	return off
}

// token reads the next JSON token, reporting a syntax error at its place.
func (p *jsonParser) token() (json.Token, int, bool) {
	off := p.tokenStart()
	t, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			p.errorf(min(int(se.Offset), len(p.src)), "JSON: %v", se)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			p.errorf(len(p.src), "JSON ends too early")
		default:
			p.errorf(off, "JSON: %v", err)
		}
		return nil, off, false
	}
	return t, off, true
}

type expansion struct {
	text string
	off  int
}

type entry struct {
	key  string
	off  int
	alts []expansion
}

func (p *jsonParser) grammar() *grammar.Grammar {
	t, off, ok := p.token()
	if !ok {
		return nil
	}
	if d, isDelim := t.(json.Delim); !isDelim || d != '{' {
		p.errorf(off, "a grammar is a JSON object from nonterminals to lists of expansions, as in {\"<start>\": [\"<a> b\"]}")
		return nil
	}
	var entries []entry
	seen := map[string]int{}
	for p.dec.More() {
		t, off, ok := p.token()
		if !ok {
			return nil
		}
		key, _ := t.(string)
		if !isNonterminal(key) {
			p.errorf(off, "key %q is not a nonterminal: write it in angle brackets, as in \"<%s>\"", key, key)
		} else if first, dup := seen[key]; dup {
			p.errorf(off, "nonterminal %s is defined twice (first at %s)", key, p.pos(first))
		}
		seen[key] = off
		e := entry{key: key, off: off}
		if !p.expansions(&e) {
			return nil
		}
		entries = append(entries, e)
	}
	if _, _, ok := p.token(); !ok { // the closing }
		return nil
	}
	if off := p.tokenStart(); off < len(p.src) {
		p.errorf(off, "text after the grammar's JSON object")
	}
	if len(entries) == 0 {
		p.errorf(0, "the grammar has no nonterminals")
		return nil
	}
	if len(p.errs) > 0 {
		return nil
	}
	return p.build(entries)
}

// expansions reads the list of expansions of one nonterminal.
func (p *jsonParser) expansions(e *entry) bool {
	t, off, ok := p.token()
	if !ok {
		return false
	}
	if d, isDelim := t.(json.Delim); !isDelim || d != '[' {
		p.errorf(off, "the expansions of %s must be a list of strings", e.key)
		return p.skipValue(t)
	}
	for p.dec.More() {
		t, off, ok := p.token()
		if !ok {
			return false
		}
		switch v := t.(type) {
		case string:
			e.alts = append(e.alts, expansion{v, off})
		case json.Delim:
			if v != '[' {
				p.errorf(off, "an expansion of %s must be a string, or a list whose first item is the string", e.key)
				if !p.skipValue(t) {
					return false
				}
				continue
			}
			// ["text", {options}]: fuzzingbook's expansion with options.
			t, off2, ok := p.token()
			if !ok {
				return false
			}
			if d, isDelim := t.(json.Delim); isDelim && d == ']' {
				// [] closes the list at once: there is no text to take,
				// and nothing more of it to skip.
				p.errorf(off, "an expansion of %s is an empty list: write the expansion as a string (\"\" for the empty one), or a list whose first item is the string", e.key)
				continue
			}
			s, isString := t.(string)
			if !isString {
				p.errorf(off2, "an expansion of %s must be a string, or a list whose first item is the string", e.key)
				if !p.skipValue(t) {
					return false
				}
			} else {
				e.alts = append(e.alts, expansion{s, off2})
			}
			for p.dec.More() {
				t, _, ok := p.token()
				if !ok || !p.skipValue(t) {
					return false
				}
			}
			if _, _, ok := p.token(); !ok {
				return false
			}
		default:
			p.errorf(off, "an expansion of %s must be a string, not %v", e.key, v)
		}
	}
	_, _, ok = p.token()
	return ok
}

// skipValue skips the rest of a value whose first token was t.
func (p *jsonParser) skipValue(t json.Token) bool {
	d, ok := t.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return true
	}
	depth := 1
	for depth > 0 {
		t, _, ok := p.token()
		if !ok {
			return false
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
				if depth > maxNesting {
					p.errorf(int(p.dec.InputOffset()), "JSON is nested more than %d deep", maxNesting)
					return false
				}
			} else {
				depth--
			}
		}
	}
	return true
}

func isNonterminal(s string) bool {
	return nonterminal.FindString(s) == s && s != ""
}

// build makes the arbor grammar: one rule per nonterminal, the start
// symbol first.
func (p *jsonParser) build(entries []entry) *grammar.Grammar {
	names := newNamer()
	for _, e := range entries {
		names.add(e.key)
	}
	start := 0
	for i, e := range entries {
		if e.key == "<start>" {
			start = i
		}
	}
	if start > 0 {
		s := entries[start]
		copy(entries[1:start+1], entries[:start])
		entries[0] = s
	}
	g := &grammar.Grammar{Filename: p.filename}
	for _, e := range entries {
		r := &grammar.Rule{Name: names.of[e.key], Pos: p.pos(e.off)}
		alt := &grammar.Alt{At: r.Pos}
		for _, x := range e.alts {
			alt.Alts = append(alt.Alts, p.sequence(x, names))
		}
		switch len(alt.Alts) {
		case 0:
			p.errorf(e.off, "nonterminal %s has no expansions", e.key)
			r.Body = &grammar.Seq{At: r.Pos}
		case 1:
			r.Body = alt.Alts[0]
		default:
			r.Body = alt
		}
		g.Rules = append(g.Rules, r)
	}
	if len(p.errs) > 0 {
		return nil
	}
	return g
}

// sequence splits an expansion into literal text and nonterminals.
func (p *jsonParser) sequence(x expansion, names *namer) grammar.Expr {
	at := p.pos(x.off)
	seq := &grammar.Seq{At: at}
	rest := x.text
	for rest != "" {
		loc := nonterminal.FindStringIndex(rest)
		if loc == nil {
			seq.Items = append(seq.Items, &grammar.Lit{At: at, Text: rest})
			break
		}
		if loc[0] > 0 {
			seq.Items = append(seq.Items, &grammar.Lit{At: at, Text: rest[:loc[0]]})
		}
		sym := rest[loc[0]:loc[1]]
		name, ok := names.of[sym]
		if !ok {
			p.errorf(x.off, "%s is used but not defined (text of the form <name> is always a nonterminal)", sym)
		}
		seq.Items = append(seq.Items, &grammar.Ref{At: at, Name: name})
		rest = rest[loc[1]:]
	}
	if len(seq.Items) == 1 {
		return seq.Items[0]
	}
	return seq
}

// namer gives every nonterminal an arbor rule name: its text without the
// brackets, with characters the notation does not take replaced by _.
type namer struct {
	of    map[string]string
	taken map[string]bool
}

func newNamer() *namer { return &namer{of: map[string]string{}, taken: map[string]bool{}} }

func (n *namer) add(sym string) {
	if _, ok := n.of[sym]; ok {
		return
	}
	base := ruleName(strings.TrimSuffix(strings.TrimPrefix(sym, "<"), ">"))
	name := base
	for i := 2; n.taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	n.taken[name] = true
	n.of[sym] = name
}

// ruleName makes s a name of the arbor notation: [A-Za-z_'][A-Za-z0-9_'$]*.
func ruleName(s string) string {
	var b strings.Builder
	for i, c := range s {
		ok := c == '_' || c == '\'' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c == '$' || c >= '0' && c <= '9')
		if !ok && i == 0 && c >= '0' && c <= '9' {
			b.WriteByte('_')
			ok = true
		}
		if ok {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}
