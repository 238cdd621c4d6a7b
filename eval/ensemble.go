package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
)

// An ensemble is several trees per function that predict by majority
// vote: bagging, to measure what a forest would buy over arbor's one
// tree per function. Each bag's trees are fitted as learn.Train fits a
// single tree (balanced, counts recounted over the bag's rows) on a
// bootstrap sample of the training rows: as many rows, drawn with
// replacement. It is an evaluation device only: an explanation, a
// covering constraint or a targeting path is one tree's, and a vote of
// several trees has none of them.
type ensemble struct {
	// model holds every bag's trees, bag after bag, over the dataset's
	// vocabulary, so that one predictor reads each input's features once
	// for all of them.
	model     *learn.Model
	predictor *learn.Predictor
	// functions are the functions the ensemble predicts, those a single
	// tree would (Dataset.Trainable), with the training positives and the
	// depth of the deepest of their trees.
	functions []learn.FunctionModel
	voters    [][]voter // per function: one per bag
}

// A voter is one bag's say on a function: its tree (an index into
// ensemble.model.Functions) or, where the bag's sample never or always
// ran the function and so fitted no tree, a constant vote.
type voter struct {
	tree    int // -1: constant
	covered bool
}

// bagStream sets the bootstrap samples' random stream apart from the
// balancing's (learn.Train seeds that with a function's index).
const bagStream = 0xba99ed << 32

// ensembleConfig says how to fit an ensemble.
type ensembleConfig struct {
	Subject, GrammarName string
	Train                learn.TrainOptions // as for a single tree; bag b balances with Seed+b
	Bags                 int
	// NoBootstrap fits every bag on all rows, as they are: with one bag,
	// the ensemble is the single tree.
	NoBootstrap bool
}

// fitEnsemble fits cfg.Bags trees per trainable function of d.
func fitEnsemble(ctx context.Context, g *grammar.Graph, d *learn.Dataset, cfg ensembleConfig) (*ensemble, error) {
	if cfg.Bags < 1 {
		return nil, fmt.Errorf("an ensemble of %d bags", cfg.Bags)
	}
	funcs := d.Trainable()
	cands := d.Candidates()
	e := &ensemble{functions: make([]learn.FunctionModel, len(funcs)), voters: make([][]voter, len(funcs))}
	for i, f := range funcs {
		e.functions[i] = learn.FunctionModel{Name: d.Functions[f], Positives: d.Labels[f].Count()}
	}
	var trees []learn.FunctionModel
	for b := range cfg.Bags {
		bag := d
		if !cfg.NoBootstrap {
			bag = resample(d, cands, bootstrap(d.Rows, cfg.Train.Seed, b))
		}
		opts := cfg.Train
		opts.Seed += uint64(b)
		fns, err := learn.Train(ctx, bag, opts)
		if err != nil {
			return nil, fmt.Errorf("bag %d: %w", b+1, err)
		}
		// Train returns a tree per function the bag's rows vary on, in
		// the order of bag.Trainable.
		tree := map[int]int{}
		for i, f := range bag.Trainable() {
			tree[f] = i
		}
		for i, f := range funcs {
			v := voter{tree: -1, covered: bag.Labels[f].Count() > 0}
			if t, ok := tree[f]; ok {
				v.tree = len(trees) + t
				e.functions[i].Depth = max(e.functions[i].Depth, fns[t].Depth)
			}
			e.voters[i] = append(e.voters[i], v)
		}
		trees = append(trees, fns...)
	}
	e.model = learn.NewModel(cfg.Subject, cfg.GrammarName, g, d, trees, cfg.Train)
	var err error
	if e.predictor, err = learn.NewPredictor(e.model, g); err != nil {
		return nil, err
	}
	return e, nil
}

// bootstrap draws n of n rows with replacement, in row order, for bag b.
func bootstrap(n int, seed uint64, b int) []int {
	r := rand.New(rand.NewPCG(seed, bagStream+uint64(b)))
	rows := make([]int, n)
	for i := range rows {
		rows[i] = r.IntN(n)
	}
	slices.Sort(rows)
	return rows
}

// resample is d with the given rows (repeats and all) as its rows.
// Only the columns of cands, d's candidates, are copied: the others are
// constant or repeat a candidate over d's rows, and so over any sample
// of them, and are left empty.
func resample(d *learn.Dataset, cands []int, rows []int) *learn.Dataset {
	pick := func(b features.Bitset) features.Bitset {
		out := features.NewBitset(len(rows))
		for i, r := range rows {
			if b.Has(r) {
				out.Set(i)
			}
		}
		return out
	}
	out := &learn.Dataset{Vocab: d.Vocab, Functions: d.Functions, Rows: len(rows), Skipped: d.Skipped,
		Columns: make([]features.Bitset, len(d.Columns)), Labels: make([]features.Bitset, len(d.Labels))}
	empty := features.NewBitset(len(rows)) // shared: training only reads columns
	for c := range out.Columns {
		out.Columns[c] = empty
	}
	for _, c := range cands {
		out.Columns[c] = pick(d.Columns[c])
	}
	for f, l := range d.Labels {
		out.Labels[f] = pick(l)
	}
	for _, r := range rows {
		out.Inputs = append(out.Inputs, d.Inputs[r])
	}
	return out
}

// PredictTrees predicts every function of the ensemble on an input given
// as its trees: covered if at least half the bags say so (a tie counts
// as covered, as a leaf's does). Purity is the share of the majority's
// votes.
func (e *ensemble) PredictTrees(trees ...*grammar.Tree) []learn.Prediction {
	votes := e.predictor.PredictTrees(trees...)
	out := make([]learn.Prediction, len(e.functions))
	for i, vs := range e.voters {
		yes := 0
		for _, v := range vs {
			if v.tree >= 0 && votes[v.tree].Covered || v.tree < 0 && v.covered {
				yes++
			}
		}
		out[i] = learn.Prediction{Function: e.functions[i].Name, Covered: 2*yes >= len(vs),
			Purity: float64(max(yes, len(vs)-yes)) / float64(len(vs)), Leaf: -1}
	}
	return out
}

// assessEnsemble is assess for an ensemble: it predicts the test set and
// scores every function the ensemble predicts.
func (res *E3Result) assessEnsemble(e *ensemble, ts *testSet) {
	res.assess(e.model, e.PredictTrees, e.functions, ts)
}
