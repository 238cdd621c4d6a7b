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
func (f *campaign) admit(ctx context.Context, d *derivation) *derivation {
	if d.seq.seed {
		return d
	}
	v, choices := f.cons.Admit(ctx, d.tree)
	switch v {
	case synth.Dropped:
		f.res.Dropped++
		return nil
	case synth.RunBroken:
		// The failed search changed d's tree: realize d's sequence
		// again, for domains that read the tree.
		f.res.BrokenRuns++
		return f.real.realize(d.seq)
	case synth.Repaired:
		f.res.Repaired++
		fixed := f.real.realize(f.seqOf(choices))
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
func (f *campaign) fresh(d *derivation) *derivation {
	if f.cons.Mendable(d.tree) {
		return d
	}
	gen := f.real.gen
	size := gen.MaxNodes
	for try := 1; try < synth.DefaultConstraintTries; try++ {
		gen.MaxNodes = synth.RetryMaxNodes(size, try)
		d = f.real.realize(&sequence{salt: f.r.Uint64()})
		if f.cons.Mendable(d.tree) {
			break
		}
	}
	gen.MaxNodes = size
	again := f.real.realize(f.seqOf(d.choices))
	again.seq.seed = false // a fresh input still, whose decisions mutate
	return again
}
