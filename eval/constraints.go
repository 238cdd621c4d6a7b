package eval

import (
	"context"
	"fmt"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// What the experiments share about a grammar's constraints (its where
// clauses, docs/notation.md): by default every input an experiment
// generates from a subject's grammar satisfies them, repaired by a
// synth.Satisfier as arbor generate, fuzz, target and rlcheck repair
// theirs, so that the experiments measure the inputs a user of those
// commands gets. A config's NoConstraints leaves the clauses out. A
// grammar without where clauses makes the inputs it made before
// constraints existed, either way.

// constraintsOf returns g's constraints as an experiment applies them:
// nil with off, and nil for a grammar without where clauses.
func constraintsOf(g *grammar.Graph, off bool) (*constraint.Set, error) {
	if off {
		return nil, nil
	}
	s, err := constraint.Compile(g)
	if err != nil {
		return nil, fmt.Errorf("the grammar's constraints: %w", err)
	}
	if s.Len() == 0 {
		return nil, nil
	}
	return s, nil
}

// randomInputs makes seeded grammar-random inputs within a depth and
// repetition bound. With constraints each tree is repaired by a
// Satisfier, and one it cannot repair is given up for a fresh one, up
// to synth.DefaultConstraintTries trees, the last taken as it is (as
// synth.GenerateFunc does). Without them the inputs are the generator's
// own, the same as before constraints existed.
type randomInputs struct {
	gen *synth.Generator
	sat *synth.Satisfier // nil: no constraints
	// unrepaired counts the inputs that broke a constraint the search
	// could not repair (given as they were).
	unrepaired int
}

func newRandomInputs(g *grammar.Graph, seed uint64, maxDepth, maxRepeat int, set *constraint.Set) *randomInputs {
	gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
	gen.MaxDepth, gen.MaxRepeat = maxDepth, maxRepeat
	r := &randomInputs{gen: gen}
	if set.Len() > 0 {
		r.sat = synth.NewSatisfier(set, seed, gen)
	}
	return r
}

// next returns the next input.
func (r *randomInputs) next() string {
	if r.sat == nil {
		return r.gen.Generate().String()
	}
	t, broken, _ := r.sat.Make(context.Background(), r.gen, nil)
	if broken > 0 {
		r.unrepaired++
	}
	return t.String()
}

// satisfyingCandidates keeps the candidates whose trees satisfy set's
// constraints (every one with a nil set) and returns how many it left
// out. fuzz.BanditCandidates cannot repair the inputs it makes, and a
// repaired input would no longer be the one the subject accepted, so
// E10 leaves out the ones that break a constraint instead. A candidate's
// tree is rebuilt from its choices under the generator's bounds.
func satisfyingCandidates(g *grammar.Graph, cands []fuzz.Candidate, b fuzz.Bounds, set *constraint.Set) ([]fuzz.Candidate, int, error) {
	if set.Len() == 0 {
		return cands, 0, nil
	}
	check := constraint.NewChecker(set)
	var out []fuzz.Candidate
	for i, c := range cands {
		gen := synth.NewGenerator(g, &synth.Replay{Choices: c.Choices}, synth.RandomPolicy)
		gen.MaxDepth, gen.MaxRepeat, gen.MaxNodes, gen.MaxDistinct = b.MaxDepth, b.MaxRepeat, b.MaxNodes, b.MaxDistinct
		t := gen.Generate()
		if t.String() != string(c.Input) {
			return nil, 0, fmt.Errorf("candidate %d does not replay from its choices", i+1)
		}
		if len(check.Check(t)) == 0 {
			out = append(out, c)
		}
	}
	return out, len(cands) - len(out), nil
}
