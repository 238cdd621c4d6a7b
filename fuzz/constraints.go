package fuzz

import (
	"context"

	"github.com/arbor-fuzz/arbor/synth"
)

// admit decides what runs of derivation d, an input the campaign made
// (synth.Admitter): d itself if it satisfies the constraints; the
// repaired input, realized again from the repaired tree's choices so
// that it is a sequence the campaign can mutate; or nothing (nil), when
// the search could not repair it, unless too many were dropped in a
// row. Seeds run as they are: they are the user's inputs.
func (w *worker) admit(ctx context.Context, d *derivation, o *outcome) *derivation {
	if d.seq.seed {
		return d
	}
	v, choices := w.cons.Admit(ctx, d.tree)
	switch v {
	case synth.Dropped:
		o.dropped = true
		return nil
	case synth.RunBroken:
		// The failed search changed d's tree: realize d's sequence
		// again, for domains that read the tree.
		o.broken = true
		return w.real.realize(d.seq)
	case synth.Repaired:
		o.repaired = true
		fixed := w.real.realize(w.seqOf(choices))
		fixed.seq.seed = false // a mutant still, whose decisions mutate
		return fixed
	}
	return d
}

// fresh returns d, a fresh random input, or, where d breaks more clause
// instances than a repair can mend, a smaller random input in its
// place, drawn under synth.RetryMaxNodes as synth.Satisfier.Make draws,
// up to synth.DefaultConstraintTries draws: Admit would drop every large
// random input of a grammar with many clauses (exprlang's run to
// kilobytes, and break them by the hundred). A smaller input is given as the choices that replay it
// under the campaign's own bounds, so that its mutants realize alike.
func (w *worker) fresh(d *derivation) *derivation {
	if w.cons.Mendable(d.tree) {
		return d
	}
	gen := w.real.gen
	size := gen.MaxNodes
	for try := 1; try < synth.DefaultConstraintTries; try++ {
		gen.MaxNodes = synth.RetryMaxNodes(size, try)
		d = w.real.realize(&sequence{salt: w.r.Uint64()})
		if w.cons.Mendable(d.tree) {
			break
		}
	}
	gen.MaxNodes = size
	again := w.real.realize(w.seqOf(d.choices))
	again.seq.seed = false // a fresh input still, whose decisions mutate
	return again
}
