package targeting

import (
	"context"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// admit returns the input to run in place of text, whose derivation is
// tree (synth.Admitter): text itself if it satisfies the constraints,
// else the repaired input and its choices; repaired is set where tree
// no longer derives what runs (a repair, or a failed one); ok is false
// for an input the search could not repair and that is dropped. A
// repair changes tree.
func (ps *pursuer) admit(ctx context.Context, cons *synth.Admitter, tree *grammar.Tree, text string, choices []int) (_ string, _ []int, repaired, ok bool) {
	switch v, fixed := cons.Admit(ctx, tree); v {
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

// admitterFor returns the Admitter of the inputs solved for c when c
// has relational literals (features.Relation, Match, Clause), else
// ps.cons. A required or forbidden relation becomes a where clause to
// satisfy (features.Where): the solver steers by k-paths and one-node
// features and cannot say "a use with no declaration", but the
// constraints' search can. A grammar clause c requires broken is left
// out, so that an input that reaches a program's error path for it is
// not repaired away. The Admitter is made once per constraint.
func (ps *pursuer) admitterFor(c *liveConstraint) *synth.Admitter {
	if a, ok := ps.relational[c.key]; ok {
		return a
	}
	g, m := ps.l.g, ps.l.p.Model
	var extra []*grammar.Where
	drop := map[string]bool{}
	relational := false
	for _, l := range c.Literals {
		f, err := m.Features[l.Feature].Feature()
		if err != nil {
			continue
		}
		switch f.Kind {
		case features.Relation, features.Match:
			relational = true
			if w, err := features.Where(g, f, l.Present); err == nil {
				extra = append(extra, w)
			}
		case features.Clause:
			relational = true
			if l.Present && f.At == "" {
				drop[f.Text] = true
			}
		}
	}
	a := ps.cons
	if relational {
		var clauses []*grammar.Where
		if ps.opts.Constraints.Len() > 0 && g.Source != nil {
			for _, w := range g.Source.Where {
				if !drop[features.ClauseText(w)] {
					clauses = append(clauses, w)
				}
			}
		}
		clauses = append(clauses, extra...)
		a = nil
		if set, err := constraint.CompileClauses(g, clauses); err == nil && set.Len() > 0 {
			a = synth.NewAdmitter(set, ps.opts.Seed+uint64(ps.f)<<20+uint64(len(ps.relational)+1)<<40, nil)
		}
	}
	if ps.relational == nil {
		ps.relational = map[string]*synth.Admitter{}
	}
	ps.relational[c.key] = a
	return a
}

// relationalKind reports whether literals of kind k are satisfied by
// where clauses (admitterFor) rather than by the solver.
func relationalKind(k features.Kind) bool {
	return k == features.Relation || k == features.Match || k == features.Clause
}
