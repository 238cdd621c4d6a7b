package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/arbor-fuzz/arbor/grammar"
)

// PointKind says what a decision is about.
type PointKind uint8

const (
	Alternative      PointKind = iota // which child of an Alt: a child index
	Repetition                        // how many repetitions of a Quant: a count
	RegexAlternative                  // which branch of a regex alternation: an index
	RegexRepetition                   // how many repetitions inside a regex: a count
	RegexChar                         // which character of a regex class: a rune
	// RegexReuse is which of a regex terminal's values already in the
	// tree it takes again: an index into them, or their number to draw a
	// new one. Only generators with a MaxDistinct bound make it.
	RegexReuse
)

var pointKindNames = [...]string{"alternative", "repetition", "regex-alternative", "regex-repetition", "regex-char", "regex-reuse"}

func (k PointKind) String() string {
	if int(k) < len(pointKindNames) {
		return pointKindNames[k]
	}
	return fmt.Sprintf("PointKind(%d)", k)
}

// Point is one decision of a generator.
type Point struct {
	Node  *grammar.Node // the Alt, Quant or Regex node deciding
	Kind  PointKind
	Sub   int // inside a regex: which part of it decides (pre-order index)
	Depth int // rule expansions above the decision
	// Stack holds the ids of the symbolic nodes from the root down to the
	// decision (only valid during the call): the k-paths a choice would
	// extend.
	Stack []int
	// Options are the choices the generator suggests: the children that
	// fit in the depth bound, the repetition counts within bounds, the
	// characters of a class. A chooser normally returns one of them; a
	// replay returns what was recorded. The slice is only valid during the
	// call to Choose.
	Options []int
}

// A Chooser makes every decision of a generator. Its result is the choice
// itself (a child index, a count, a rune), normally one of p.Options.
type Chooser interface {
	Choose(p Point) int
}

// Random chooses uniformly among the options.
type Random struct{ R *rand.Rand }

// NewRandom returns a Random chooser seeded with seed.
func NewRandom(seed uint64) *Random {
	return &Random{R: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// Choose picks one of p.Options uniformly.
func (r *Random) Choose(p Point) int {
	if len(p.Options) == 1 {
		return p.Options[0]
	}
	return p.Options[r.R.IntN(len(p.Options))]
}

// Recorder passes decisions to C and records them, so that the input can
// be replayed. Decisions that a generator forces (to reach a target) are
// recorded too.
type Recorder struct {
	C       Chooser
	Choices []int
}

// Choose asks C and records the answer.
func (r *Recorder) Choose(p Point) int {
	v := r.C.Choose(p)
	r.Choices = append(r.Choices, v)
	return v
}

// Forced records a decision made without asking C.
func (r *Recorder) Forced(_ Point, v int) { r.Choices = append(r.Choices, v) }

// forcer is implemented by choosers that want to see forced decisions.
type forcer interface{ Forced(p Point, v int) }

// Replay returns recorded choices in order. After the record runs out it
// returns each point's first option and sets Exhausted.
type Replay struct {
	Choices   []int
	next      int
	Exhausted bool
}

// Choose returns the next recorded choice.
func (r *Replay) Choose(p Point) int {
	if r.next >= len(r.Choices) {
		r.Exhausted = true
		return p.Options[0]
	}
	v := r.Choices[r.next]
	r.next++
	return v
}
