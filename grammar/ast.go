package grammar

import (
	"fmt"
	"strconv"
	"strings"
)

// Grammar is the syntax of a grammar file: its rules in textual order.
// The first rule's left side is the start symbol.
type Grammar struct {
	Filename string
	Rules    []*Rule
	Where    []*Where // constraints, in textual order
}

// Where is a constraint clause: where Scope: Expr ; or where Expr ;
// The grammar package keeps its expression as text; package constraint
// compiles and evaluates it. A clause without a scope holds for the
// whole input (its Scope is empty).
type Where struct {
	Pos      Position // position of the keyword where
	Scope    string   // the rule in each of whose occurrences Expr holds; "" for the input
	ScopePos Position
	Expr     string   // the expression's source text, without the closing ';'
	ExprPos  Position // position of the expression's first byte
}

// Rule is one production: Name := Body ;
type Rule struct {
	Name string
	Pos  Position // position of the name
	Body Expr
}

// Expr is a right-hand side expression: *Alt, *Seq, *Repeat, *Ref, *Lit or *Regex.
type Expr interface {
	Pos() Position
	expr()
}

// Alt is an alternation a | b | c.
type Alt struct {
	At   Position
	Alts []Expr
}

// Seq is a sequence a b c; an empty Seq matches the empty string.
type Seq struct {
	At    Position
	Items []Expr
}

// Repeat is X?, X*, X+ or X{m,n}. Max is Unbounded for no upper limit.
type Repeat struct {
	At       Position
	X        Expr
	Min, Max int
}

// Unbounded is the Max of a repetition with no upper limit.
const Unbounded = -1

// Ref is a use of a non-terminal.
type Ref struct {
	At   Position
	Name string
}

// Lit is a literal terminal; Text holds the unescaped bytes.
type Lit struct {
	At   Position
	Text string
}

// Regex is a regular-expression terminal in RE2 syntax.
type Regex struct {
	At  Position
	Src string
}

func (e *Alt) Pos() Position    { return e.At }
func (e *Seq) Pos() Position    { return e.At }
func (e *Repeat) Pos() Position { return e.At }
func (e *Ref) Pos() Position    { return e.At }
func (e *Lit) Pos() Position    { return e.At }
func (e *Regex) Pos() Position  { return e.At }

func (*Alt) expr()    {}
func (*Seq) expr()    {}
func (*Repeat) expr() {}
func (*Ref) expr()    {}
func (*Lit) expr()    {}
func (*Regex) expr()  {}

// Format writes the grammar in the native notation. Parsing the result
// yields a grammar with the same rules.
func Format(g *Grammar) string {
	var b strings.Builder
	for _, r := range g.Rules {
		fmt.Fprintf(&b, "%s := %s ;\n", r.Name, FormatExpr(r.Body))
	}
	for _, w := range g.Where {
		b.WriteString(FormatWhere(w))
		b.WriteByte('\n')
	}
	return b.String()
}

// FormatWhere writes one constraint clause in the native notation.
func FormatWhere(w *Where) string {
	end := " ;"
	if strings.Contains(w.Expr, "//") {
		end = "\n;" // a line comment would swallow the ';'
	}
	if w.Scope == "" {
		return "where " + w.Expr + end
	}
	return "where " + w.Scope + ": " + w.Expr + end
}

// FormatExpr writes one expression in the native notation.
func FormatExpr(e Expr) string {
	var b strings.Builder
	formatExpr(&b, e, precAlt)
	return b.String()
}

const (
	precAlt = iota
	precSeq
	precRepeat
)

func formatExpr(b *strings.Builder, e Expr, prec int) {
	switch e := e.(type) {
	case *Alt:
		if prec > precAlt {
			b.WriteByte('(')
		}
		for i, a := range e.Alts {
			if i > 0 {
				b.WriteString(" | ")
			}
			formatExpr(b, a, precSeq)
		}
		if prec > precAlt {
			b.WriteByte(')')
		}
	case *Seq:
		if len(e.Items) == 0 {
			b.WriteString(`""`)
			return
		}
		if prec > precSeq && len(e.Items) > 1 {
			b.WriteByte('(')
		}
		for i, x := range e.Items {
			if i > 0 {
				b.WriteByte(' ')
			}
			formatExpr(b, x, precRepeat)
		}
		if prec > precSeq && len(e.Items) > 1 {
			b.WriteByte(')')
		}
	case *Repeat:
		formatExpr(b, e.X, precRepeat+1)
		b.WriteString(QuantSuffix(e.Min, e.Max))
	case *Ref:
		b.WriteString(e.Name)
	case *Lit:
		b.WriteString(QuoteLit(e.Text))
	case *Regex:
		b.WriteString(QuoteRegex(e.Src))
	}
}

// QuantSuffix is the notation for a repetition: ?, *, +, {m}, {m,}, {,n} or {m,n}.
func QuantSuffix(min, max int) string {
	switch {
	case min == 0 && max == 1:
		return "?"
	case min == 0 && max == Unbounded:
		return "*"
	case min == 1 && max == Unbounded:
		return "+"
	case max == Unbounded:
		return fmt.Sprintf("{%d,}", min)
	case min == max:
		return fmt.Sprintf("{%d}", min)
	case min == 0:
		return fmt.Sprintf("{,%d}", max)
	}
	return fmt.Sprintf("{%d,%d}", min, max)
}

// QuoteLit writes a literal in the notation's double-quoted form.
func QuoteLit(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c >= 0x7f {
				b.WriteString(`\x`)
				b.WriteString(strconv.FormatUint(uint64(c)>>4, 16))
				b.WriteString(strconv.FormatUint(uint64(c)&15, 16))
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// QuoteRegex writes a regular expression in the notation's /.../ form.
func QuoteRegex(src string) string {
	var b strings.Builder
	b.WriteByte('/')
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\\' && i+1 < len(src) {
			b.WriteByte(c)
			b.WriteByte(src[i+1])
			i++
			continue
		}
		if c == '/' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('/')
	return b.String()
}
