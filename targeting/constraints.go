package targeting

import (
	"context"

	"github.com/arbor-fuzz/arbor/synth"
)

// admit returns the input to run in place of text (synth.Admitter):
// text itself if it satisfies the constraints, else the repaired input
// and its choices; ok is false for an input the search could not
// repair and that is dropped.
func (ps *pursuer) admit(ctx context.Context, text string, choices []int) (string, []int, bool) {
	tree, err := ps.l.g.Parse([]byte(text))
	if err != nil {
		return text, choices, true
	}
	switch v, fixed := ps.cons.Admit(ctx, tree); v {
	case synth.Dropped:
		ps.res.Dropped++
		return "", nil, false
	case synth.RunBroken:
		ps.res.BrokenRuns++
	case synth.Repaired:
		ps.res.Repaired++
		return tree.String(), fixed, true
	}
	return text, choices, true
}
