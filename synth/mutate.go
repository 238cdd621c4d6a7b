package synth

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Derivation is an input generated from a choice sequence: its tree and
// text, the choices actually made (the sequence as replayed, repaired and
// extended), and the span of choices each symbol's subtree made.
type Derivation struct {
	Tree    *grammar.Tree
	Text    string
	Choices []int
	Spans   []Span // in pre-order
}

// Span is the part of a derivation's choices that one symbolic node's
// subtree made: Choices[Start:End].
type Span struct {
	Node       *grammar.Node
	Start, End int
}

// Mutator makes new inputs out of the choice sequences of old ones, the
// way Zest mutates a parametric generator's input: a few spans of
// choices replaced by random values, or a symbol's subtree replaced by
// the subtree of the same symbol from another input. Every result is
// realized by the grammar's own generator, so it is a derivation of the
// grammar whatever the mutation did: a value a decision does not offer is
// read modulo the number of its options (Zest's interpretation of raw
// values), and a sequence that runs out is extended with seeded random
// choices. A Mutator is deterministic for a seed and not safe for
// concurrent use.
//
// The targeting loop (package targeting) mutates with a Mutator; package
// fuzz has a mutator of its own, and the two share only their geometric
// draw (Geometric) and default means. They differ because their inputs
// do:
//
//   - A Mutator's sequence is the flat list of the decisions' values, as
//     a Recorder records them and as the solver and ChoicesOf make them,
//     which is the form in which the targeting loop holds its inputs; and
//     Splice needs a symbol's subtree to be one span of choices, which it
//     is only in a flat sequence. The fuzzer's sequence has a stream of
//     raw selectors per kind of decision, so that a change does not
//     shift the decisions after it (package fuzz says more), and the
//     fuzzer does not splice.
//   - Past its end, a Mutator's sequence is extended with draws from
//     Rand, which mutation draws from too; the fuzzer's, with a hash of
//     the mutant's own salt.
//   - Mutate draws a span's length anew at every step of the span (its
//     loop condition draws), where the fuzzer draws it once: a step
//     goes on with probability (1-1/MeanSpanLength)^k after k steps, so
//     spans are shorter than MeanSpanLength (2.4 on average for 4). It
//     has always done so, and the targeting loop's results for a seed
//     depend on it; TestMutatorDraws pins the draws.
type Mutator struct {
	G *grammar.Graph
	// Bounds of the generator that realizes sequences: they must be those
	// the sequences were made with for unchanged sequences to replay
	// exactly (0 means the generator's defaults).
	MaxDepth, MaxRepeat, MaxNodes int
	// MeanSpans is the mean of the geometric distribution of the number
	// of spans a mutation changes, MeanSpanLength that of each step's
	// draw of whether a span goes on (Mutate says how); 0 means
	// DefaultMeanSpans and DefaultMeanSpanLength.
	MeanSpans, MeanSpanLength float64
	// Rand is the source of every random draw: NewMutator seeds one, and
	// a caller that keeps several independent streams passes its own.
	Rand *rand.Rand

	gen *Generator
}

