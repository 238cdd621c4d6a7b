package fuzz

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// Seq is the parameter sequence a generated input is read from: Zest's
// "untyped" byte sequence, with one stream of raw values per kind of
// decision. A decision (an Alt's alternative, a Quant's count, a regex's
// character...) reads the next value of the stream of its node and kind,
// and takes the option that value selects, modulo the number of options.
//
// Keeping a stream per kind of decision, rather than one sequence for
// all, is what makes a mutation local: when a changed value makes a
// different alternative grow a bigger or smaller subtree, the decisions
// after it still read their own streams at the same places, so they
// decide as before, where in a single sequence every later value would
// be read by another decision.
//
// A stream that runs out is extended from Salt, deterministically: the
// k-th value of a stream is a hash of the salt, the stream and k. So a
// Seq describes one input however far its generation reads, a mutated
// copy (which keeps its parent's salt) differs only where it was changed,
// and a fresh salt is a fresh random input.
type Seq struct {
	Salt    uint64
	Streams map[Stream][]uint32
}

// Stream identifies a kind of decision: the graph node deciding, what it
// decides, and for a regex, which part of it.
type Stream struct {
	Node int32
	Kind synth.PointKind
	Sub  int32
}

// slot is one value read by a realization: stream s's k-th.
type slot struct {
	s Stream
	k int
}

// Derivation is an input realized from a Seq.
type Derivation struct {
	Tree *grammar.Tree
	Text []byte
	// Choices are the decisions taken, in order: the flat choice
	// sequence that synth.Replay replays to the same tree with the same
	// generator bounds.
	Choices []int
	// Seq holds exactly the values the realization read, extensions
	// included, so that mutating it changes values that mattered.
	Seq *Seq
	// slots lists what the realization read, in order: mutations pick
	// spans of consecutive decisions from it.
	slots []slot
}

// realizer generates inputs from sequences with a synth.Generator.
type realizer struct {
	gen *synth.Generator
	c   seqChooser
}

func newRealizer(g *grammar.Graph, b Bounds) *realizer {
	r := &realizer{}
	r.gen = synth.NewGenerator(g, &r.c, synth.RandomPolicy)
	r.gen.MaxDepth, r.gen.MaxRepeat, r.gen.MaxNodes = b.MaxDepth, b.MaxRepeat, b.MaxNodes
	return r
}

// realize generates the input seq describes.
func (r *realizer) realize(seq *Seq) *Derivation {
	r.c = seqChooser{in: seq, out: &Seq{Salt: seq.Salt, Streams: map[Stream][]uint32{}}}
	t := r.gen.Generate()
	return &Derivation{Tree: t, Text: []byte(t.String()), Choices: r.c.choices, Seq: r.c.out, slots: r.c.slots}
}

// seqChooser reads decisions from a Seq and records what it read.
type seqChooser struct {
	in, out *Seq
	choices []int
	slots   []slot
}

func (c *seqChooser) Choose(p synth.Point) int {
	s := Stream{Node: int32(p.Node.ID), Kind: p.Kind, Sub: int32(p.Sub)}
	k := len(c.out.Streams[s])
	var raw uint32
	if vs := c.in.Streams[s]; k < len(vs) {
		raw = vs[k]
	} else {
		raw = extension(c.in.Salt, s, k)
	}
	c.out.Streams[s] = append(c.out.Streams[s], raw)
	c.slots = append(c.slots, slot{s, k})
	v := p.Options[int(raw%uint32(len(p.Options)))]
	c.choices = append(c.choices, v)
	return v
}

// extension is the k-th value of stream s past its recorded values: a
// hash (SplitMix64's finalizer) of the salt, the stream and k.
func extension(salt uint64, s Stream, k int) uint32 {
	x := salt ^ uint64(uint32(s.Node))<<32 ^ uint64(s.Kind)<<24 ^ uint64(uint32(s.Sub))<<8 ^ 0x9e3779b97f4a7c15
	x ^= uint64(k) * 0xbf58476d1ce4e5b9
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return uint32(x)
}

// mutator changes sequences the way Zest does: a geometric number of
// spans of consecutive decisions, each of geometric length, get random
// values.
type mutator struct {
	r                     *rand.Rand
	meanSpans, meanLength float64
}

// geometric draws from a geometric distribution on 1, 2, ... with the
// given mean.
func (m *mutator) geometric(mean float64) int {
	if mean <= 1 {
		return 1
	}
	u := m.r.Float64()
	return 1 + int(math.Log(1-u)/math.Log(1-1/mean))
}

// mutate returns a copy of d's sequence with spans of the decisions d
// made replaced by random values; a derivation that made no decision
// gets a fresh salt.
func (m *mutator) mutate(d *Derivation) *Seq {
	out := &Seq{Salt: d.Seq.Salt, Streams: make(map[Stream][]uint32, len(d.Seq.Streams))}
	for s, vs := range d.Seq.Streams {
		out.Streams[s] = slices.Clone(vs)
	}
	if len(d.slots) == 0 {
		out.Salt = m.r.Uint64()
		return out
	}
	for range m.geometric(m.meanSpans) {
		at := m.r.IntN(len(d.slots))
		for _, sl := range d.slots[at:min(len(d.slots), at+m.geometric(m.meanLength))] {
			out.Streams[sl.s][sl.k] = m.r.Uint32()
		}
	}
	return out
}
