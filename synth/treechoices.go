package synth

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// ChoicesOf returns the decisions with which a generator with x's
// grammar, policy and bounds (MaxDepth, MaxRepeat, MaxNodes, MaxDistinct)
// generates exactly the tree t, in the order it makes them: what a
// Recorder would have recorded had the generator made t. It is how an
// input that was not generated (a file, another tool's output) becomes a
// choice sequence, the form in which the fuzzer and the mutator take
// inputs.
//
// t is a complete tree of x.G rooted at its root, such as
// (*grammar.Graph).Parse returns: the parser's trees have the
// generator's shape (a Ref with its rule's body as the one child, an Alt
// with the alternative taken, a Cat with one child per element, a Quant
// with one child per repetition), so the decisions are read off the
// tree. An input that parses has other trees where the grammar is
// ambiguous; ChoicesOf derives the tree it is given, and another tree
// of the same input may fit bounds this one does not.
//
// Every decision must be one the generator offers: a tree that needs
// more repetitions than MaxRepeat, more depth than MaxDepth, a longer
// closing-off than MaxNodes allows, more distinct values of a terminal
// than MaxDistinct, or a terminal value the regex draw cannot write (it
// writes a case-folded literal such as [eE] in one case, and draws
// characters from a class's printable ASCII members and a few others)
// gets an error that says which, for such a sequence would not replay
// through a chooser that keeps to the options, as the fuzzer's streams
// do. The decisions are checked by replaying them, every value among its
// point's options, to t's text.
//
// x's Chooser and hooks play no part, and x is not changed.
func (x *Generator) ChoicesOf(t *grammar.Tree) ([]int, error) {
	if t == nil {
		return nil, errors.New("no tree")
	}
	if t.Node != x.G.Root {
		return nil, fmt.Errorf("the tree's root is %s, not the grammar's root %s", t.Node, x.G.Root)
	}
	w := &treeWalker{gen: x.bounded(nil)}
	if err := w.walk(t, 0); err != nil {
		return nil, err
	}
	if err := x.checkReplay(w.out, t.String()); err != nil {
		return nil, err
	}
	return w.out, nil
}

// ExactChoicesOf returns decisions with which a generator with x's
// grammar, policy and bounds makes exactly the tree t when they are
// replayed as they are (Replay, which returns each value whether
// or not it is among its point's options): the decisions the tree takes,
// valid for the grammar rather than for x's bounds. A count may exceed
// MaxRepeat, an alternative go past MaxDepth or stay long past MaxNodes,
// a regex character be any member of its class (a newline, a control
// character), a terminal take more distinct values than MaxDistinct
// (its RegexReuse decision then draws a new value, as a replay past the
// bound does); counts stay within their node's or regex part's own
// minimum and maximum. It is how a file that is not small enough for
// the bounds still becomes a choice sequence.
//
// Where both derive t, ChoicesOf's decisions are the ones to use: they
// are what the generator can choose again, and ExactChoicesOf's differ
// only where t breaks a bound. Inside a regex it prefers, as the draw
// does, any branch to \B, which holds or not by the character that
// follows; it takes \B only where the text needs it.
//
// It fails only for trees that are not derivations of x.G and for
// terminal values the draw cannot write whatever it chooses: invalid
// UTF-8, or a case-folded literal in the other case ([eE] parses as a
// folded E, and the draw writes E). The decisions are checked by
// replaying them to t's text.
func (x *Generator) ExactChoicesOf(t *grammar.Tree) ([]int, error) {
	if t == nil {
		return nil, errors.New("no tree")
	}
	if t.Node != x.G.Root {
		return nil, fmt.Errorf("the tree's root is %s, not the grammar's root %s", t.Node, x.G.Root)
	}
	w := &treeWalker{gen: x.bounded(nil), exact: true}
	if err := w.walk(t, 0); err != nil {
		return nil, err
	}
	if err := x.replaysTo(&optionReplay{choices: w.out, anyValue: true}, len(w.out), t.String()); err != nil {
		return nil, err
	}
	return w.out, nil
}

