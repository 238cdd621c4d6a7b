package antlr

import (
	"fmt"
	"path/filepath"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Format writes an arbor grammar as an ANTLR 4 lexer grammar. Every rule
// becomes a lexer rule, the start rule the one token and the others
// fragments, so that ANTLR reads the input character by character as
// arbor does, without a lexer's longest match between tokens in the way.
// ANTLR wants lexer rule names to start with an upper-case letter and to
// hold only letters, digits and _: other names are changed, with a
// warning. Regular expressions become ANTLR's sets, literals and loops;
// what ANTLR has no notation for (\b, ^, left recursion in a lexer rule)
// is reported in the warnings.
func Format(g *grammar.Grammar) ([]byte, []grammar.Warning) {
	f := &formatter{names: map[string]string{}, taken: map[string]bool{}}
	for _, r := range g.Rules {
		f.taken[r.Name] = true
	}
	for _, r := range g.Rules {
		name := lexerName(r.Name)
		if name != r.Name {
			for base, i := name, 2; f.taken[name] && f.names[r.Name] == ""; i++ {
				name = base + strconv.Itoa(i)
			}
			f.warnf(r.Pos, "rule %s is named %s: ANTLR lexer rule names start with an upper-case letter and hold only letters, digits and _", r.Name, name)
			f.taken[name] = true
		}
		f.names[r.Name] = name
	}
	name := "Arbor"
	if g.Filename != "" {
		base := filepath.Base(g.Filename)
		name = lexerName(strings.TrimSuffix(base, filepath.Ext(base)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Converted by arbor: every rule is a lexer rule, the first one the only\n")
	fmt.Fprintf(&b, "// token, so that ANTLR reads the input character by character.\n")
	fmt.Fprintf(&b, "lexer grammar %s;\n\n", name)
	if built, err := grammar.Build(g); err == nil {
		for _, r := range built.Stats().LeftRec {
			f.warnf(g.Rules[indexOf(g, r)].Pos, "rule %s is left-recursive, which ANTLR does not allow in lexer rules", r)
		}
	}
	for i, r := range g.Rules {
		if i > 0 {
			b.WriteString("fragment ")
		}
		b.WriteString(f.names[r.Name])
		b.WriteString(" : ")
		f.expr(&b, r.Body, precAlt)
		b.WriteString(" ;\n")
	}
	return []byte(b.String()), f.warnings
}

func indexOf(g *grammar.Grammar, name string) int {
	for i, r := range g.Rules {
		if r.Name == name {
			return i
		}
	}
	return 0
}

// lexerName makes a name ANTLR takes for a lexer rule.
func lexerName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '_' || c < 128 && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	switch {
	case out == "":
		return "R"
	case out[0] >= 'a' && out[0] <= 'z':
		return strings.ToUpper(out[:1]) + out[1:]
	case out[0] < 'A' || out[0] > 'Z':
		return "R" + out
	}
	return out
}

type formatter struct {
	names    map[string]string
	taken    map[string]bool
	warnings []grammar.Warning
	at       grammar.Position
}

func (f *formatter) warnf(pos grammar.Position, format string, args ...any) {
	f.warnings = append(f.warnings, grammar.Warning{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (f *formatter) expr(b *strings.Builder, e grammar.Expr, prec int) {
	switch e := e.(type) {
	case *grammar.Alt:
		joined(b, e.Alts, " | ", prec > precAlt, func(a grammar.Expr) { f.expr(b, a, precCat) })
	case *grammar.Seq:
		if len(e.Items) == 0 {
			if prec > precCat {
				b.WriteString("( )")
			}
			return
		}
		joined(b, e.Items, " ", prec > precCat && len(e.Items) > 1, func(x grammar.Expr) { f.expr(b, x, precAtom) })
	case *grammar.Repeat:
		f.repeat(b, func(prec int) { f.expr(b, e.X, prec) }, e.Min, e.Max, true, prec)
	case *grammar.Ref:
		b.WriteString(f.names[e.Name])
	case *grammar.Lit:
		if e.Text == "" {
			if prec > precCat {
				b.WriteString("( )")
			}
			return
		}
		b.WriteString(quoteLit(e.Text))
	case *grammar.Regex:
		f.at = e.At
		parsed, err := syntax.Parse(e.Src, syntax.Perl)
		if err != nil {
			f.warnf(e.At, "regular expression /%s/ does not parse: %v", e.Src, err)
			return
		}
		f.regex(b, parsed.Simplify(), prec)
	}
}

// joined writes items with sep between them, in parentheses if paren.
func joined[T any](b *strings.Builder, items []T, sep string, paren bool, write func(T)) {
	if paren {
		b.WriteString("( ")
	}
	for i, x := range items {
		if i > 0 {
			b.WriteString(sep)
		}
		write(x)
	}
	if paren {
		b.WriteString(" )")
	}
}

// repeat writes X{min,max} with ANTLR's ?, * and +, unrolling counts.
func (f *formatter) repeat(b *strings.Builder, x func(prec int), min, max int, greedy bool, prec int) {
	ng := ""
	if !greedy {
		ng = "?"
	}
	suffix := ""
	switch {
	case min == 0 && max == 1:
		suffix = "?"
	case min == 0 && max == grammar.Unbounded:
		suffix = "*"
	case min == 1 && max == grammar.Unbounded:
		suffix = "+"
	}
	if suffix != "" {
		// A repetition of a repetition needs parentheses: X+* is not ANTLR.
		if prec > precAtom {
			b.WriteString("( ")
		}
		x(precAtom + 1)
		b.WriteString(suffix + ng)
		if prec > precAtom {
			b.WriteString(" )")
		}
		return
	}
	// X{m,n} is m copies of X, then X?  nested n-m deep (or X*).
	if prec > precCat {
		b.WriteString("( ")
	}
	for i := 0; i < min; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		x(precAtom + 1)
	}
	if max == grammar.Unbounded {
		if min > 0 {
			b.WriteByte(' ')
		}
		x(precAtom + 1)
		b.WriteString("*" + ng)
	} else if max > min {
		if min > 0 {
			b.WriteByte(' ')
		}
		for i := min; i < max; i++ {
			if i > min {
				b.WriteString(" ")
			}
			b.WriteString("( ")
			x(precAtom + 1)
		}
		for i := min; i < max; i++ {
			b.WriteString(" )?" + ng)
		}
	}
	if prec > precCat {
		b.WriteString(" )")
	}
}

func (f *formatter) regex(b *strings.Builder, re *syntax.Regexp, prec int) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString("~[\\u0000-\\u{10FFFF}]")
	case syntax.OpEmptyMatch:
		if prec > precCat {
			b.WriteString("( )")
		}
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			joined(b, re.Rune, " ", prec > precCat && len(re.Rune) > 1, func(c rune) { b.WriteString(setText(normalize([]rune{c, c}).fold())) })
			return
		}
		b.WriteString(quoteLit(string(re.Rune)))
	case syntax.OpCharClass:
		b.WriteString(setText(normalize(re.Rune)))
	case syntax.OpAnyCharNotNL:
		b.WriteString("~[\\n]")
	case syntax.OpAnyChar:
		b.WriteString(".")
	case syntax.OpBeginLine, syntax.OpBeginText:
		f.warnf(f.at, "^ dropped: ANTLR has no start-of-line or start-of-text assertion")
	case syntax.OpEndLine:
		f.warnf(f.at, "$ in multi-line mode dropped: ANTLR has no end-of-line assertion")
	case syntax.OpEndText:
		b.WriteString("EOF")
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		f.warnf(f.at, "\\b and \\B dropped: ANTLR has no word-boundary assertion")
	case syntax.OpCapture:
		f.regex(b, re.Sub[0], prec)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		min, max := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			min, max = 0, grammar.Unbounded
		case syntax.OpPlus:
			min, max = 1, grammar.Unbounded
		case syntax.OpQuest:
			min, max = 0, 1
		}
		if max < 0 {
			max = grammar.Unbounded
		}
		f.repeat(b, func(prec int) { f.regex(b, re.Sub[0], prec) }, min, max, re.Flags&syntax.NonGreedy == 0, prec)
	case syntax.OpConcat:
		joined(b, re.Sub, " ", prec > precCat, func(s *syntax.Regexp) { f.regex(b, s, precAtom) })
	case syntax.OpAlternate:
		joined(b, re.Sub, " | ", prec > precAlt, func(s *syntax.Regexp) { f.regex(b, s, precCat) })
	}
}

// quoteLit writes an ANTLR literal.
func quoteLit(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, c := range s {
		switch c {
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(escapeRune(c))
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func escapeRune(c rune) string {
	switch c {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	}
	switch {
	case c < 0x20 || c == 0x7f || c >= 0x80 && !unicode.IsPrint(c):
		if c > 0xffff {
			return fmt.Sprintf(`\u{%X}`, c)
		}
		return fmt.Sprintf(`\u%04X`, c)
	}
	return string(c)
}

// setText writes a character set as [..] or, when that is shorter, as
// the negation ~[..] of its complement.
func setText(s runeSet) string {
	if c := s.complement(); len(c) < len(s) || s.has(unicode.MaxRune) && len(c) > 0 {
		return "~" + setBody(c)
	}
	if len(s) == 0 {
		return "~[\\u0000-\\u{10FFFF}]"
	}
	return setBody(s)
}

func setBody(s runeSet) string {
	var b strings.Builder
	b.WriteByte('[')
	esc := func(c rune) string {
		switch c {
		case ']', '\\', '-', '[':
			return `\` + string(c)
		}
		return escapeRune(c)
	}
	for i := 0; i+1 < len(s); i += 2 {
		b.WriteString(esc(s[i]))
		if s[i+1] != s[i] {
			if s[i+1] > s[i]+1 {
				b.WriteByte('-')
			}
			b.WriteString(esc(s[i+1]))
		}
	}
	b.WriteByte(']')
	return b.String()
}
