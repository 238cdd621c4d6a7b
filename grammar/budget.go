package grammar

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseOptions shape and bound a parse. The zero value asks for one tree
// within the default budget.
type ParseOptions struct {
	// Trees is how many trees of an ambiguous input to return, as
	// ParseAll's limit; below 1, one.
	Trees int
	// Budget is the most work the general parser may do, in Earley
	// items: every item it adds to a set of the chart, finds there
	// already or keeps waiting for a later set counts, for all cost
	// about the same. Reading the trees off the chart gets as much
	// again, in steps of the search. 0 means DefaultBudget(len(input));
	// a negative budget is no bound (a context can still stop the
	// parse). The deterministic parser does not count against it: it is
	// linear, and its speculation has a bound of its own, past which
	// the input goes to the general parser.
	Budget int
}

// The default budget, decided from measurements (docs/limits.md, "Parse
// budget"): over 2,000 inputs of each bundled grammar that arbor
// generate made (at depths 30 and 60), parsed by the general parser with
// 16 trees, the most an input of 100 bytes or more took was 72 items a
// byte (exprlang), and the most a shorter one took 5,465 items. An
// ambiguous grammar's parse grows as the cube of the input: the
// expression grammar E := E "+" E | "1" takes 1,060 items a byte at 200
// bytes, 3,800 at 400, 14,000 at 800 and 55,000 at 1,600. A linear budget
// 14 times above the bundled grammars lets every parse they need
// through, and stops an ambiguous one after some 25 microseconds an input
// byte (a quarter of a second for 10 KB).
const (
	// BudgetPerByte is the default budget's items per input byte.
	BudgetPerByte = 1000
	// BudgetMin is the default budget of small inputs.
	BudgetMin = 1 << 20
	// BudgetMax is the most the default budget grows to, which bounds
	// what one parse may take whatever the input: 3 to 30 s, and up to a
	// few gigabytes (an item takes 20 to 200 ns, and 8 to 50 bytes while
	// the parse lasts). It lets the general parser take the inputs of
	// the bundled grammars up to 2 MB (exprlang) or 12 MB (xml).
	BudgetMax = 1 << 27
)

// DefaultBudget is the budget of a parse of an n-byte input whose
// options leave it 0: BudgetPerByte items a byte, at least BudgetMin and
// at most BudgetMax.
func DefaultBudget(n int) int {
	return min(max(BudgetMin, BudgetPerByte*min(n, BudgetMax)), BudgetMax)
}

// budget returns the budget of an n-byte input: a number of items, or
// 0 for none.
func (o ParseOptions) budget(n int) int {
	switch {
	case o.Budget < 0:
		return 0
	case o.Budget == 0:
		return DefaultBudget(n)
	}
	return o.Budget
}

func (o ParseOptions) trees() int { return max(o.Trees, 1) }

// BudgetError reports a parse that did more work than its budget allows
// (ParseOptions.Budget). Almost always the grammar is ambiguous, and its
// parse of a long input grows as the square or the cube of the input;
// Rules names the rules the parser found ambiguous, or else those that
// derived the most parts of the input.
type BudgetError struct {
	Budget int  // the budget, in items
	Offset int  // how far the parse had read
	Len    int  // the input's length
	Trees  bool // the chart was built, and reading its trees spent the budget
	// Rules are the rules to blame, most likely first.
	Rules []string
	// Example is a part of the input that Rules[0] derives in more than
	// one way, with its offset; "" if none was found.
	Example   string
	ExampleAt int
}

func (e *BudgetError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "parse budget of %s items exceeded ", commas(e.Budget))
	if e.Trees {
		b.WriteString("reading the trees")
	} else {
		fmt.Fprintf(&b, "at byte %s", commas(e.Offset))
	}
	fmt.Fprintf(&b, " of %s", commas(e.Len))
	switch {
	case e.Example != "":
		fmt.Fprintf(&b, ": rule %s is ambiguous (%s at byte %s has several trees)", e.Rules[0], quoteExample(e.Example), commas(e.ExampleAt))
	case len(e.Rules) == 1:
		fmt.Fprintf(&b, ": rule %s derived the most parts of the input", e.Rules[0])
	case len(e.Rules) > 1:
		last := len(e.Rules) - 1
		fmt.Fprintf(&b, ": rules %s and %s derived the most parts of the input, %s the most",
			strings.Join(e.Rules[:last], ", "), e.Rules[last], e.Rules[0])
	}
	b.WriteString("; see arbor grammar check --conflicts")
	return b.String()
}

// quoteExample quotes an example, cut to its ends if it is long.
func quoteExample(s string) string {
	const show = 24
	if len(s) <= 2*show+10 {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:show]) + "..." + strconv.Quote(s[len(s)-show:])
}

