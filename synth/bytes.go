package synth

import (
	"context"
	"fmt"
	"regexp/syntax"
	"slices"
	"sync"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
)

// ByteGenerator turns any byte string into an input of a grammar, the way
// Zest's parametric generators do: the bytes are read as the generator's
// choices, so that every byte string yields a derivation of the grammar
// and a fuzzer's byte mutations become structural mutations. It is what
// makes a Go fuzz target grammar-aware:
//
//	gen := synth.NewByteGenerator(g)
//	f.Fuzz(func(t *testing.T, data []byte) {
//		in := gen.FromBytes(data) // an input of g, whatever data is
//		...
//	})
//
// Each decision that has more than one option reads one byte (two where
// it has more than 256 options, and so on), big-endian, modulo its number
// of options: byte 0 takes the first option, which for a repetition is
// the fewest repetitions. A decision with one option reads nothing. The
// first decision that finds the bytes run out takes its shortest option,
// and every decision after it the shortest choice, so the input is
// completed the shortest way and stays finite; while bytes are left, the
// generator's bounds hold (MaxDepth rule expansions, MaxRepeat
// repetitions of an unbounded quantifier, and past MaxNodes tree nodes
// the shortest choices). The input is thus a deterministic function of
// the bytes it used: bytes after them, or cutting them off, change
// nothing. No bytes give a shortest input of the grammar.
//
// A ByteGenerator is safe for concurrent use; calls are serialized. It
// runs the same code for the same bytes whatever it ran before (its
// regex terminals prepared ahead, its memory reused the same way), so
// that Go's fuzzer, which looks for inputs that run code in new ways,
// does not take the generator's own history for new behaviour.
type ByteGenerator struct {
	g *grammar.Graph
	// Bounds of the generator (0 means the defaults: DefaultMaxDepth,
	// DefaultMaxRepeat, DefaultMaxNodes). Set them before the first use.
	MaxDepth, MaxRepeat, MaxNodes int
	// Constraints, if set, are where clauses (of g) that the inputs keep:
	// the tree the bytes describe is repaired by a Satisfier made anew,
	// with the same seed, for every call, so that the input is still a
	// function of the bytes alone. A tree the search cannot repair within
	// its limits is returned as the bytes made it. Repairs cost time (a
	// millisecond or more on grammars with many clauses), and a repaired
	// input may differ from the bytes' tree where the bytes did not
	// decide. Set it before the first use.
	Constraints *constraint.Set

	mu  sync.Mutex
	gen *Generator
	c   byteChooser
}

// NewByteGenerator returns a generator of g's inputs from byte strings.
func NewByteGenerator(g *grammar.Graph) *ByteGenerator {
	b := &ByteGenerator{g: g}
	b.gen = &Generator{G: g, Chooser: &b.c, Policy: RandomPolicy}
	b.gen.prepare()
	return b
}

// FromBytes returns the input of the grammar that data describes.
func (b *ByteGenerator) FromBytes(data []byte) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	// The tree is not handed out: its memory is reused next time.
	b.gen.a.reset()
	t := b.generate(data)
	b.repair(t)
	return []byte(t.String())
}

// repairSeed seeds the Satisfier of every call: the repair depends on
// the tree alone.
const repairSeed = 0xb17e5

// repair repairs t in place to satisfy b.Constraints, if set, and
// reports whether it changed t.
func (b *ByteGenerator) repair(t *grammar.Tree) bool {
	if b.Constraints == nil || b.Constraints.Len() == 0 {
		return false
	}
	sat := NewSatisfier(b.Constraints, repairSeed, b.gen)
	_, st := sat.Satisfy(context.Background(), t)
	return st.Steps > 0
}

// Derive returns the derivation data describes (its tree, text and the
// choices made, which Replay regenerates it from), and how many bytes of
// data it used.
//
// With Constraints, the derivation is the repaired tree's, and its
// choices are read off that tree (ChoicesOf, or ExactChoicesOf where the
// repair left the bounds); they are nil if neither can read them.
func (b *ByteGenerator) Derive(data []byte) (d *Derivation, used int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gen.a = arena{} // the tree is handed out: fresh memory
	t := b.generate(data)
	choices := b.c.choices
	if b.repair(t) {
		x := b.bounded()
		var err error
		if choices, err = x.ChoicesOf(t); err != nil {
			choices, _ = x.ExactChoicesOf(t)
		}
	}
	return &Derivation{Tree: t, Text: t.String(), Choices: choices}, b.c.pos
}

func (b *ByteGenerator) generate(data []byte) *grammar.Tree {
	b.gen.MaxDepth, b.gen.MaxRepeat, b.gen.MaxNodes = b.MaxDepth, b.MaxRepeat, b.MaxNodes
	b.c = byteChooser{g: b.g, data: data}
	return b.gen.Generate()
}

