package targeting

import (
	"context"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/synth"
)

// maxDrops is how many inputs in a row a pursuit drops for breaking a
// constraint it cannot repair before it lets one run as it is, so that
// a constraint set nothing satisfies shows in the counts, not as a
// stalled loop.
const maxDrops = 16

// constrained keeps a pursuit's inputs within the grammar's
// constraints: every input it makes (solved, mutated, spliced, random)
// is checked, and one that breaks a constraint is repaired by a
// synth.Satisfier before it runs, or dropped.
type constrained struct {
	sat   *synth.Satisfier
	check *constraint.Checker
	gen   *synth.Generator // reads choices off repaired trees
	drops int
}

func newConstrained(ps *pursuer) *constrained {
	set := ps.opts.Constraints
	gen := synth.NewGenerator(ps.l.g, nil, synth.RandomPolicy)
	return &constrained{
		sat:   synth.NewSatisfier(set, ps.opts.Seed+uint64(ps.f)<<20, gen),
		check: constraint.NewChecker(set),
		gen:   gen,
	}
}

// admit returns the input to run in place of text: text itself if it
// satisfies the constraints, else the repaired input and its choices;
// ok is false for an input the search could not repair and that is
// dropped.
func (c *constrained) admit(ctx context.Context, ps *pursuer, text string, choices []int) (string, []int, bool) {
	tree, err := ps.l.g.Parse([]byte(text))
	if err != nil || len(c.check.Check(tree)) == 0 {
		c.drops = 0
		return text, choices, true
	}
	if broken, _ := c.sat.Satisfy(ctx, tree); broken > 0 {
		if c.drops++; c.drops <= maxDrops {
			ps.res.Dropped++
			return "", nil, false
		}
		c.drops = 0
		ps.res.BrokenRuns++
		return text, choices, true
	}
	fixed, err := c.gen.ChoicesOf(tree)
	if err != nil {
		if fixed, err = c.gen.ExactChoicesOf(tree); err != nil {
			ps.res.Dropped++
			return "", nil, false
		}
	}
	c.drops = 0
	ps.res.Repaired++
	return tree.String(), fixed, true
}