// commas writes n with thousands separators, as the budget is read.
func commas(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// checkEvery is how many items, or steps of reading trees, the parsers
// do between looks at the context: a look takes a lock, an item some
// 20 ns, so the looks cost nothing measurable and a cancelled parse
// stops within a tenth of a millisecond.
const checkEvery = 4096

// meter counts a parse's work. The parsers bump used and call over once
// it reaches next, which says whether to stop.
type meter struct {
	ctx    context.Context
	budget int // 0: none
	used   int
	next   int
	err    error // why the parse stopped: the context's error, wrapped, or errBudget
}

// errBudget is the meter's mark of a spent budget; the parser replaces
// it by a *BudgetError that names the rules to blame.
var errBudget = fmt.Errorf("parse budget exceeded")

func newMeter(ctx context.Context, budget int) meter {
	m := meter{ctx: ctx, budget: budget}
	m.setNext()
	return m
}

func (m *meter) setNext() {
	m.next = m.used + checkEvery
	if m.budget > 0 && m.next > m.budget {
		m.next = m.budget
	}
}

// over reports whether the parse must stop, setting err. at is the
// input offset the parse has reached, for the context's error.
func (m *meter) over(at int) bool {
	if m.err != nil {
		return true
	}
	if err := m.ctx.Err(); err != nil {
		m.err = fmt.Errorf("parse stopped at byte %d: %w", at, err)
		return true
	}
	if m.budget > 0 && m.used >= m.budget {
		m.err = errBudget
		return true
	}
	m.setNext()
	return false
}

// Limits of the search for an ambiguous rule to blame for a spent
// budget: it must stay small against the parse it explains.
const (
	blameRules = 4       // rules examined, those with the most derivations
	blameSpans = 4096    // parts of the input tried
	blameSteps = 1 << 18 // steps of the tree search over them
)

// blame makes the error of a budget spent at offset at, with the chart's
// sets frozen up to it: it names the rules that derived the most parts
// of the input, and searches those for the shortest part, ending
// earliest, that a rule derives in more than one way.
func (e *earley) blame(budget, at int, trees bool) *BudgetError {
	err := &BudgetError{Budget: budget, Offset: at, Len: len(e.in), Trees: trees}
	// Count the derivations of each rule's right-hand side.
	count := make([]int, len(e.g.Nodes))
	for pos := 0; pos < e.nsets; pos++ {
		e.eachDone(int32(pos), func(node, _ int32) {
			if node != e.start && e.g.Nodes[node].Parent == nil {
				count[node]++
			}
		})
	}
	// And the derivations of terminals that end further on, waiting: a
	// regex that matches at every length can spend the budget on them
	// before a set is done.
	if !trees {
		for _, p := range e.pend {
			if p.it.dot == doneDot && e.g.Nodes[p.it.node].Parent == nil {
				count[p.it.node]++
			}
		}
	}
	var roots []int32
	for id, c := range count {
		if c > 0 {
			roots = append(roots, int32(id))
		}
	}
	slices.SortStableFunc(roots, func(a, b int32) int { return cmp.Compare(count[b], count[a]) })
	roots = roots[:min(len(roots), blameRules)]
	for _, id := range roots {
		err.Rules = append(err.Rules, e.g.Nodes[id].Rule)
	}
	if len(roots) == 0 {
		return err
	}
	suspect := make([]bool, len(e.g.Nodes))
	for _, id := range roots {
		suspect[id] = true
	}
	x := &extractor{e: e, a: newArena(0), m: newMeter(context.Background(), blameSteps)}
	tried := 0
	type cand struct{ node, from int32 }
	var cands []cand
	for end := int32(1); end < int32(e.nsets) && tried < blameSpans; end++ {
		cands = cands[:0]
		e.eachDone(end, func(node, from int32) {
			if node != e.start && suspect[node] && from < end {
				cands = append(cands, cand{node, from})
			}
		})
		// The shortest part first.
		slices.SortFunc(cands, func(a, b cand) int { return cmp.Compare(b.from, a.from) })
		for _, c := range cands {
			if tried++; tried > blameSpans {
				break
			}
			n := 0
			x.stack, x.depth, x.calls, x.cut = x.stack[:0], 0, 0, false
			x.build(e.g.Nodes[c.node], c.from, end, func(*Tree) bool {
				n++
				return n < 2
			})
			if n >= 2 {
				rule := e.g.Nodes[c.node].Rule
				err.Example, err.ExampleAt = e.s[c.from:end], int(c.from)
				// The rule shown ambiguous goes first.
				i := slices.Index(err.Rules, rule)
				copy(err.Rules[1:i+1], err.Rules[:i])
				err.Rules[0] = rule
				return err
			}
			if x.m.err != nil {
				return err
			}
		}
	}
	return err
}
