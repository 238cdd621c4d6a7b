package targeting

import (
	"context"

	"github.com/arbor-fuzz/arbor/grammar"

	"github.com/arbor-fuzz/arbor/synth"
)

// admit returns the input to run in place of text, whose derivation is
// tree (synth.Admitter): text itself if it satisfies the constraints,
// else the repaired input and its choices; repaired is set where tree
// no longer derives what runs (a repair, or a failed one); ok is false
// for an input the search could not repair and that is dropped. A
// repair changes tree.
func (ps *pursuer) admit(ctx context.Context, tree *grammar.Tree, text string, choices []int) (_ string, _ []int, repaired, ok bool) {
	switch v, fixed := ps.cons.Admit(ctx, tree); v {
	case synth.Dropped:
		ps.res.Dropped++
		return "", nil, false, false
	case synth.RunBroken:
		// The search changed tree on the way: text and choices stand,
		// the generator's derivation does not.
		ps.res.BrokenRuns++
		return text, choices, true, true
	case synth.Repaired:
		ps.res.Repaired++
		return tree.String(), fixed, true, true
	}
	return text, choices, false, true
}
