package synth

import (
	"context"
	"errors"
	"fmt"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Satisfies parses an input back with the grammar and checks a constraint
// on the union of the features of its trees: what the learned model will
// see, not what the generator meant. An input that does not parse does
// not satisfy it.
func Satisfies(g *grammar.Graph, input string, c Constraint) bool {
	ok, _ := SatisfiesContext(context.Background(), g, input, c)
	return ok
}

// SatisfiesContext is Satisfies with the parse stopped when ctx is done:
// the error, which wraps ctx.Err(), is then the only one it returns (an
// input that does not parse is a false, not an error).
func SatisfiesContext(ctx context.Context, g *grammar.Graph, input string, c Constraint) (bool, error) {
	trees, err := g.ParseAllContext(ctx, []byte(input), grammar.ParseOptions{Trees: grammar.DefaultTreeLimit})
	if err != nil {
		if ctx.Err() != nil {
			// The parse's error says where it stopped, and wraps the
			// context's.
			if !errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%v: %w", err, ctx.Err())
			}
			return false, fmt.Errorf("checking a solution: %w", err)
		}
		return false, nil
	}
	maxK := 0
	for _, p := range append(append([]features.Path(nil), c.Require...), c.Forbid...) {
		maxK = max(maxK, len(p))
	}
	cov := features.NewCoverage(g, max(maxK, 1))
	cov.Add(trees...)
	for _, p := range c.Require {
		if !cov.Has(p) {
			return false, nil
		}
	}
	for _, p := range c.Forbid {
		if cov.Has(p) {
			return false, nil
		}
	}
	if ch := newChecker(g, c.Checks); ch != nil {
		for _, ok := range ch.holds(trees...) {
			if !ok {
				return false, nil
			}
		}
	}
	return true, nil
}