// Valid reports whether v is a value the grammar allows for the decision
// at p wherever p's node makes it, whatever the bounds: a child index of
// an Alt or of a regex alternation, a count within a Quant's or a regex
// repetition's own minimum and maximum, a valid rune of a regex class.
// Every RegexReuse value is valid: an index past the terminal's values
// draws a new one. Expand takes whatever value a chooser returns, so a
// chooser that replays values from elsewhere (a file of choices, which
// may have been made for another grammar) checks them with Valid first;
// every decision ChoicesOf and ExactChoicesOf derive is valid. Validity
// does not mean the draw offers v: a \B branch is valid, though the
// draw takes it only where nothing else can be drawn.
func (x *Generator) Valid(p Point, v int) bool {
	n := p.Node
	if n == nil {
		return false
	}
	switch p.Kind {
	case Alternative:
		return n.Kind == grammar.KindAlt && v >= 0 && v < len(n.Children)
	case Repetition:
		return n.Kind == grammar.KindQuant && v >= n.Min && (n.Max == grammar.Unbounded || v <= n.Max)
	case RegexReuse:
		return n.Kind == grammar.KindRegex
	case RegexAlternative, RegexRepetition, RegexChar:
	default:
		return false
	}
	if n.Kind != grammar.KindRegex {
		return false
	}
	r := x.regexGen(n)
	if p.Sub < 0 || p.Sub >= len(r.parts) {
		return false
	}
	re := r.parts[p.Sub]
	switch p.Kind {
	case RegexAlternative:
		return re.Op == syntax.OpAlternate && v >= 0 && v < len(re.Sub)
	case RegexChar:
		switch re.Op {
		case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			return v >= 0 && v <= unicode.MaxRune && utf8.ValidRune(rune(v)) && inClass(re, rune(v))
		}
		return false
	}
	lo, hi := 0, -1
	switch re.Op {
	case syntax.OpStar:
	case syntax.OpPlus:
		lo = 1
	case syntax.OpQuest:
		hi = 1
	case syntax.OpRepeat:
		lo, hi = re.Min, re.Max
	default:
		return false
	}
	return v >= lo && (hi < 0 || v <= hi)
}

// bounded returns a generator of x's grammar with x's policy and bounds
// that decides with c, and no hooks: ChoicesOf's own, so that x's state
// (its node count, pools and buffers) is left alone.
func (x *Generator) bounded(c Chooser) *Generator {
	return &Generator{G: x.G, Chooser: c, Policy: x.Policy,
		MaxDepth: x.MaxDepth, MaxRepeat: x.MaxRepeat, MaxNodes: x.MaxNodes, MaxDistinct: x.MaxDistinct}
}

// checkReplay replays choices through a generator with x's settings,
// refusing any value that is not among its point's options, and checks
// that they derive want, all of them and no more. It catches a walk that
// drifted from what Expand does.
func (x *Generator) checkReplay(choices []int, want string) error {
	return x.replaysTo(&optionReplay{choices: choices}, len(choices), want)
}