// prepare builds the generators of all regex terminals, with their
// candidate characters and shortest lengths, so that generating runs the
// same code whatever was generated before.
func (x *Generator) prepare() {
	if x.regexes == nil {
		x.regexes = map[int]*regexGen{}
	}
	for _, n := range x.G.Nodes {
		if n.Kind != grammar.KindRegex || x.regexes[n.ID] != nil {
			continue
		}
		r := newRegexGen(n.Name)
		var walk func(re *syntax.Regexp)
		walk = func(re *syntax.Regexp) {
			switch re.Op {
			case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
				r.candidates(re)
			}
			r.shortest(re)
			for _, s := range re.Sub {
				walk(s)
			}
		}
		walk(r.re)
		x.regexes[n.ID] = r
	}
}

// byteChooser reads decisions from bytes. The first decision that
// finds no byte left takes its shortest option, and from then on the
// generator offers only shortest choices (closing).
type byteChooser struct {
	g       *grammar.Graph
	data    []byte
	pos     int
	out     bool // a decision found no byte left
	choices []int
}

func (c *byteChooser) closing() bool { return c.out }

func (c *byteChooser) Choose(p Point) int {
	n := len(p.Options)
	var choice int
	switch {
	case n == 1:
		choice = p.Options[0]
	case c.out || c.pos >= len(c.data):
		c.out = true
		choice = c.shortest(p)
	default:
		var v uint64
		for k := n - 1; k > 0; k >>= 8 {
			v <<= 8
			if c.pos < len(c.data) {
				v |= uint64(c.data[c.pos])
				c.pos++
			}
		}
		choice = p.Options[v%uint64(n)]
	}
	c.choices = append(c.choices, choice)
	return choice
}

// shortest is the option of p with the shortest completion: the
// alternative with the fewest expansions, the fewest repetitions (options
// are increasing), or else the first.
func (c *byteChooser) shortest(p Point) int {
	if p.Kind != Alternative {
		return p.Options[0]
	}
	best := p.Options[0]
	for _, o := range p.Options[1:] {
		if c.g.Shortest(p.Node.Children[o]) < c.g.Shortest(p.Node.Children[best]) {
			best = o
		}
	}
	return best
}

// BytesOf returns bytes from which FromBytes makes exactly the tree t: the
// seed a grammar-aware fuzz target needs to start from an input that was
// not made from bytes (a file of a corpus, a generated or targeted input).
// t is a complete tree of the grammar, as (*grammar.Graph).Parse returns.
// Each decision of t is written as FromBytes reads it: the index of the
// choice among the decision's options, in as many big-endian bytes as the
// options need, nothing for a decision with one option.
//
// It fails where the generator cannot make t within b's bounds (see
// ChoicesOf: too many repetitions, too deep, a character the draw does
// not write) and says which decision. With Constraints, FromBytes makes
// t again only if t keeps them: one that breaks them comes back
// repaired.
func (b *ByteGenerator) BytesOf(t *grammar.Tree) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	x := b.bounded()
	choices, err := x.ChoicesOf(t)
	if err != nil {
		return nil, err
	}
	w := &byteWriter{choices: choices}
	g := x.bounded(w)
	got := g.Generate().String()
	if w.err != nil {
		return nil, w.err
	}
	if want := t.String(); got != want {
		// ChoicesOf checked its replay; a difference here is a bug.
		return nil, fmt.Errorf("the bytes of the tree make another input (%q, want %q)", clip(got), clip(want))
	}
	return w.out, nil
}

// bounded is a random generator of b's grammar with b's bounds, which
// reads and replays the decisions b's trees take.
func (b *ByteGenerator) bounded() *Generator {
	return &Generator{G: b.g, Policy: RandomPolicy, MaxDepth: b.MaxDepth, MaxRepeat: b.MaxRepeat, MaxNodes: b.MaxNodes}
}

// byteWriter replays choices and writes each as byteChooser reads it.
type byteWriter struct {
	choices []int
	next    int
	out     []byte
	err     error
}

func (w *byteWriter) Choose(p Point) int {
	if w.err != nil || w.next >= len(w.choices) {
		if w.err == nil {
			w.err = fmt.Errorf("the decisions ran out at a %s decision of %s", p.Kind, p.Node)
		}
		return p.Options[0]
	}
	v := w.choices[w.next]
	w.next++
	n := len(p.Options)
	if n == 1 {
		return v
	}
	i := slices.Index(p.Options, v)
	if i < 0 {
		w.err = fmt.Errorf("decision %d (%s of %s) is %d, not among its options", w.next-1, p.Kind, p.Node, v)
		return p.Options[0]
	}
	width := 0
	for k := n - 1; k > 0; k >>= 8 {
		width++
	}
	for k := width - 1; k >= 0; k-- {
		w.out = append(w.out, byte(i>>(8*k)))
	}
	return v
}
