package synth

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// GenerateOptions shape the inputs of GenerateFunc.
type GenerateOptions struct {
	Policy    Policy // RandomPolicy or ShortestPolicy
	Seed      uint64
	MaxDepth  int // as Generator's
	MaxRepeat int // as Generator's
	// Choices records each input's choice sequence (Input.Choices). The
	// recorder passes every decision on unchanged, so the inputs are the
	// same either way; without it none is recorded, which costs nothing.
	Choices bool
	// Constraints, if set, are constraints every input must satisfy
	// (the grammar's where clauses). Each input is made by a
	// Satisfier's Make: trees checked as generated, then repaired; one
	// it could not satisfy is emitted with Input.Broken telling how many
	// clause instances it still breaks. The inputs' choices are read off
	// the repaired trees, so they replay.
	Constraints *constraint.Set
	// FreshTries, ConstraintTries and RepairSteps are the Satisfier's
	// FreshTries, Tries and MaxSteps (0: their defaults).
	FreshTries, ConstraintTries, RepairSteps int
	// NoKeep is the Satisfier's NoKeep: repairs may change any part of
	// a tree (for comparison; the default keeps its rarest 2-path).
	NoKeep bool
	// Guided, with Constraints, draws the trees with RLCheck's guide
	// (NewGuide, seeded with Seed; the state is the last 5 symbols on
	// the path from the root) and makes the constraint checker its
	// judge (Satisfier.Guide): the guide learns which choices make
	// trees that satisfy the clauses, and Make repairs what it still
	// draws broken. Inputs come faster where the clauses can be
	// satisfied as drawn, and are the guide's, not uniform random
	// choices: they hold fewer of the grammar's 2-paths, and where the
	// clauses leave a program's checks unsaid the guide can settle on
	// what the program rejects (docs/algorithms.md, "Guided drawing").
	Guided bool
}

// GenerateFunc generates n inputs of g with the policy, one at a time,
// handing each to emit before it makes the next. Each tree is built in
// the memory of the previous one (Generator.Reuse), so memory does not
// grow with n, and an Input, its Tree and its Choices, is valid only
// until emit returns. It stops at emit's first error, and before an
// input when ctx is done, returning either error as it is.
func GenerateFunc(ctx context.Context, g *grammar.Graph, n int, opts GenerateOptions, emit func(Input) error) error {
	var chooser Chooser = NewRandom(opts.Seed)
	var guide *Guide
	if opts.Guided && opts.Constraints.Len() > 0 {
		// Its state is the path from the root, which a new tree starts
		// afresh: the chooser needs no Reset between trees.
		guide = NewGuide(opts.Seed)
		chooser = &GuideChooser{Guide: guide, State: TreeState}
	}
	var rec *Recorder
	if opts.Choices {
		rec = &Recorder{C: chooser}
		chooser = rec
	}
	gen := &Generator{G: g, Chooser: chooser, Policy: opts.Policy, MaxDepth: opts.MaxDepth, MaxRepeat: opts.MaxRepeat, Reuse: true}
	var sat *Satisfier
	if opts.Constraints.Len() > 0 {
		sat = NewSatisfier(opts.Constraints, opts.Seed, gen)
		sat.MaxSteps, sat.FreshTries, sat.Tries = opts.RepairSteps, opts.FreshTries, opts.ConstraintTries
		sat.NoKeep = opts.NoKeep
		sat.Guide = guide
	}
	for range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		var in Input
		if rec != nil {
			// emit is done with the last input's choices: the slice
			// can be reused.
			rec.Choices = rec.Choices[:0]
		}
		if sat != nil {
			if err := satisfy(ctx, gen, sat, rec, &in); err != nil {
				return err
			}
		} else {
			in.Tree = gen.Generate()
		}
		in.Text = in.Tree.String()
		if rec != nil && in.Choices == nil {
			in.Choices = rec.Choices
		}
		if err := emit(in); err != nil {
			return err
		}
	}
	return nil
}

// SetOptions say which set GenerateSet makes.
type SetOptions struct {
	CoverOptions
	// Forest makes a forest of N inputs (ForestFunc); without it the set
	// is a k-path covering set (CoverFunc), whatever N.
	Forest bool
	N      int
	// From, if set, is the grammar the inputs are generated from instead
	// of g's own: a rewriting of g whose inputs are g's (WithAbsence).
	// Each input is parsed back with g, to measure its k-paths in g, and
	// one that does not parse is an error.
	From *grammar.Graph
}

