package fuzz

import (
	"context"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/synth"
)

// maxDrops is how many inputs in a row the campaign drops for breaking
// a constraint before it runs one as it is: a constraint set the search
// cannot satisfy must not stop the campaign (nor hang one with an
// execution budget), only show in its counts.
const maxDrops = 16

// constrained is the campaign's part that keeps inputs within the
// grammar's constraints.
type constrained struct {
	sat   *synth.Satisfier
	check *constraint.Checker
	gen   *synth.Generator // reads choices off repaired trees
	drops int              // dropped in a row
}

func newConstrained(f *campaign) *constrained {
	gen := synth.NewGenerator(f.g, nil, synth.RandomPolicy)
	f.opts.Bounds.configure(gen)
	return &constrained{
		sat:   synth.NewSatisfier(f.opts.Constraints, f.opts.Seed, gen),
		check: constraint.NewChecker(f.opts.Constraints),
		gen:   gen,
	}
}

// admit decides what runs of derivation d, an input the campaign made:
// d itself if it satisfies the constraints; the repaired input, realized
// again from the repaired tree's choices so that it is a sequence the
// campaign can mutate; or nothing (nil), when the search could not
// repair it, unless too many were dropped in a row. Seeds run as they
// are: they are the user's inputs.
func (c *constrained) admit(ctx context.Context, f *campaign, d *derivation) *derivation {
	if d.seq.seed || len(c.check.Check(d.tree)) == 0 {
		c.drops = 0
		return d
	}
	if broken, _ := c.sat.Satisfy(ctx, d.tree); broken > 0 {
		if c.drops++; c.drops <= maxDrops {
			f.res.Dropped++
			return nil
		}
		c.drops = 0
		f.res.BrokenRuns++
		return d
	}
	choices, err := c.gen.ChoicesOf(d.tree)
	if err != nil {
		if choices, err = c.gen.ExactChoicesOf(d.tree); err != nil {
			f.res.Dropped++
			return nil
		}
	}
	c.drops = 0
	f.res.Repaired++
	fixed := f.real.realize(f.seqOf(choices))
	fixed.seq.seed = false // a mutant still, whose decisions mutate
	return fixed
}
