package features

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Pattern renders a k-path as grammar text a person can read
// (docs/algorithms.md): each element is substituted into the production alternative it
// occurs in, from the last element up to the first, which is shown in the
// alternative of its own rule; node ids and literal quotes are dropped,
// and of an alternation on the path only the branch taken is kept. For the
// expr grammar, UnaryExpr_15→AddExpr_36→"-"_11 reads
//
//	MultExpr (* | / | %) ( AddExpr - MultExpr )
func Pattern(g *grammar.Graph, p Path) string {
	if len(p) == 0 {
		return ""
	}
	nodes := make([]*grammar.Node, len(p))
	for i, id := range p {
		if nodes[i] = g.Node(id); nodes[i] == nil {
			return "?" + strconv.Itoa(id)
		}
	}
	last := nodes[len(nodes)-1]
	text := symbolText(last)
	for i := len(nodes) - 2; i >= 0; i-- {
		if nodes[i].Kind != grammar.KindRef {
			return p.Format(g) // not a path of g: show it as ids
		}
		text = substitute(nodes[i].Children[0], nodes[i+1], text)
	}
	if body := g.Bodies[nodes[0].Rule]; body != nil {
		text = substitute(body, nodes[0], text)
	}
	return text
}

// substitute renders the right-hand side rooted at body with focus (a
// symbolic node inside it) replaced by hole; alternations that contain the
// focus show only the branch that leads to it.
func substitute(body, focus *grammar.Node, hole string) string {
	onPath := map[*grammar.Node]bool{}
	for n := focus; n != nil; n = n.Parent {
		onPath[n] = true
	}
	if !onPath[body] {
		return hole // focus is not in this body: not a path of the graph
	}
	var b strings.Builder
	var render func(n *grammar.Node, top bool)
	render = func(n *grammar.Node, top bool) {
		if n == focus {
			b.WriteString(hole)
			return
		}
		switch n.Kind {
		case grammar.KindRef, grammar.KindLit, grammar.KindRegex:
			b.WriteString(symbolText(n))
		case grammar.KindAlt:
			if onPath[n] {
				for _, c := range n.Children {
					if onPath[c] {
						render(c, top)
					}
				}
				return
			}
			if !top {
				b.WriteByte('(')
			}
			for i, c := range n.Children {
				if i > 0 {
					b.WriteString(" | ")
				}
				render(c, false)
			}
			if !top {
				b.WriteByte(')')
			}
		case grammar.KindCat:
			if len(n.Children) == 0 {
				b.WriteString(`""`)
				return
			}
			for i, c := range n.Children {
				if i > 0 {
					b.WriteByte(' ')
				}
				render(c, false)
			}
		case grammar.KindQuant:
			// Render the repeated part on its own to see whether it needs
			// grouping: it does when it reads as more than one item.
			saved := b.String()
			b.Reset()
			render(n.Children[0], true)
			inner := b.String()
			b.Reset()
			b.WriteString(saved)
			if strings.ContainsAny(inner, " ") {
				inner = "(" + inner + ")"
			}
			b.WriteString(inner)
			b.WriteString(grammar.QuantSuffix(n.Min, n.Max))
		}
	}
	render(body, true)
	return b.String()
}

// symbolText is how a symbol reads in a pattern: a rule name, a literal
// without quotes (quoted only when it would be invisible or empty), or a
// /regex/.
func symbolText(n *grammar.Node) string {
	switch n.Kind {
	case grammar.KindLit:
		if n.Name == "" || strings.IndexFunc(n.Name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
			return strconv.Quote(n.Name)
		}
		return n.Name
	case grammar.KindRegex:
		return grammar.QuoteRegex(n.Name)
	}
	return n.Name
}

// Literal is one conjunct of a constraint: a k-path that must be present
// (∃) or absent (∄) in an input's tree.
type Literal struct {
	Path    Path
	Present bool
}

// Conjunction renders a conjunction of literals, one per line, each
// prefixed with ∃ or ∄ (or, with ascii, "has" or "not").
func Conjunction(g *grammar.Graph, lits []Literal, ascii bool) string {
	var b strings.Builder
	for i, l := range lits {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch {
		case l.Present && ascii:
			b.WriteString("has ")
		case l.Present:
			b.WriteString("∃ ")
		case ascii:
			b.WriteString("not ")
		default:
			b.WriteString("∄ ")
		}
		b.WriteString(Pattern(g, l.Path))
	}
	return b.String()
}
