package targeting

import (
	"context"
	"time"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// FromModel turns a learned covering constraint into k-paths and
// literals over the other feature kinds.
func FromModel(m *learn.Model, c learn.Constraint) synth.Constraint {
	var out synth.Constraint
	for _, l := range c.Literals {
		mf := m.Features[l.Feature]
		if !mf.IsPath() {
			if f, err := mf.Feature(); err == nil { // LoadModel has checked every feature
				out.Checks = append(out.Checks, synth.FeatureLiteral{Feature: f, Present: l.Present})
			}
			continue
		}
		p := features.Path(mf.IDs)
		if l.Present {
			out.Require = append(out.Require, p)
		} else {
			out.Forbid = append(out.Forbid, p)
		}
	}
	return out
}

// solveAgain is o for solving one constraint for the n-th time (from 0): a
// seed of its own, and, after the first, more exploration, so that
// later attempts look further from the smallest input.
func solveAgain(o synth.SolveOptions, seed uint64, n int, salt uint64) synth.SolveOptions {
	o.Seed = seed + uint64(n)*7919 + salt
	if n > 0 {
		o.Explore = float64(min(n, 4))
	}
	return o
}

// OfflineInput is an input generated for one of a function's constraints.
type OfflineInput struct {
	Text       string
	Constraint int // index into the function's constraints
	Solution   *synth.Solution
}

// OfflineResult is what targeting a function produced.
type OfflineResult struct {
	Inputs      []OfflineInput
	Constraints []synth.Constraint
	Unsolved    []int           // constraints no input could be found for
	SolveTimes  []time.Duration // one per synth.Solve call
}

// Offline generates up to n distinct inputs for a function of a model,
// without running anything: round-robin over its constraints (those of
// leaves with gini at most maxGini, best ranked first; learn.EveryLeaf
// takes every leaf with positive rows), each solved again with a new
// seed and more exploration for every round, keeping inputs that parse
// back with the grammar and satisfy their constraint. It stops after n
// inputs, or after three rounds in a row add nothing new, or when ctx
// is done (inside a solve or the parse that checks its solution): the
// result then holds the inputs found so far.
func Offline(ctx context.Context, g *grammar.Graph, m *learn.Model, fn *learn.FunctionModel, n int, maxGini float64, opts synth.SolveOptions) *OfflineResult {
	res := &OfflineResult{}
	for _, c := range m.Constraints(fn, maxGini) {
		res.Constraints = append(res.Constraints, FromModel(m, c))
	}
	seen := map[string]bool{}
	solved := make([]bool, len(res.Constraints))
	dead := make([]bool, len(res.Constraints))
	idle := 0
	for round := 0; len(res.Inputs) < n && ctx.Err() == nil && idle < 3; round++ {
		added := false
		for i, c := range res.Constraints {
			if dead[i] || len(res.Inputs) >= n {
				continue
			}
			sol := synth.Solve(ctx, g, c, solveAgain(opts, opts.Seed, round, uint64(i)))
			res.SolveTimes = append(res.SolveTimes, sol.Elapsed)
			if ctx.Err() != nil {
				// A solve the context cut short is no sign that the
				// constraint has no solution.
				break
			}
			ok := false
			if sol.Satisfied {
				var err error
				if ok, err = synth.SatisfiesContext(ctx, g, sol.Text, c); err != nil {
					break
				}
			}
			if !ok {
				if !solved[i] {
					dead[i] = true // no solution at all: do not spend more on it
				}
				continue
			}
			solved[i] = true
			if seen[sol.Text] {
				continue
			}
			seen[sol.Text] = true
			res.Inputs = append(res.Inputs, OfflineInput{Text: sol.Text, Constraint: i, Solution: sol})
			added = true
		}
		if added {
			idle = 0
		} else {
			idle++
		}
	}
	for i, ok := range solved {
		if !ok {
			res.Unsolved = append(res.Unsolved, i)
		}
	}
	return res
}
