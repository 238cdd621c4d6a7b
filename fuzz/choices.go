package fuzz

import (
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// A sequence is the parameter sequence a generated input is read from:
// Zest's "untyped" byte sequence, with one stream of raw values per kind
// of decision. A decision (an Alt's alternative, a Quant's count, a
// regex's character...) reads the next value of the stream of its node
// and kind, and takes the option that value selects, modulo the number
// of options.
//
// Keeping a stream per kind of decision, rather than one sequence for
// all, is what makes a mutation local: when a changed value makes a
// different alternative grow a bigger or smaller subtree, the decisions
// of other kinds after it still read their own streams at the same
// places, so they decide as before, where in a single sequence every
// later value would be read by another decision.
//
// A stream that runs out is extended from the salt, deterministically:
// the k-th value of a stream is a hash of the salt, the stream and k. So
// a sequence describes one input however far its generation reads, and a
// fresh salt is a fresh random input. A kept input's sequence holds every
// value its realization read, extensions included, so it replays without
// its salt; a mutant gets a salt of its own, and differs from its parent
// where it was changed and where it reads past its parent's values (a
// repetition grown by the mutation), which it draws afresh as Zest does.
// With the parent's salt instead, every mutant that grew the same
// repetition grew it with the same values: of 50 mutants, all that
// added an element to an empty list added the same element.
//
// A raw value with exactBit set is not a selector but the decision's
// value itself, taken whether or not it is among the options the
// generator offers under its bounds: that is how a seed keeps a file's
// decisions where the file breaks a bound (a longer repetition, a deeper
// nesting, a newline the draw does not write). Only seeds bring such
// values in (seqOf makes them, for values the grammar allows: see
// synth.Generator.Valid); random, mutated and extended values never
// carry the bit, so a mutant's exact values are those it kept from its
// seed.
type sequence struct {
	salt    uint64
	streams [][]uint32 // by stream id (streams.id)
	// seed is set on a sequence made from a seed's choices and on its
	// realization's record, not on mutants: a seed's exact values are
	// all taken, a mutant's all but one kind (see seqChooser.exact).
	seed bool
}

// exactBit marks a raw value as exact: raw&^exactBit is the decision's
// value, not an index into its options. The decisions' values (child
// indexes, counts, runes) all fit in the bits below it.
const exactBit = 1 << 31

// streamKey identifies a kind of decision: the graph node deciding, what
// it decides, and for a regex, which part of it.
type streamKey uint64

func keyOf(p synth.Point) streamKey {
	return streamKey(uint64(uint32(p.Node.ID))<<32 | uint64(p.Kind)<<24 | uint64(uint32(p.Sub)&0xffffff))
}

// streams numbers the kinds of decision a campaign meets, densely, so
// that sequences index their streams instead of hashing keys. One
// numbering serves all of a campaign's workers, for a sequence one
// worker made is realized by another: its mutex is taken only when a
// worker meets a kind of decision it has not met before (streamCache).
type streams struct {
	mu   sync.Mutex
	ids  map[streamKey]int32
	keys []streamKey // by id
}

func newStreams() *streams { return &streams{ids: map[streamKey]int32{}} }

func (s *streams) id(k streamKey) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.ids[k]
	if !ok {
		id = int32(len(s.keys))
		s.ids[k] = id
		s.keys = append(s.keys, k)
	}
	return id
}

// streamCache is one worker's copy of the numbering it has used: the
// kinds of decision are few (the grammar's nodes and kinds), so after
// the first inputs every lookup is a hit, without the lock.
type streamCache struct {
	shared *streams
	ids    map[streamKey]int32
}

func (c *streamCache) id(k streamKey) int32 {
	id, ok := c.ids[k]
	if !ok {
		id = c.shared.id(k)
		c.ids[k] = id
	}
	return id
}

// slot is one value read by a realization: stream id's k-th.
type slot struct {
	id, k int32
}

// derivation is an input realized from a sequence.
type derivation struct {
	tree *grammar.Tree
	text []byte
	// choices are the decisions taken, in order: the flat choice
	// sequence that synth.Replay replays to the same tree with the same
	// generator bounds.
	choices []int
	// seq holds exactly the values the realization read, extensions
	// included, so that mutating it changes values that mattered.
	seq *sequence
	// slots lists what the realization read, in order: mutations pick
	// spans of consecutive decisions from it.
	slots []slot
}

// realizer generates inputs from sequences with a synth.Generator.
type realizer struct {
	gen *synth.Generator
	ids *streamCache
	c   seqChooser
}

func newRealizer(g *grammar.Graph, b Bounds, ids *streams) *realizer {
	r := &realizer{ids: &streamCache{shared: ids, ids: map[streamKey]int32{}}}
	r.c.ids = r.ids
	r.gen = synth.NewGenerator(g, &r.c, synth.RandomPolicy)
	b.configure(r.gen)
	return r
}

// realize generates the input seq describes.
func (r *realizer) realize(seq *sequence) *derivation {
	c := &r.c
	c.in = seq
	c.out = &sequence{salt: seq.salt, streams: make([][]uint32, len(seq.streams)), seed: seq.seed}
	for i, vs := range seq.streams {
		c.out.streams[i] = make([]uint32, 0, len(vs))
	}
	c.choices = make([]int, 0, len(c.choices))
	c.slots = make([]slot, 0, len(c.slots))
	t := r.gen.Generate()
	return &derivation{tree: t, text: []byte(t.String()), choices: c.choices, seq: c.out, slots: c.slots}
}

