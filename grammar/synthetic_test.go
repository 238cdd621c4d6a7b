package grammar

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// SyntheticGrammar writes a seeded grammar of n rules (n >= 1) shaped like
// the imported grammars of SQL dialects and programming languages: rules
// of a few alternatives, each a sequence of rule references, keywords,
// punctuation, token regexes, optional parts and separated lists;
// references back to any rule (so the graph is full of cycles), left
// recursion through chains of leftmost references, and nullable rules.
// The same n and seed always give the same text.
//
// Every rule is reachable and productive: rule i's first alternative
// refers to its "children" 3i+1..3i+3 only (a tree over the rules), and a
// rule without children ends in terminals. It is exported (in a test
// file) so that the external benchmark can use it too.
func SyntheticGrammar(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	words := []string{"expr", "stmt", "clause", "name", "list", "term", "select", "table", "column", "join", "value", "type", "decl", "block", "call"}
	keywords := []string{"SELECT", "FROM", "WHERE", "JOIN", "ON", "AS", "GROUP", "BY", "ORDER", "LIMIT", "INSERT", "INTO", "VALUES", "CASE", "WHEN", "THEN", "ELSE", "END", "if", "else", "for", "return", "func", "var"}
	punct := []string{"(", ")", ",", ";", ".", "=", "+", "-", "*", "/", "<", ">", "<=", "[", "]", "{", "}", ":"}
	regexes := []string{`[a-z_][a-z0-9_]*`, `[0-9]+`, `'[^']*'`, `[0-9]+\.[0-9]*`, `[A-Z][A-Za-z0-9]*`, `0x[0-9a-f]{1,8}`, ` *`}
	name := func(i int) string { return fmt.Sprintf("%s_%d", words[i%len(words)], i) }
	terminal := func() string {
		switch x := r.IntN(10); {
		case x < 4:
			return `"` + keywords[r.IntN(len(keywords))] + `"`
		case x < 8:
			return `"` + punct[r.IntN(len(punct))] + `"`
		default:
			return "/" + regexes[r.IntN(len(regexes))] + "/"
		}
	}
	// item wraps a symbol the way imported grammars do: optional parts,
	// separated lists, plain uses.
	item := func(sym string) string {
		switch x := r.IntN(10); {
		case x == 0:
			return sym + "?"
		case x == 1:
			return "(" + terminal() + " " + sym + ")*"
		case x == 2:
			return sym + "+"
		default:
			return sym
		}
	}
	var b strings.Builder
	for i := range n {
		var alts []string
		// The first alternative: the children, with terminals between.
		var base []string
		for c := 3*i + 1; c <= 3*i+3 && c < n; c++ {
			if r.IntN(3) == 0 {
				base = append(base, terminal())
			}
			base = append(base, item(name(c)))
		}
		if len(base) == 0 {
			// A leaf: tokens, or a choice of keywords.
			if r.IntN(2) == 0 {
				base = append(base, terminal())
			} else {
				base = append(base, "("+terminal()+" | "+terminal()+" | "+terminal()+")")
			}
		}
		alts = append(alts, strings.Join(base, " "))
		for range r.IntN(4) {
			var seq []string
			for range 1 + r.IntN(4) {
				if r.IntN(2) == 0 {
					seq = append(seq, item(name(r.IntN(n))))
				} else {
					seq = append(seq, terminal())
				}
			}
			alts = append(alts, strings.Join(seq, " "))
		}
		// Left recursion: direct (expr := expr "+" term), or back to an
		// ancestor whose leftmost chain of first children leads here.
		if x := r.IntN(20); x == 0 {
			alts = append(alts, name(i)+" "+terminal()+" "+item(name(r.IntN(n))))
		} else if x == 1 && i > 0 {
			a := i
			for range 1 + r.IntN(3) {
				if a == 0 || (a-1)%3 != 0 {
					break
				}
				a = (a - 1) / 3
			}
			alts = append(alts, name(a)+" "+terminal())
		}
		// Nullable rules.
		if r.IntN(25) == 0 {
			alts = append(alts, "("+terminal()+" "+name(r.IntN(n))+")?")
		}
		fmt.Fprintf(&b, "%s := %s ;\n", name(i), strings.Join(alts, "\n    | "))
	}
	return b.String()
}
