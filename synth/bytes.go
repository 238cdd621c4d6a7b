package synth

import (
	"sync"

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
// A ByteGenerator is safe for concurrent use.
type ByteGenerator struct {
	g *grammar.Graph
	// Bounds of the generator (0 means the defaults: DefaultMaxDepth,
	// DefaultMaxRepeat, DefaultMaxNodes). Set them before the first use.
	MaxDepth, MaxRepeat, MaxNodes int

	pool sync.Pool // of *byteGen
}

type byteGen struct {
	gen *Generator
	c   byteChooser
}

// NewByteGenerator returns a generator of g's inputs from byte strings.
func NewByteGenerator(g *grammar.Graph) *ByteGenerator {
	return &ByteGenerator{g: g}
}

// FromBytes returns the input of the grammar that data describes.
func (b *ByteGenerator) FromBytes(data []byte) []byte {
	d, _ := b.Derive(data)
	return []byte(d.Text)
}

// Derive returns the derivation data describes (its tree, text and the
// choices made, which Replay regenerates it from), and how many bytes of
// data it used.
func (b *ByteGenerator) Derive(data []byte) (d *Derivation, used int) {
	bg, _ := b.pool.Get().(*byteGen)
	if bg == nil {
		bg = &byteGen{}
		bg.gen = &Generator{G: b.g, Chooser: &bg.c, Policy: RandomPolicy}
	}
	defer b.pool.Put(bg)
	bg.gen.MaxDepth, bg.gen.MaxRepeat, bg.gen.MaxNodes = b.MaxDepth, b.MaxRepeat, b.MaxNodes
	bg.c = byteChooser{g: b.g, data: data}
	t := bg.gen.Generate()
	d = &Derivation{Tree: t, Text: t.String(), Choices: bg.c.choices}
	used = bg.c.pos
	bg.c = byteChooser{}
	return d, used
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
