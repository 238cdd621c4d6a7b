package antlr

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"

	"github.com/arbor-fuzz/arbor/grammar"
)

// maxRegex is the longest regular expression conversion writes; arbor's
// notation takes up to 4096 bytes between the slashes, which escaping /
// and control characters lengthens.
const maxRegex = 3000

// fits reports whether a regular expression is short enough for the
// notation once written.
func fits(src string) bool { return len(grammar.QuoteRegex(printable(src))) <= 4096 }

// printable writes the control characters, line separators and other
// unprintable characters of a regular expression as \x{..} escapes: the
// notation takes a regular expression on one line, and a reader is
// better served by \x{9} than by an invisible tab.
func printable(src string) string {
	var b strings.Builder
	for _, c := range src {
		if c < 0x20 || c == 0x7f || c >= 0x80 && !unicode.IsPrint(c) {
			fmt.Fprintf(&b, `\x{%x}`, c)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// re is a piece of a regular expression with the precedence of its top
// operator, so that groups are added only where needed.
type re struct {
	s    string
	prec int // precAlt, precCat, precQuant or precAtom
}

// A quantified expression concatenates as it is but takes another
// quantifier only in a group: x+ made optional is (?:x+)?, for x+? is
// x+ repeated lazily.
const (
	precAlt = iota
	precCat
	precQuant
	precAtom
)

var epsilon = re{"", precAtom}

func atom(s string) re { return re{s, precAtom} }

func (r re) group(prec int) string {
	if r.prec < prec {
		return "(?:" + r.s + ")"
	}
	return r.s
}

func cat(a, b re) re {
	switch {
	case a.s == "":
		return b
	case b.s == "":
		return a
	}
	return re{a.group(precCat) + b.group(precCat), precCat}
}

func alt(a, b re) re { return re{a.group(precAlt) + "|" + b.group(precAlt), precAlt} }

func quant(a re, suffix string) re {
	if a.s == "" {
		return a
	}
	return re{a.group(precAtom) + suffix, precQuant}
}

// source classifies a regular expression written elsewhere by its top
// operator, so that a class or a single character is not grouped.
func source(src string) re {
	parsed, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return re{src, precAlt}
	}
	// The parser may have merged alternatives (ab|ac is a[bc] to it), so
	// a source classified by its parse is written as parsed.
	switch parsed.Op {
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return re{parsed.String(), precAtom}
	case syntax.OpLiteral:
		if len(parsed.Rune) == 1 {
			return re{parsed.String(), precAtom}
		}
		return re{parsed.String(), precCat}
	case syntax.OpConcat:
		return re{parsed.String(), precCat}
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		return re{parsed.String(), precQuant}
	}
	return re{src, precAlt}
}

func literal(s string) re {
	if s == "" {
		return epsilon
	}
	q := regexp.QuoteMeta(s)
	if len([]rune(s)) == 1 {
		return atom(q)
	}
	return re{q, precCat}
}

// exprRegex writes an arbor expression as one regular expression,
// replacing every rule reference by the rule's body (resolve), or fails
// on a recursive rule, which no regular expression can hold.
func exprRegex(e grammar.Expr, resolve func(string) grammar.Expr, visiting map[string]bool) (re, error) {
	switch e := e.(type) {
	case *grammar.Lit:
		return literal(e.Text), nil
	case *grammar.Regex:
		return source(e.Src), nil
	case *grammar.Seq:
		out := epsilon
		for _, x := range e.Items {
			r, err := exprRegex(x, resolve, visiting)
			if err != nil {
				return out, err
			}
			out = cat(out, r)
		}
		return out, nil
	case *grammar.Alt:
		var out re
		for i, x := range e.Alts {
			r, err := exprRegex(x, resolve, visiting)
			if err != nil {
				return out, err
			}
			if i == 0 {
				out = r
			} else {
				out = alt(out, r)
			}
		}
		return out, nil
	case *grammar.Repeat:
		r, err := exprRegex(e.X, resolve, visiting)
		if err != nil {
			return r, err
		}
		return quant(r, grammar.QuantSuffix(e.Min, e.Max)), nil
	case *grammar.Ref:
		if visiting[e.Name] {
			return epsilon, fmt.Errorf("%s is recursive", e.Name)
		}
		body := resolve(e.Name)
		if body == nil {
			return epsilon, fmt.Errorf("%s is not a lexer rule", e.Name)
		}
		visiting[e.Name] = true
		defer delete(visiting, e.Name)
		return exprRegex(body, resolve, visiting)
	}
	return epsilon, fmt.Errorf("unexpected expression %T", e)
}

// untilFirst returns a regular expression for a non-greedy loop over the
// characters of loop followed by one of words, as ANTLR's lexer matches
// '/*' .*? '*/': the loop stops where a word first ends. It builds the
// Aho-Corasick automaton of the words, cuts every transition out of a
// state where a word has ended, and turns the automaton into a regular
// expression by eliminating states. Characters of the words are allowed
// inside the loop even where loop lacks them (an approximation that only
// matters for sets such as ~'"' *? '"', where it changes nothing).
func untilFirst(loop runeSet, words []string) (string, bool) {
	a, ok := newWordAutomaton(words)
	if !ok {
		return "", false
	}
	return eliminate(a.edges(loop), len(a.states))
}

// wordAutomaton is the Aho-Corasick automaton of a set of words.
type wordAutomaton struct {
	states   []*wordState // 0 is the start
	alphabet runeSet      // the words' characters
}

type wordState struct {
	next map[rune]int
	fail int
	out  bool // a word ends here
}

// newWordAutomaton builds the automaton of words: their trie, then its
// failure links. It returns false if the automaton would have more than
// 64 states.
func newWordAutomaton(words []string) (*wordAutomaton, bool) {
	a := &wordAutomaton{states: []*wordState{{next: map[rune]int{}}}}
	for _, w := range words {
		s := 0
		for _, c := range w {
			a.alphabet = a.alphabet.union(runeSet{c, c})
			t, ok := a.states[s].next[c]
			if !ok {
				t = len(a.states)
				a.states = append(a.states, &wordState{next: map[rune]int{}})
				a.states[s].next[c] = t
			}
			s = t
		}
		a.states[s].out = true
		if len(a.states) > 64 {
			return nil, false
		}
	}
	a.link()
	return a, true
}

// link sets the failure links, breadth first.
func (a *wordAutomaton) link() {
	states := a.states
	queue := []int{}
	for _, t := range states[0].next {
		queue = append(queue, t)
	}
	sort.Ints(queue)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		keys := sortedKeys(states[s].next)
		for _, c := range keys {
			t := states[s].next[c]
			f := states[s].fail
			for {
				if g, ok := states[f].next[c]; ok && g != t {
					states[t].fail = g
					break
				}
				if f == 0 {
					states[t].fail = 0
					break
				}
				f = states[f].fail
			}
			states[t].out = states[t].out || states[states[t].fail].out
			queue = append(queue, t)
		}
	}
}

// delta is the state after reading c in state s.
func (a *wordAutomaton) delta(s int, c rune) int {
	for {
		if t, ok := a.states[s].next[c]; ok {
			return t
		}
		if s == 0 {
			return 0
		}
		s = a.states[s].fail
	}
}

// reEdges are the edges of an automaton being turned into a regular
// expression: edge[i][j] is the expression that leads from state i to
// j, or nil.
type reEdges [][]*re

// add adds r to the edge from i to j, as an alternative.
func (edge reEdges) add(i, j int, r re) {
	if edge[i][j] == nil {
		edge[i][j] = &r
		return
	}
	x := alt(*edge[i][j], r)
	edge[i][j] = &x
}

// edges are the automaton's transitions on the characters of loop and
// of the words, with those out of a state where a word has ended cut
// and replaced by an empty edge to one more state, the final one.
func (a *wordAutomaton) edges(loop runeSet) reEdges {
	states, alphabet := a.states, a.alphabet
	other := loop.minus(alphabet)
	n := len(states)
	final := n // the one accepting state of the elimination
	edge := make(reEdges, n+1)
	for i := range edge {
		edge[i] = make([]*re, n+1)
	}
	for s := 0; s < n; s++ {
		if states[s].out {
			edge.add(s, final, epsilon)
			continue
		}
		sets := map[int]runeSet{}
		for i := 0; i+1 < len(alphabet); i += 2 {
			for c := alphabet[i]; c <= alphabet[i+1]; c++ {
				t := a.delta(s, c)
				sets[t] = sets[t].union(runeSet{c, c})
			}
		}
		if !other.empty() {
			sets[0] = sets[0].union(other)
		}
		for _, t := range sortedKeys(sets) {
			edge.add(s, t, atom(sets[t].regex()))
		}
	}
	return edge
}

// eliminate turns the edges among n states and the final one (n) into
// the regular expression of the paths from state 0 to the final state,
// eliminating every state but those two, deepest first. It returns
// false if the expression grows too long.
func eliminate(edge reEdges, n int) (string, bool) {
	final := n
	for k := n - 1; k >= 1; k-- {
		var loopK re
		if edge[k][k] != nil {
			loopK = quant(*edge[k][k], "*")
		}
		for i := 0; i <= n; i++ {
			if i == k || edge[i][k] == nil {
				continue
			}
			for j := 0; j <= n; j++ {
				if j == k || edge[k][j] == nil {
					continue
				}
				edge.add(i, j, cat(cat(*edge[i][k], loopK), *edge[k][j]))
				if len(edge[i][j].s) > maxRegex {
					return "", false
				}
			}
		}
		for i := 0; i <= n; i++ {
			edge[i][k], edge[k][i] = nil, nil
		}
	}
	if edge[0][final] == nil {
		return "", false
	}
	out := *edge[0][final]
	if edge[0][0] != nil {
		out = cat(quant(*edge[0][0], "*"), out)
	}
	if len(out.s) > maxRegex || !fits(out.s) {
		return "", false
	}
	return out.s, true
}

func sortedKeys[K rune | int, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