// replaysTo generates with c and checks that it read all n of its
// choices, each valid, and derived want.
func (x *Generator) replaysTo(c *optionReplay, n int, want string) error {
	g := x.bounded(c)
	c.gen = g
	got := g.Generate().String()
	switch {
	case c.err != nil:
		return fmt.Errorf("the derived decisions do not replay: %w", c.err)
	case c.next < n:
		return fmt.Errorf("the derived decisions do not replay: %d of %d were read", c.next, n)
	case got != want:
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		return fmt.Errorf("the derived decisions replay to another input (from byte %d: %q, want %q)",
			i, clip(got[i:]), clip(want[i:]))
	}
	return nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// optionReplay replays choices and notes the first that is not among its
// point's options (with anyValue, the first that is not valid for the
// grammar), or the first point past the end; from then on it takes first
// options, so that the generation ends.
type optionReplay struct {
	choices  []int
	anyValue bool
	gen      *Generator // the generator replaying, for Valid
	next     int
	err      error
}

func (c *optionReplay) Choose(p Point) int {
	if c.err != nil {
		return p.Options[0]
	}
	if c.next >= len(c.choices) {
		c.err = fmt.Errorf("they ran out at a %s decision of %s", p.Kind, p.Node)
		return p.Options[0]
	}
	v := c.choices[c.next]
	c.next++
	switch {
	case c.anyValue && !c.gen.Valid(p, v):
		c.err = fmt.Errorf("decision %d (%s of %s) is %d, which the grammar does not allow there", c.next-1, p.Kind, p.Node, v)
		return p.Options[0]
	case !c.anyValue && !slices.Contains(p.Options, v):
		c.err = fmt.Errorf("decision %d (%s of %s) is %d, not among its options %v", c.next-1, p.Kind, p.Node, v, p.Options)
		return p.Options[0]
	}
	return v
}

// treeWalker reads a tree's decisions in the order Expand makes them,
// keeping the generator state they depend on: the nodes so far (past
// MaxNodes every decision takes its shortest options) in gen.nodes, and
// each regex terminal's values so far (MaxDistinct) in pools. With
// exact, it reads the decisions the tree takes whatever the bounds
// (ExactChoicesOf).
type treeWalker struct {
	gen     *Generator
	exact   bool
	out     []int
	pools   map[int][]string
	regexes map[int]*regexGen
}

func (w *treeWalker) walk(t *grammar.Tree, depth int) error {
	if t == nil {
		return errors.New("the tree has an open slot")
	}
	x, n := w.gen, t.Node
	x.nodes++
	switch n.Kind {
	case grammar.KindLit:
		if t.Value != n.Name {
			return fmt.Errorf("literal %s holds %q", n, t.Value)
		}
		x.nodes += terminalSize(t.Value) - 1
	case grammar.KindRegex:
		// As Expand counts a terminal's characters, after its draw.
		err := w.regex(t)
		x.nodes += terminalSize(t.Value) - 1
		return err
	case grammar.KindRef:
		if err := w.children(t, 1); err != nil {
			return err
		}
		return w.walk(t.Children[0], depth+1)
	case grammar.KindAlt:
		if len(t.Children) != 1 {
			return fmt.Errorf("%s has %d children in the tree, want the one alternative taken", n, len(t.Children))
		}
		if t.Children[0] == nil {
			return errors.New("the tree has an open slot")
		}
		c := t.Children[0]
		i := slices.Index(n.Children, c.Node)
		if i < 0 {
			return fmt.Errorf("%s is not an alternative of %s", c.Node, n)
		}
		if opts := x.altOptions(n, depth); !w.exact && !slices.Contains(opts, i) {
			if x.shortest() {
				return fmt.Errorf("%s takes %s after %d tree nodes, %s", n, c.Node, x.nodes, w.shortestReason())
			}
			return w.tooDeep(n, c, depth)
		}
		w.out = append(w.out, i)
		return w.walk(c, depth)
	case grammar.KindCat:
		if err := w.children(t, len(n.Children)); err != nil {
			return err
		}
		for _, c := range t.Children {
			if err := w.walk(c, depth); err != nil {
				return err
			}
		}
	case grammar.KindQuant:
		count := len(t.Children)
		if count < n.Min || n.Max != grammar.Unbounded && count > n.Max {
			return fmt.Errorf("%s has %d repetitions in the tree, outside its %d..%d", n, count, n.Min, n.Max)
		}
		// As Generator.repetitions bounds the count.
		lo, hi := n.Min, n.Max
		if hi == grammar.Unbounded {
			hi = max(lo, x.maxRepeat())
		}
		switch {
		case w.exact:
		case count > lo && x.shortest():
			return fmt.Errorf("%s needs %d repetitions after %d tree nodes, %s", n, count, x.nodes, w.shortestReason())
		case count > lo && depth+x.G.MinDepth(n.Children[0]) > x.maxDepth():
			return w.tooDeep(n, t.Children[lo], depth)
		case count > hi:
			return fmt.Errorf("needs %d repetitions at %s, the bound is %d", count, n, hi)
		}
		w.out = append(w.out, count)
		for _, c := range t.Children {
			if c == nil {
				return errors.New("the tree has an open slot")
			}
			if c.Node != n.Children[0] {
				return fmt.Errorf("%s repeats %s, not %s", n, n.Children[0], c.Node)
			}
			if err := w.walk(c, depth); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s: unknown kind of node", n)
	}
	return nil
}

// children checks that t has the graph node's children, in order.
func (w *treeWalker) children(t *grammar.Tree, want int) error {
	n := t.Node
	if len(t.Children) != want {
		return fmt.Errorf("%s has %d children in the tree, want %d", n, len(t.Children), want)
	}
	for i, c := range t.Children {
		if c == nil {
			return errors.New("the tree has an open slot")
		}
		if c.Node != n.Children[i] {
			return fmt.Errorf("child %d of %s is %s, want %s", i, n, c.Node, n.Children[i])
		}
	}
	return nil
}

// shortestReason says why only the shortest options were offered.
func (w *treeWalker) shortestReason() string {
	if w.gen.Policy == ShortestPolicy {
		return "but under the shortest policy the generator takes only the shortest choices"
	}
	limit := w.gen.MaxNodes
	if limit <= 0 {
		limit = DefaultMaxNodes
	}
	return fmt.Sprintf("but past the size bound of %d nodes the generator takes only the shortest choices", limit)
}

// tooDeep is the error of a decision the depth bound refuses: n, at
// depth, takes c, whose subtree goes deeper than the bound.
func (w *treeWalker) tooDeep(n *grammar.Node, c *grammar.Tree, depth int) error {
	deepest := 0
	c.Walk(func(s *grammar.Tree, d int) bool {
		if s.Node.Kind == grammar.KindRef {
			d++
		}
		deepest = max(deepest, d)
		return true
	})
	return fmt.Errorf("depth %d exceeds the bound %d (%s takes %s at depth %d)", depth+deepest, w.gen.maxDepth(), n, c.Node, depth)
}

// regex appends the decisions of a regex terminal: with MaxDistinct, the
// RegexReuse decision Generator.regex makes once the terminal has values
// in the tree, then, for a value new to the tree, the draw's decisions.
func (w *treeWalker) regex(t *grammar.Tree) error {
	x, n, v := w.gen, t.Node, t.Value
	if x.MaxDistinct > 0 {
		if w.pools == nil {
			w.pools = map[int][]string{}
		}
		pool := w.pools[n.ID]
		if len(pool) > 0 {
			if i := slices.Index(pool, v); i >= 0 {
				w.out = append(w.out, i)
				return nil
			}
			if len(pool) >= x.MaxDistinct && !w.exact {
				return fmt.Errorf("%s takes %d distinct values, the bound is %d (%q is one too many)", n, len(pool)+1, x.MaxDistinct, clip(v))
			}
			w.out = append(w.out, len(pool))
		}
		w.pools[n.ID] = append(pool, v)
	}
	if w.regexes == nil {
		w.regexes = map[int]*regexGen{}
	}
	r := w.regexes[n.ID]
	if r == nil {
		r = newRegexGen(n.Name)
		w.regexes[n.ID] = r
	}
	d := drawDeriver{r: r, shortest: x.shortest(), maxRepeat: x.maxRepeat()}
	var dec []int
	var err error
	if w.exact {
		dec, err = d.deriveExact(v)
	} else {
		dec, err = d.derive(v)
	}
	if err != nil {
		return fmt.Errorf("regex terminal value %q of %s not derivable: %w", clip(v), n, err)
	}
	w.out = append(w.out, dec...)
	return nil
}

// drawDeriver finds the decisions with which Generator.draw writes a
// text: deriveRegex's search, offered only the options draw offers (the
// characters it draws from a class, the repetition counts within the
// bound, no \B where another branch can be drawn, only the shortest
// choices past the size bound), for a decision outside them would not
// replay through the fuzzer.
type drawDeriver struct {
	r         *regexGen
	shortest  bool
	maxRepeat int
	// anyCount and anyChar lift the bounds on counts and characters, to
	// tell which of them a text that does not derive runs into.
	anyCount, anyChar bool
	// exact (ExactChoicesOf) lifts both, tries the counts of a
	// repetition in a search linear in the text (derive's, which tries
	// each count anew, is quadratic, and its bounded counts keep it
	// short), and, with noWordBoundary, takes \B where another branch
	// could be drawn.
	exact, noWordBoundary bool

	text   []rune
	budget int
}

// derive returns the decisions, or an error saying why there are none.
func (d *drawDeriver) derive(text string) ([]int, error) {
	if !utf8.ValidString(text) {
		return nil, errors.New("it is not valid UTF-8, and the draw writes runes")
	}
	d.text = []rune(text)
	if dec, ok := d.run(); ok {
		return dec, nil
	}
	if d.budget < 0 {
		return nil, fmt.Errorf("the search gave up after %d steps", deriveBudget)
	}
	// Lift the bounds one at a time, to say which the text runs into.
	lifted := *d
	for _, lift := range []struct {
		counts, chars bool
		why           string
	}{
		{true, false, fmt.Sprintf("it needs more repetitions inside the regex than the bound %d", d.maxRepeat)},
		{true, true, "it has characters the draw does not write (a class's printable ASCII members and a few others)"},
	} {
		lifted.shortest, lifted.anyCount, lifted.anyChar = false, lift.counts, lift.chars
		_, ok := lifted.run()
		switch {
		case ok && d.shortest:
			return nil, errors.New("past the size bound (or under the shortest policy) the draw takes only its shortest choices")
		case ok:
			return nil, errors.New(lift.why)
		case lifted.budget < 0:
			return nil, errors.New("it is not derivable within the generator's bounds")
		}
	}
	return nil, errors.New("the draw cannot write it (it writes a case-folded literal such as [eE] in one case only)")
}

// deriveExact returns decisions that write text when replayed as they
// are: any count within a repetition's own bounds, any character of a
// class, and \B only where the text needs it.
func (d *drawDeriver) deriveExact(text string) ([]int, error) {
	if !utf8.ValidString(text) {
		return nil, errors.New("it is not valid UTF-8, and the draw writes runes")
	}
	d.text = []rune(text)
	d.shortest, d.anyCount, d.anyChar, d.exact = false, true, true, true
	for _, b := range []bool{false, true} {
		d.noWordBoundary = b
		if dec, ok := d.run(); ok {
			return dec, nil
		}
		if d.budget < 0 {
			return nil, fmt.Errorf("the search gave up after %d steps", d.limit())
		}
	}
	return nil, errors.New("the draw cannot write it whatever it chooses (it writes a case-folded literal such as [eE] in one case only)")
}

// limit is the search's budget: an exact search may take a few steps per
// character of a long text.
func (d *drawDeriver) limit() int {
	if d.exact {
		return max(deriveBudget, 64*len(d.text))
	}
	return deriveBudget
}

func (d *drawDeriver) run() ([]int, bool) {
	d.budget = d.limit()
	var out []int
	ok := d.match(d.r.re, 0, nil, func(pos int, dec *drawn) bool {
		if pos != len(d.text) {
			return false
		}
		out = dec.slice()
		return true
	})
	return out, ok
}

// match matches re at pos as draw would write it, with the decisions made
// so far, and calls k with each way it can end until k accepts one.
func (d *drawDeriver) match(re *syntax.Regexp, pos int, dec *drawn, k func(int, *drawn) bool) bool {
	if d.budget--; d.budget < 0 {
		return false
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return k(pos, dec)
	case syntax.OpLiteral:
		for i, r := range re.Rune {
			if pos+i >= len(d.text) || r != d.text[pos+i] {
				return false
			}
		}
		return k(pos+len(re.Rune), dec)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		if pos >= len(d.text) {
			return false
		}
		c := d.text[pos]
		if d.anyChar {
			if !inClass(re, c) {
				return false
			}
		} else {
			opts := d.r.candidates(re)
			if d.shortest {
				opts = opts[:1]
			}
			if !slices.Contains(opts, int(c)) {
				return false
			}
		}
		return k(pos+1, dec.then(int(c)))
	case syntax.OpCapture:
		return d.match(re.Sub[0], pos, dec, k)
	case syntax.OpConcat:
		var step func(i, pos int, dec *drawn) bool
		step = func(i, pos int, dec *drawn) bool {
			if i == len(re.Sub) {
				return k(pos, dec)
			}
			return d.match(re.Sub[i], pos, dec, func(p int, dc *drawn) bool { return step(i+1, p, dc) })
		}
		return step(0, pos, dec)
	case syntax.OpAlternate:
		// The branches draw offers (see draw).
		best := -1
		if d.shortest {
			for _, s := range re.Sub {
				if l := d.r.shortest(s); (best < 0 || l < best) && !(s.Op == syntax.OpNoWordBoundary && drawable(re.Sub)) {
					best = l
				}
			}
		}
		for i, s := range re.Sub {
			if s.Op == syntax.OpNoWordBoundary && drawable(re.Sub) && !d.noWordBoundary || d.shortest && d.r.shortest(s) != best {
				continue
			}
			if d.match(s, pos, dec.then(i), k) {
				return true
			}
			if d.budget < 0 {
				return false
			}
		}
		return false
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		// The counts draw offers (see draw).
		lo, hi := repeatRange(re, d.maxRepeat)
		if d.shortest {
			hi = lo
		}
		if d.anyCount && re.Op != syntax.OpQuest && (re.Op != syntax.OpRepeat || re.Max < 0) {
			hi = lo + len(d.text) - pos + 1
		}
		// A repetition beyond lo that matches nothing can be left out,
		// so more than one per remaining character never helps.
		hi = min(hi, lo+len(d.text)-pos+1)
		if d.exact {
			return d.repeat(re.Sub[0], lo, hi, pos, dec, k)
		}
		for c := lo; c <= hi; c++ {
			var rep func(i, pos int, dec *drawn) bool
			rep = func(i, pos int, dec *drawn) bool {
				if i == c {
					return k(pos, dec)
				}
				return d.match(re.Sub[0], pos, dec, func(p int, dc *drawn) bool { return rep(i+1, p, dc) })
			}
			if rep(0, pos, dec.then(c)) {
				return true
			}
			if d.budget < 0 {
				return false
			}
		}
		return false
	}
	return false
}

// repeat matches lo to hi repetitions of sub at pos, trying fewer first
// as match does, but in one pass: after each repetition it tries the
// count so far with k, then matches one more, so that a repetition of
// n characters costs about n steps rather than n²/2. The count comes
// before the repetitions' decisions, as draw asks for it: its slot is
// reserved and set before each call of k: every path to a result passes
// through that call, and nothing reads the slot but a result.
func (d *drawDeriver) repeat(sub *syntax.Regexp, lo, hi, pos int, dec *drawn, k func(int, *drawn) bool) bool {
	count := dec.then(lo)
	var rep func(i, pos int, dec *drawn) bool
	rep = func(i, pos int, dec *drawn) bool {
		if i >= lo {
			count.v = i
			if k(pos, dec) {
				return true
			}
			if d.budget < 0 {
				return false
			}
		}
		if i >= hi {
			return false
		}
		return d.match(sub, pos, dec, func(p int, dc *drawn) bool { return rep(i+1, p, dc) })
	}
	return rep(0, pos, count)
}

// drawn is one decision of a partial derivation, linked to those
// before it, so that the search's paths share their common beginnings:
// a decision costs one cell whatever the length of the path.
type drawn struct {
	v    int
	prev *drawn
	n    int // decisions up to this one
}

// then returns the path dec followed by v.
func (dec *drawn) then(v int) *drawn {
	n := 1
	if dec != nil {
		n = dec.n + 1
	}
	return &drawn{v: v, prev: dec, n: n}
}

// slice returns the path's decisions in order.
func (dec *drawn) slice() []int {
	if dec == nil {
		return nil
	}
	out := make([]int, dec.n)
	for ; dec != nil; dec = dec.prev {
		out[dec.n-1] = dec.v
	}
	return out
}
