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
	lo, hi, ok := repeatBounds(re)
	return ok && v >= lo && (hi < 0 || v <= hi)
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
	gen   *Generator
	exact bool
	out   []int
	pools map[int][]string
}

// walk reads the decisions of t's subtree. It is one switch over the
// node kinds, case for case the generator's expansion it inverts, kept
// whole so that the two can be read side by side.
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
	d := drawDeriver{r: x.regexGen(n), shortest: x.shortest(), maxRepeat: x.maxRepeat()}
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
