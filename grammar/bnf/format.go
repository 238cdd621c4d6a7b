package bnf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"

	"github.com/arbor-fuzz/arbor/grammar"
)

// maxClass is the most characters a character class is listed with.
const maxClass = 128

// FormatJSON writes an arbor grammar in fuzzingbook's JSON form. That
// form has only alternatives of sequences of text and nonterminals, so
// groups, repetitions and regular expressions become nonterminals of
// their own, named after their rule (Members_1, Members_2, ...): X* is
// <X_1> with the expansions "" and "<X><X_1>". A character class is
// listed by its members, but a class of more than 128 characters (such
// as [^"]) only by its printable ASCII members, tab, newline and return,
// with a warning: the JSON grammar then describes fewer inputs. A < in
// text that could read as the start of a nonterminal is written as a
// nonterminal <lt> of its own. Assertions (\b, ^, $) have no equivalent and are dropped with
// a warning.
func FormatJSON(g *grammar.Grammar) ([]byte, []grammar.Warning) {
	f := &jsonFormatter{taken: map[string]bool{}, counter: map[string]int{}}
	for _, r := range g.Rules {
		f.taken[r.Name] = true
	}
	for i, r := range g.Rules {
		if r.Name == "start" && i > 0 {
			f.at = r.Pos
			f.warnf("rule start is not the first rule, but will be read back as the start symbol")
		}
		f.rule = r.Name
		at := len(f.rules)
		f.add("<"+r.Name+">", nil) // the rule before the nonterminals made for its parts
		f.rules[at].alts = f.alternatives(r.Body)
	}
	if f.ltName != "" {
		f.add(f.ltName, []string{"<"})
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, r := range f.rules {
		key := marshal(r.name)
		b.WriteString("  ")
		b.Write(key)
		b.WriteString(": [")
		for j, x := range r.alts {
			if j > 0 {
				b.WriteString(", ")
			}
			b.Write(marshal(x))
		}
		b.WriteString("]")
		if i < len(f.rules)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes(), f.warnings
}

// marshal writes a JSON string without escaping <, > and &, which a
// grammar is full of.
func marshal(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

type bnfRule struct {
	name string
	alts []string
}

type jsonFormatter struct {
	rules    []bnfRule
	taken    map[string]bool
	counter  map[string]int
	rule     string // the arbor rule being written
	ltName   string // the nonterminal that stands for a < in text
	warnings []grammar.Warning
	at       grammar.Position
}

func (f *jsonFormatter) add(name string, alts []string) {
	f.rules = append(f.rules, bnfRule{name, alts})
}

func (f *jsonFormatter) warnf(format string, args ...any) {
	f.warnings = append(f.warnings, grammar.Warning{Pos: f.at, Msg: fmt.Sprintf(format, args...)})
}

// fresh returns a new nonterminal named after the rule being written.
func (f *jsonFormatter) fresh() string {
	for {
		f.counter[f.rule]++
		name := f.rule + "_" + strconv.Itoa(f.counter[f.rule])
		if !f.taken[name] {
			f.taken[name] = true
			return "<" + name + ">"
		}
	}
}

// alternatives returns the expansions of an expression.
func (f *jsonFormatter) alternatives(e grammar.Expr) []string {
	if a, ok := e.(*grammar.Alt); ok {
		var out []string
		for _, x := range a.Alts {
			out = append(out, f.sequence(x))
		}
		return out
	}
	if r, ok := e.(*grammar.Regex); ok {
		f.at = r.At
		if parsed, err := syntax.Parse(r.Src, syntax.Perl); err == nil {
			return f.regexAlternatives(parsed.Simplify())
		}
	}
	return []string{f.sequence(e)}
}

// sequence returns one expansion.
func (f *jsonFormatter) sequence(e grammar.Expr) string {
	switch e := e.(type) {
	case *grammar.Seq:
		s := ""
		for _, x := range e.Items {
			s += f.symbol(x)
		}
		return s
	}
	return f.symbol(e)
}

// symbol returns the text of an expansion that stands for e: literal
// text, a nonterminal, or a new nonterminal for a group.
func (f *jsonFormatter) symbol(e grammar.Expr) string {
	switch e := e.(type) {
	case *grammar.Lit:
		return f.text(e.Text)
	case *grammar.Ref:
		return "<" + e.Name + ">"
	case *grammar.Seq:
		return f.sequence(e)
	case *grammar.Repeat:
		x := f.symbol(e.X)
		return f.repeat(x, e.Min, e.Max)
	}
	name := f.fresh()
	f.add(name, f.alternatives(e))
	return name
}

// repeat returns a nonterminal for x{min,max}.
func (f *jsonFormatter) repeat(x string, min, max int) string {
	name := f.fresh()
	switch {
	case max == grammar.Unbounded:
		// x{min,} is min copies of x, then x*.
		star := name
		if min > 0 {
			star = f.fresh()
		}
		f.add(star, []string{"", x + star})
		if min > 0 {
			f.add(name, []string{strings.Repeat(x, min) + star})
		}
	default:
		// x{min,max} as min copies, then up to max-min more, nested.
		opt := ""
		for i := min; i < max; i++ {
			o := f.fresh()
			f.add(o, []string{"", x + opt})
			opt = o
		}
		f.add(name, []string{strings.Repeat(x, min) + opt})
	}
	return name
}

// text writes literal text so that it does not read as a nonterminal,
// also where it meets the text of the next symbol: every < that is not
// followed by a space or another < in the same text becomes the
// nonterminal <lt>.
func (f *jsonFormatter) text(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && (i+1 == len(s) || s[i+1] != ' ' && s[i+1] != '<') {
			if f.ltName == "" {
				f.ltName = f.freshGlobal("lt")
			}
			b.WriteString(f.ltName)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (f *jsonFormatter) freshGlobal(base string) string {
	name := base
	for i := 2; f.taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	f.taken[name] = true
	return "<" + name + ">"
}

func (f *jsonFormatter) regexAlternatives(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			out = append(out, f.regexSymbol(s))
		}
		return out
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return f.class(re)
	}
	return []string{f.regexSymbol(re)}
}

func (f *jsonFormatter) regexSymbol(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpNoMatch:
		f.warnf("a regular expression that matches nothing has no JSON form; it is dropped")
		return ""
	case syntax.OpEmptyMatch:
		return ""
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			s := ""
			for _, c := range re.Rune {
				s += f.regexSymbol(&syntax.Regexp{Op: syntax.OpCharClass, Rune: foldClass(c)})
			}
			return s
		}
		return f.text(string(re.Rune))
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		alts := f.class(re)
		if len(alts) == 1 {
			return alts[0]
		}
		name := f.fresh()
		f.add(name, alts)
		return name
	case syntax.OpCapture:
		return f.regexSymbol(re.Sub[0])
	case syntax.OpConcat:
		s := ""
		for _, x := range re.Sub {
			s += f.regexSymbol(x)
		}
		return s
	case syntax.OpAlternate:
		name := f.fresh()
		f.add(name, f.regexAlternatives(re))
		return name
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		x := f.regexSymbol(re.Sub[0])
		switch re.Op {
		case syntax.OpStar:
			return f.repeat(x, 0, grammar.Unbounded)
		case syntax.OpPlus:
			return f.repeat(x, 1, grammar.Unbounded)
		case syntax.OpQuest:
			return f.repeat(x, 0, 1)
		}
		max := re.Max
		if max < 0 {
			max = grammar.Unbounded
		}
		return f.repeat(x, re.Min, max)
	}
	f.warnf("assertion %v dropped: the JSON form has none", re)
	return ""
}

func foldClass(c rune) []rune {
	r := []rune{c, c}
	for x := unicode.SimpleFold(c); x != c; x = unicode.SimpleFold(x) {
		r = append(r, x, x)
	}
	return r
}

// class lists the characters of a class as expansions.
func (f *jsonFormatter) class(re *syntax.Regexp) []string {
	ranges := re.Rune
	switch re.Op {
	case syntax.OpAnyChar:
		ranges = []rune{0, unicode.MaxRune}
	case syntax.OpAnyCharNotNL:
		ranges = []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	}
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
	}
	in := func(c rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= c && c <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	var out []string
	if n <= maxClass {
		for i := 0; i+1 < len(ranges); i += 2 {
			for c := ranges[i]; c <= ranges[i+1]; c++ {
				out = append(out, f.text(string(c)))
			}
		}
		return out
	}
	for _, c := range "\t\n\r" {
		if in(c) {
			out = append(out, string(c))
		}
	}
	for c := rune(0x20); c < 0x7f; c++ {
		if in(c) {
			out = append(out, f.text(string(c)))
		}
	}
	if len(out) == 0 {
		// No ASCII members: a few characters spread over the class.
		for i := 0; i+1 < len(ranges) && len(out) < 16; i += 2 {
			out = append(out, string(ranges[i]))
		}
	}
	f.warnf("class %v of %d characters listed by %d of them", re, n, len(out))
	return out
}
