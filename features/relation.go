package features

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
)

// The relational kinds (Relation, Match, Adjacent) compare what two
// places in one input say, which no feature of one node can: a range
// whose start exceeds its end, a reference with no definition, two
// tokens a scanner reads as one. Their cost per input is bounded
// whatever its size: these are the bounds (docs/features.md).
const (
	// MaxMatchText is the longest text Match features compare; longer
	// texts are names of nothing.
	MaxMatchText = 64
	// MaxMatchOccurrences is how many rule occurrences of one tree Match
	// features read (the first ones, in input order).
	MaxMatchOccurrences = 4096
	// MaxRelationChildren is how many children of one rule occurrence
	// Relation features compare pairwise (the first ones; at most 4 of
	// one rule).
	MaxRelationChildren = 12
	maxRelationPerRule  = 4
	// DefaultMaxMatches caps the pairs of rules that get Match features:
	// the most frequent, seen matching in two training inputs or more.
	DefaultMaxMatches = 128
	// maxMatchChecks bounds the occurrence pairs one text's group is
	// searched for a pair of two rules.
	maxMatchChecks = 4096
)

// Match modes (Feature.At of a Match feature).
const (
	MatchSome       = "some"
	MatchNone       = "none"
	MatchNoneBefore = "none before"
)

// refOcc is one rule occurrence Match features read: its rule's symbol
// index and where its text is.
type refOcc struct {
	sym        int32
	start, end int32
}

// kidSpan is where a symbolic child's text is, in its parent's kids.
type kidSpan struct{ start, end int }

// relationKey identifies one comparison of Relation features, so that
// its text is built once per scanner.
type relationKey struct {
	parent, a, b int // symbol indexes
	i, j         int // a is the parent's i-th child of its rule, b the j-th of its
	op           string
}

// relations reports the Relation features of one occurrence of rule
// node, whose symbolic children are kids (graph ids) at spans.
func (sc *scanner) relations(node *grammar.Node, kids []int, spans []kidSpan) {
	parent := sc.symbols[node.ID]
	if parent < 0 || len(kids) < 2 {
		return
	}
	type child struct {
		sym, nth   int
		start, end int
	}
	var buf [MaxRelationChildren]child
	cs := buf[:0]
	for k, id := range kids {
		n := sc.g.Nodes[id]
		if n.Kind != grammar.KindRef {
			continue
		}
		sym, nth := sc.symbols[id], 0
		for _, c := range cs {
			if c.sym == sym {
				nth++
			}
		}
		if nth >= maxRelationPerRule {
			continue
		}
		cs = append(cs, child{sym, nth, spans[k].start, spans[k].end})
		if len(cs) == MaxRelationChildren {
			break
		}
	}
	for x := 0; x < len(cs); x++ {
		for y := x + 1; y < len(cs); y++ {
			a, b := cs[x], cs[y]
			ta, tb := sc.text[a.start:a.end], sc.text[b.start:b.end]
			op := "text =="
			na, nb := math.NaN(), math.NaN()
			if len(ta) <= 24 && len(tb) <= 24 {
				na, nb = constraint.Number(ta), constraint.Number(tb)
			}
			switch {
			case !math.IsNaN(na) && !math.IsNaN(nb):
				switch {
				case na < nb:
					op = "num <"
				case na > nb:
					op = "num >"
				default:
					op = "num =="
				}
			case ta != tb:
				op = "text !="
			}
			key := relationKey{parent, a.sym, b.sym, a.nth, b.nth, op}
			text, ok := sc.relationText[key]
			if !ok {
				field, cmpOp, _ := strings.Cut(op, " ")
				text = fmt.Sprintf("%s[%d].%s %s %s[%d].%s", sc.labels[a.sym], a.nth, field, cmpOp, sc.labels[b.sym], b.nth, field)
				if sc.relationText == nil {
					sc.relationText = map[relationKey]string{}
				}
				sc.relationText[key] = text
			}
			sc.onFeature(Feature{Kind: Relation, Symbol: sc.labels[parent], Text: text})
		}
	}
}