// SetStats is what GenerateSet made.
type SetStats struct {
	Inputs int
	Bytes  int // the inputs' length in all
	// Elapsed is the generator's time: emit's and the measuring's are
	// left out, so that it is what making the set before writing it
	// took.
	Elapsed time.Duration
	// Paths holds the k-paths (k = 1..K) of g the set covers; nil after
	// an error.
	Paths *features.Coverage
}

// GenerateSet generates a k-path covering set or a forest of g, handing
// each input to emit as it is made (CoverOptions.Reuse: a forest's
// memory does not grow with N, and a covering set's is that of its
// agenda), and measures the set's k-paths in g by features on derivation
// trees, not by the generator's agenda: those of a covering set of g's
// own trees come with it (CoverResult.Paths); a forest's are taken
// here, and with From, whose trees are not g's, those of the inputs
// parsed back with g. Once every k-path is covered the measure cannot
// change, so the k-paths of later inputs are not taken: a forest covers
// all long before its end, and walking its trees costs as much as
// generating them. The inputs are those of CoverFunc or ForestFunc; the
// stats hold what was made before an error too.
func GenerateSet(ctx context.Context, g *grammar.Graph, opts SetOptions, emit func(Input) error) (*SetStats, error) {
	target := g
	if opts.From != nil {
		target = opts.From
	}
	st := &SetStats{}
	own := opts.Forest || opts.From != nil
	var m *setMeasure
	if own {
		m = &setMeasure{ctx: ctx, g: g, k: opts.K, parse: opts.From != nil, cov: features.NewCoverage(g, opts.K)}
	}
	var outside time.Duration
	each := func(in Input) error {
		begin := time.Now()
		defer func() { outside += time.Since(begin) }()
		if err := emit(in); err != nil {
			return err
		}
		st.Inputs++
		st.Bytes += len(in.Text)
		if own {
			return m.add(in)
		}
		return nil
	}
	opts.Reuse = true
	start := time.Now()
	var err error
	if opts.Forest {
		err = ForestFunc(ctx, target, opts.N, opts.CoverOptions, each)
	} else {
		var res *CoverResult
		if res, err = CoverFunc(ctx, target, opts.CoverOptions, each); err == nil && !own {
			st.Paths = res.Paths
		}
	}
	st.Elapsed = time.Since(start) - outside
	if err != nil {
		return st, err
	}
	if own {
		st.Paths = m.cov
	}
	return st, nil
}

// setMeasure takes the k-paths of a set's inputs in g.
type setMeasure struct {
	ctx   context.Context
	g     *grammar.Graph
	k     int
	parse bool // the trees are not g's: parse the inputs back
	cov   *features.Coverage
	full  bool // every k-path is covered
}

func (m *setMeasure) add(in Input) error {
	trees := []*grammar.Tree{in.Tree}
	if m.parse {
		// Parsed back even once the coverage is full: every input of
		// the rewritten grammar must be one of g.
		var err error
		if trees, err = m.g.ParseAllContext(m.ctx, []byte(in.Text), grammar.ParseOptions{Trees: grammar.DefaultTreeLimit}); err != nil {
			if m.ctx.Err() != nil {
				return err
			}
			return fmt.Errorf("generated input %q does not parse: %w", in.Text, err)
		}
	}
	if !m.full {
		m.cov.Add(trees...)
		total := m.cov.Total(m.k)
		m.full = total.IsInt64() && int64(m.cov.Covered(m.k)) == total.Int64()
	}
	return nil
}

// satisfy makes in.Tree with sat (Make) and, with rec, sets in.Choices
// to the choices of the tree it kept.
func satisfy(ctx context.Context, gen *Generator, sat *Satisfier, rec *Recorder, in *Input) error {
	var reset func()
	if rec != nil {
		reset = func() { rec.Choices = rec.Choices[:0] }
	}
	t, broken, changed := sat.Make(ctx, gen, reset)
	if err := ctx.Err(); err != nil {
		return err
	}
	in.Tree, in.Broken = t, broken
	if rec == nil || !changed {
		return nil
	}
	choices, err := gen.ChoicesOf(t)
	if err != nil {
		if choices, err = gen.ExactChoicesOf(t); err != nil {
			return fmt.Errorf("the choices of a repaired input: %w", err)
		}
	}
	in.Choices = choices
	return nil
}