// NewMutator returns a mutator of g's choice sequences seeded with seed.
func NewMutator(g *grammar.Graph, seed uint64) *Mutator {
	return &Mutator{G: g, Rand: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// DefaultMeanSpans and DefaultMeanSpanLength are Zest's means of the
// number of spans a mutation changes and of their lengths, the defaults
// of Mutator and of package fuzz's mutator.
const (
	DefaultMeanSpans      = 2
	DefaultMeanSpanLength = 4
)

// Geometric draws from a geometric distribution on 1, 2, ... with the
// given mean, by inverting one r.Float64(); a mean at most 1 gives 1
// without a draw. It is the draw of Zest's span mutation, Mutator's and
// package fuzz's both.
func Geometric(r *rand.Rand, mean float64) int {
	if mean <= 1 {
		return 1
	}
	u := r.Float64()
	return 1 + int(math.Log(1-u)/math.Log(1-1/mean))
}

// Mutate returns a copy of choices with a geometric number of spans
// replaced by random values (31 bits, which Realize reads modulo a
// decision's options where the decision does not offer them). A span
// starts at a uniform position and goes on while its length so far is
// less than a geometric draw with mean MeanSpanLength, drawn anew at
// every step (Mutator says why). An empty sequence gets one random
// value.
func (m *Mutator) Mutate(choices []int) []int {
	out := slices.Clone(choices)
	if len(out) == 0 {
		return append(out, int(m.Rand.Int32()))
	}
	spans, length := m.MeanSpans, m.MeanSpanLength
	if spans <= 0 {
		spans = DefaultMeanSpans
	}
	if length <= 0 {
		length = DefaultMeanSpanLength
	}
	for range Geometric(m.Rand, spans) {
		at := m.Rand.IntN(len(out))
		// The condition draws at every step, the failing one included.
		for i := at; i < min(len(out), at+Geometric(m.Rand, length)); i++ {
			out[i] = int(m.Rand.Int32())
		}
	}
	return out
}

// Splice returns a's choices with the subtree of one of its symbols
// replaced by the subtree of the same symbol (a rule, or a regular
// terminal) in b; if the two share no symbol with decisions, it mutates
// a instead.
func (m *Mutator) Splice(a, b *Derivation) []int {
	byKey := map[spliceKey][]Span{}
	for _, s := range b.Spans {
		if s.End > s.Start {
			k := keyOf(s.Node)
			byKey[k] = append(byKey[k], s)
		}
	}
	var from []Span
	for _, s := range a.Spans {
		if s.End > s.Start && len(byKey[keyOf(s.Node)]) > 0 {
			from = append(from, s)
		}
	}
	if len(from) == 0 {
		return m.Mutate(a.Choices)
	}
	sa := from[m.Rand.IntN(len(from))]
	cands := byKey[keyOf(sa.Node)]
	sb := cands[m.Rand.IntN(len(cands))]
	return slices.Concat(a.Choices[:sa.Start], b.Choices[sb.Start:sb.End], a.Choices[sa.End:])
}

type spliceKey struct {
	kind grammar.Kind
	name string
}

func keyOf(n *grammar.Node) spliceKey { return spliceKey{n.Kind, n.Name} }

// Realize generates the input a choice sequence describes.
func (m *Mutator) Realize(choices []int) *Derivation {
	c := &realizer{prefix: choices, r: m.Rand}
	if m.gen == nil {
		m.gen = &Generator{G: m.G, Policy: RandomPolicy}
	}
	gen := m.gen
	gen.Chooser, gen.MaxDepth, gen.MaxRepeat, gen.MaxNodes = c, m.MaxDepth, m.MaxRepeat, m.MaxNodes
	var spans []Span
	var open []int // indices into spans of the symbols being expanded
	gen.Placed = func(stack []int) {
		open = append(open, len(spans))
		spans = append(spans, Span{Node: m.G.Node(stack[len(stack)-1]), Start: len(c.choices)})
	}
	gen.Finished = func(int) {
		spans[open[len(open)-1]].End = len(c.choices)
		open = open[:len(open)-1]
	}
	t := gen.Generate()
	return &Derivation{Tree: t, Text: t.String(), Choices: c.choices, Spans: spans}
}

// realizer replays a choice sequence, repairing values a decision does
// not offer, and draws at random past its end.
type realizer struct {
	prefix  []int
	r       *rand.Rand
	choices []int
}

func (c *realizer) Choose(p Point) int {
	var v int
	if n := len(c.choices); n < len(c.prefix) {
		v = c.prefix[n]
		if !offers(p, v) {
			k := v % len(p.Options)
			if k < 0 {
				k += len(p.Options)
			}
			v = p.Options[k]
		}
	} else {
		v = p.Options[c.r.IntN(len(p.Options))]
	}
	c.choices = append(c.choices, v)
	return v
}

// offers reports whether v is a choice the decision can take: one of its
// options, or, for a rule's alternative or repetition count, any the
// grammar allows (the depth bound may leave it out of the options where
// the sequence was recorded at another depth).
func offers(p Point, v int) bool {
	switch p.Kind {
	case Alternative:
		return v >= 0 && v < len(p.Node.Children)
	case Repetition:
		return v >= p.Node.Min && (p.Node.Max == grammar.Unbounded || v <= p.Node.Max) && v <= slices.Max(p.Options)
	}
	return slices.Contains(p.Options, v)
}
