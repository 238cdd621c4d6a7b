package synth

import (
	"context"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
)

// MaxDrops is how many inputs in a row an Admitter drops for breaking
// a constraint it cannot repair before it lets one run as it is: a
// constraint set nothing satisfies must not stall a fuzzing campaign or
// a targeting loop (nor hang one with an execution budget), only show
// in their counts.
const MaxDrops = 16

// Admission is what an Admitter decided of an input.
type Admission uint8

const (
	Admitted  Admission = iota // it satisfies the constraints: run it
	Repaired                   // it was repaired: run the repaired input
	Dropped                    // it could not be repaired: do not run it
	RunBroken                  // it could not be repaired, but too many were dropped in a row: run it as it is
)

// An Admitter keeps the inputs of a loop that makes them one at a time
// (a fuzzer's mutants, a targeting loop's solved and mutated inputs)
// within a grammar's constraints: each is checked, one that breaks a
// clause is repaired by a Satisfier, or dropped. It is not safe for
// concurrent use.
type Admitter struct {
	sat   *Satisfier
	gen   *Generator // reads choices off repaired trees
	drops int        // dropped in a row
}

// NewAdmitter returns an Admitter of set's constraints whose search is
// seeded with seed; bounds gives the generator bounds (MaxDepth,
// MaxRepeat, MaxNodes, MaxDistinct) under which a repaired tree's
// choices are read, and of its regenerated subtrees.
func NewAdmitter(set *constraint.Set, seed uint64, bounds *Generator) *Admitter {
	gen := NewGenerator(set.Graph(), nil, RandomPolicy)
	if bounds != nil {
		gen.MaxDepth, gen.MaxRepeat, gen.MaxNodes, gen.MaxDistinct = bounds.MaxDepth, bounds.MaxRepeat, bounds.MaxNodes, bounds.MaxDistinct
	}
	return &Admitter{sat: NewSatisfier(set, seed, gen), gen: gen}
}

// Admit decides what of tree t runs. For Repaired, t has been repaired
// in place and choices are its choice sequence (ChoicesOf under the
// bounds, or ExactChoicesOf where it breaks them); t must be the
// caller's to change.
func (a *Admitter) Admit(ctx context.Context, t *grammar.Tree) (v Admission, choices []int) {
	// A tree that breaks more instances than a repair can mend (a
	// mutant whose new part is large and random) is dropped unrepaired,
	// as Make skips such trees: on exprlang a repair of one ran for a
	// second.
	vs, ok := a.sat.check.CheckWithin(t, a.sat.mendable())
	if len(vs) == 0 {
		a.drops = 0
		return Admitted, nil
	}
	broken := len(vs)
	if ok {
		// vs is all t breaks: the search starts from the check.
		broken, _ = a.sat.satisfy(ctx, t, vs)
	}
	if broken > 0 {
		if a.drops++; a.drops <= MaxDrops {
			return Dropped, nil
		}
		a.drops = 0
		return RunBroken, nil
	}
	choices, err := a.gen.ChoicesOf(t)
	if err != nil {
		if choices, err = a.gen.ExactChoicesOf(t); err != nil {
			return Dropped, nil
		}
	}
	a.drops = 0
	return Repaired, choices
}

// Mendable reports whether t breaks no more clause instances than a
// repair can mend: a tree that breaks more would be dropped. A maker of
// fresh inputs draws a smaller tree instead, as Satisfier.Make does.
func (a *Admitter) Mendable(t *grammar.Tree) bool {
	_, ok := a.sat.check.CheckWithin(t, a.sat.mendable())
	return ok
}