// seqChooser reads decisions from a sequence and records what it read.
type seqChooser struct {
	ids     *streamCache
	in, out *sequence
	choices []int
	slots   []slot
}

func (c *seqChooser) Choose(p synth.Point) int {
	key := keyOf(p)
	id := c.ids.id(key)
	for int(id) >= len(c.out.streams) {
		c.out.streams = append(c.out.streams, nil)
	}
	k := len(c.out.streams[id])
	var raw uint32
	if int(id) < len(c.in.streams) && k < len(c.in.streams[id]) {
		raw = c.in.streams[id][k]
	} else {
		raw = extension(c.in.salt, key, k)
	}
	c.out.streams[id] = append(c.out.streams[id], raw)
	c.slots = append(c.slots, slot{id, int32(k)})
	v, ok := c.exact(p, raw)
	if !ok {
		v = p.Options[int((raw&^exactBit)%uint32(len(p.Options)))]
	}
	c.choices = append(c.choices, v)
	return v
}

// exact returns the value an exact raw value holds, and whether to take
// it. An exact value was valid for the grammar where the seed made it
// (seqOf checks), and stays valid wherever it is read again after a
// mutation has moved the decisions around it, because its stream
// belongs to one node and one kind of decision, and each kind's values
// mean the same wherever that node decides:
//
//   - Alternative: a child index of that Alt. Taken past the depth bound
//     it makes the tree deeper than the bound; but each of a stream's
//     values is read once, and past them the generator keeps to its
//     bounds again, so generation still ends.
//   - Repetition, RegexRepetition: a count within that Quant's or regex
//     part's own minimum and maximum.
//   - RegexChar: a rune of that class.
//   - RegexReuse: an index into the terminal's values so far; where the
//     mutant has fewer, the generator draws a new value instead.
//   - RegexAlternative: a branch of that alternation, which is valid
//     except for \B: the draw offers \B only where nothing else can be
//     drawn, for whether it holds depends on the character after it,
//     which a mutation may change (two words glued together). A seed
//     needs \B where its text has it (synth.Generator.ExactChoicesOf takes it
//     only then), so a seed's own realization takes every exact value,
//     and a mutant takes an exact regex branch only when it is among the
//     options, and otherwise the option its value selects by the modulo
//     rule. The branch not offered is \B, or a longer branch past the
//     size bound, where the modulo rule's shorter one is as good.
func (c *seqChooser) exact(p synth.Point, raw uint32) (int, bool) {
	if raw&exactBit == 0 {
		return 0, false
	}
	v := int(raw &^ exactBit)
	if p.Kind == synth.RegexAlternative && !c.in.seed && !slices.Contains(p.Options, v) {
		return 0, false
	}
	return v, true
}

// extension is the k-th value of stream key past its recorded values: a
// hash (SplitMix64's finalizer) of the salt, the stream and k. It has 31
// bits: an extended value is a selector, never an exact value.
func extension(salt uint64, key streamKey, k int) uint32 {
	x := salt ^ uint64(key)*0x9e3779b97f4a7c15 ^ uint64(k)*0xbf58476d1ce4e5b9
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return uint32(x) >> 1
}

// mutator changes sequences the way Zest does: a geometric number of
// spans of consecutive decisions, each of geometric length, get random
// values. It is not synth.Mutator, with which it shares the geometric
// draw (synth.Geometric) and Zest's means (synth.DefaultMeanSpans and
// DefaultMeanSpanLength, which Options' zeros mean), because it mutates
// another representation: the per-kind streams of raw selectors that a
// sequence holds and a derivation's slots index, not a flat choice
// sequence (synth.Mutator's documentation lists the differences). It
// draws a span's length once, where synth.Mutator draws it anew at every
// step, so its spans' lengths are geometric with the mean it is given
// (cut at the last decision).
type mutator struct {
	r                     *rand.Rand
	meanSpans, meanLength float64
}

// mutate returns a copy of the sequence a derivation read with spans of
// its decisions replaced by random values, and a fresh salt (the
// sequence type says why). The copy is not a seed's (sequence.seed), and the
// exact values it keeps from its parent are taken as seqChooser.exact
// says.
func (m *mutator) mutate(seq *sequence, slots []slot) *sequence {
	out := &sequence{salt: m.r.Uint64(), streams: make([][]uint32, len(seq.streams))}
	if len(slots) == 0 {
		return out
	}
	copied := make([]bool, len(seq.streams))
	for range synth.Geometric(m.r, m.meanSpans) {
		at := m.r.IntN(len(slots))
		for _, sl := range slots[at:min(len(slots), at+synth.Geometric(m.r, m.meanLength))] {
			if !copied[sl.id] {
				// Streams are copied on write: the others are shared
				// with the parent, which never changes them.
				out.streams[sl.id] = append([]uint32(nil), seq.streams[sl.id]...)
				copied[sl.id] = true
			}
			// 31 bits, so that a random value is never exact
			// (exactBit): it selects among the options. (The same
			// bits as synth.Mutator's int(r.Int32()).)
			out.streams[sl.id][sl.k] = m.r.Uint32() >> 1
		}
	}
	for i, vs := range seq.streams {
		if !copied[i] {
			out.streams[i] = vs
		}
	}
	return out
}
