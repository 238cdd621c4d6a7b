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