// leaf reports the Adjacent feature of a terminal whose text is s,
// against the terminal before it.
func (sc *scanner) leaf(s string) {
	if s == "" {
		return
	}
	first, _ := utf8.DecodeRuneInString(s)
	if sc.lastLeaf != "" {
		if c := ClassOf(first); c != "space" && c != "control" {
			sc.onFeature(Feature{Kind: Adjacent, Text: sc.lastLeaf, At: c})
		}
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	sc.lastLeaf = ClassOf(last)
	if sc.lastLeaf == "space" || sc.lastLeaf == "control" {
		sc.lastLeaf = ""
	}
}

// occurrence records one rule occurrence for Match features.
func (sc *scanner) occurrence(node *grammar.Node, start, end int) {
	if node.Kind != grammar.KindRef || end == start || end-start > MaxMatchText || len(sc.occs) >= MaxMatchOccurrences {
		return
	}
	sc.occs = append(sc.occs, refOcc{int32(sc.symbols[node.ID]), int32(start), int32(end)})
}

// matches reports the Match features of one tree, from the occurrences
// the walk recorded: "some" for every pair of rules whose texts meet in
// two places, and the "none" modes for the pairs v has.
func (sc *scanner) matches(v *Vocabulary) {
	occs := sc.occs
	if len(occs) < 2 && len(v.matchPairs) == 0 {
		return
	}
	text := func(o refOcc) string { return sc.text[o.start:o.end] }
	// Group the occurrences by text, in input order within a group.
	slices.SortFunc(occs, func(a, b refOcc) int {
		if c := strings.Compare(text(a), text(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.start, b.start)
	})
	disjoint := func(a, b refOcc) bool { return a.end <= b.start || b.end <= a.start }
	sc.groups = sc.groups[:0]
	for i := 0; i < len(occs); {
		j := i + 1
		for j < len(occs) && text(occs[j]) == text(occs[i]) {
			j++
		}
		sc.groups = append(sc.groups, [2]int{i, j})
		i = j
	}
	for _, gr := range sc.groups {
		group := occs[gr[0]:gr[1]]
		if len(group) < 2 {
			continue
		}
		sc.pairSeen = sc.pairSeen[:0]
		checks := 0
		for x := range group {
			for y := x + 1; y < len(group) && checks < maxMatchChecks; y++ {
				checks++
				a, b := group[x], group[y]
				if !disjoint(a, b) {
					continue
				}
				p := [2]int32{min(a.sym, b.sym), max(a.sym, b.sym)}
				if slices.Contains(sc.pairSeen, p) {
					continue
				}
				sc.pairSeen = append(sc.pairSeen, p)
				sc.onFeature(Feature{Kind: Match, Symbol: sc.labels[p[0]], Text: sc.labels[p[1]], At: MatchSome})
			}
		}
	}
	if len(v.matchPairs) == 0 {
		return
	}
	// The "none" modes: per pair of v, whether an occurrence of the first
	// rule finds no occurrence of the second with its text (anywhere else,
	// or before it).
	for _, gr := range sc.groups {
		group := occs[gr[0]:gr[1]]
		for _, a := range group {
			for _, pr := range v.matchPairs[a.sym] {
				none, noneBefore := true, true
				for _, b := range group {
					if b.sym != pr.other || !disjoint(a, b) {
						continue
					}
					none = false
					if b.end <= a.start {
						noneBefore = false
						break
					}
				}
				if none {
					sc.onFeature(Feature{Kind: Match, Symbol: sc.labels[a.sym], Text: sc.labels[pr.other], At: MatchNone})
				}
				if noneBefore {
					sc.onFeature(Feature{Kind: Match, Symbol: sc.labels[a.sym], Text: sc.labels[pr.other], At: MatchNoneBefore})
				}
			}
		}
	}
}

// matchPair is a pair of rules with Match features, from the first's
// side: the second rule's symbol index.
type matchPair struct{ other int32 }

// internMatches interns the Match features of the pairs of rules seen
// matching in two training inputs or more (inputs counts them), the most
// frequent first, up to DefaultMaxMatches pairs: "some" for each, and
// the "none" modes both ways for a pair of two rules.
func (v *Vocabulary) internMatches(inputs map[[2]string]int) {
	type pc struct {
		p [2]string
		n int
	}
	var list []pc
	for p, n := range inputs {
		if n >= 2 {
			list = append(list, pc{p, n})
		}
	}
	slices.SortFunc(list, func(a, b pc) int {
		if a.n != b.n {
			return b.n - a.n
		}
		if c := strings.Compare(a.p[0], b.p[0]); c != 0 {
			return c
		}
		return strings.Compare(a.p[1], b.p[1])
	})
	for _, x := range list[:min(len(list), DefaultMaxMatches)] {
		a, b := x.p[0], x.p[1]
		v.Intern(Feature{Kind: Match, Symbol: a, Text: b, At: MatchSome})
		if a == b {
			continue
		}
		for _, mode := range []string{MatchNone, MatchNoneBefore} {
			v.Intern(Feature{Kind: Match, Symbol: a, Text: b, At: mode})
			v.Intern(Feature{Kind: Match, Symbol: b, Text: a, At: mode})
		}
	}
}

// addMatchPair records that the "none" modes of rules a and b are
// interned, for the scanner to evaluate.
func (v *Vocabulary) addMatchPair(a, b string) {
	v.sc.init(v.g)
	ia, oka := v.sc.index[a]
	ib, okb := v.sc.index[b]
	if !oka || !okb {
		return
	}
	if v.matchPairs == nil {
		v.matchPairs = map[int32][]matchPair{}
	}
	p := matchPair{int32(ib)}
	if !slices.Contains(v.matchPairs[int32(ia)], p) {
		v.matchPairs[int32(ia)] = append(v.matchPairs[int32(ia)], p)
	}
}

// clauses reports the Clause features of one input: each where clause
// its first tree breaks, and the rules before the first break. An
// ambiguous input is judged by its first tree, as 'arbor grammar check'
// judges a sample: checking clauses costs milliseconds a tree, and the
// general parser may give an input dozens.
func (v *Vocabulary) clauses(f forest, onFeature func(Feature)) {
	if v.checker == nil {
		return
	}
	trees := f.trees
	if f.parsed != nil {
		var err error
		if trees, err = f.parsed.Trees(); err != nil {
			return
		}
	}
	for _, t := range trees {
		if t == nil {
			continue
		}
		first := -1
		for _, viol := range v.checker.Check(t) {
			onFeature(Feature{Kind: Clause, Text: v.clauseText(viol.Clause)})
			if first < 0 || viol.At.Start < first {
				first = viol.At.Start
			}
		}
		// What comes before the first break: a program that checks as it
		// reads stops there, and what lies after it never runs (a number
		// after an undeclared variable is never lexed).
		t.Visit(&beforeBreak{v: v, first: first, onFeature: onFeature})
		return // the first tree only: see above
	}
}

// beforeBreak is a grammar.Visitor that reports, for every rule with an
// occurrence that ends at or before offset first (anywhere, if first <
// 0: the input breaks no clause), a Clause feature "before the first
// break".
type beforeBreak struct {
	v         *Vocabulary
	first     int
	pos       int
	starts    []int
	onFeature func(Feature)
}

// BeforeBreak is the At of a Clause feature about what precedes the
// first broken clause instance.
const BeforeBreak = "before the first break"

func (b *beforeBreak) Enter(n *grammar.Node, text string) {
	if n == nil {
		return
	}
	switch n.Kind {
	case grammar.KindRef:
		b.starts = append(b.starts, b.pos)
	case grammar.KindLit, grammar.KindRegex:
		b.pos += len(text)
	}
}

func (b *beforeBreak) Leave(n *grammar.Node) {
	if n == nil || n.Kind != grammar.KindRef {
		return
	}
	b.starts = b.starts[:len(b.starts)-1]
	if b.first < 0 || b.pos <= b.first {
		b.onFeature(Feature{Kind: Clause, Symbol: n.Name, At: BeforeBreak})
	}
}

// clauseText is a clause as a Clause feature names it: as written, on
// one line.
func (v *Vocabulary) clauseText(c *constraint.Clause) string {
	if s, ok := v.clauseTexts[c]; ok {
		return s
	}
	s := ClauseText(c.Where)
	if v.clauseTexts == nil {
		v.clauseTexts = map[*constraint.Clause]string{}
	}
	v.clauseTexts[c] = s
	return s
}

// ClauseText is how a Clause feature names where clause w (its Text):
// as written, on one line.
func ClauseText(w *grammar.Where) string {
	return strings.Join(strings.Fields(grammar.FormatWhere(w)), " ")
}

// describeRelational renders a relational feature in the notation of
// where clauses (docs/notation.md), so that an explanation reads like the
// constraint it approximates.
func (f Feature) describeRelational() string {
	switch f.Kind {
	case Relation:
		// As a where clause says "in every Scope", this says "in some".
		return fmt.Sprintf("some %s: %s", f.Symbol, f.Text)
	case Match:
		a, b := f.Symbol, f.Text
		switch f.At {
		case MatchSome:
			if a == b {
				return fmt.Sprintf("len(uniq(map(%s, .text))) < len(%s)", a, a)
			}
			return fmt.Sprintf("any(%s, {.text in map(%s, .text)})", a, b)
		case MatchNone:
			return fmt.Sprintf("any(%s, {.text not in map(%s, .text)})", a, b)
		case MatchNoneBefore:
			return fmt.Sprintf("any(%s, {let x = #; none(%s, {.text == x.text && before(#, x)})})", a, b)
		}
	case Adjacent:
		return fmt.Sprintf("a token ending in %s directly before one starting with %s", f.Text, f.At)
	case Clause:
		if f.At == BeforeBreak {
			return fmt.Sprintf("some %s ends before the first broken clause (if any)", f.Symbol)
		}
		return "breaks " + f.Text
	}
	return fmt.Sprintf("%s feature %s %s %s", f.Kind, f.Symbol, f.Text, f.At)
}
