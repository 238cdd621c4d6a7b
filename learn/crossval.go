package learn

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/internal/parallel"
)

// Confusion counts a function's predictions on held-out rows: true and
// false positives and negatives, and how many of the rows the training
// rows' majority class (a tie counts as "not covered") gets right.
type Confusion struct {
	TP, FP, TN, FN  int
	BaselineCorrect int
}

// Rows is the number of held-out rows counted.
func (c Confusion) Rows() int { return c.TP + c.FP + c.TN + c.FN }

// Accuracy is the share of rows predicted right (1 with no rows).
func (c Confusion) Accuracy() float64 { return share(c.TP+c.TN, c.Rows()) }

// Baseline is the share of rows the training majority class gets right.
func (c Confusion) Baseline() float64 { return share(c.BaselineCorrect, c.Rows()) }

// Balanced is the mean of the true-positive and true-negative rates (the
// one that exists, when the rows hold only one class).
func (c Confusion) Balanced() float64 {
	pos, neg := c.TP+c.FN, c.TN+c.FP
	switch {
	case pos == 0:
		return share(c.TN, neg)
	case neg == 0:
		return share(c.TP, pos)
	}
	return (float64(c.TP)/float64(pos) + float64(c.TN)/float64(neg)) / 2
}

func share(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// CVScore is a function's cross-validated score, as a model stores it.
type CVScore struct {
	Folds    int     `json:"folds"`
	Accuracy float64 `json:"accuracy"`
	Baseline float64 `json:"baseline"` // accuracy of always guessing the training majority
	Balanced float64 `json:"balanced_accuracy"`
}

// Beats reports whether the tree predicted held-out rows better than
// always guessing the majority class did; a tree that does not is no
// evidence of what makes the function run.
func (s *CVScore) Beats() bool { return s.Accuracy > s.Baseline }

// CrossValidate scores the trees of functions (indexes into d.Functions)
// on held-out rows: the rows are split into folds in a seeded order, and
// each fold is predicted by trees fitted (with opts) on the others — on
// at most trainRows of them, in that order, when trainRows > 0, which is
// how a learning curve is read off one corpus. Functions are scored in
// parallel; the result is in the order of funcs.
func CrossValidate(ctx context.Context, d *Dataset, funcs []int, opts TrainOptions, folds, trainRows int) ([]Confusion, error) {
	return d.crossValidateAll(ctx, funcs, d.Candidates(), opts, folds, trainRows)
}

// crossValidateAll is CrossValidate with the candidate features given, so
// that a learning curve finds them once for all its sizes.
func (d *Dataset) crossValidateAll(ctx context.Context, funcs, cands []int, opts TrainOptions, folds, trainRows int) ([]Confusion, error) {
	folds = max(2, min(folds, d.Rows))
	order := rand.New(rand.NewPCG(opts.Seed, 0xcf)).Perm(d.Rows)
	train := make([]features.Bitset, folds)
	test := make([]features.Bitset, folds)
	for k := range folds {
		train[k], test[k] = features.NewBitset(d.Rows), features.NewBitset(d.Rows)
		n := 0
		for i, r := range order {
			switch {
			case i%folds == k:
				test[k].Set(r)
			case trainRows <= 0 || n < trainRows:
				train[k].Set(r)
				n++
			}
		}
	}
	out := make([]Confusion, len(funcs))
	err := parallel.ForEach(ctx, len(funcs), opts.Workers, func(i int) {
		out[i] = d.crossValidate(funcs[i], cands, opts, train, test)
	})
	return out, err
}

func (d *Dataset) crossValidate(f int, cands []int, opts TrainOptions, train, test []features.Bitset) Confusion {
	label := d.Labels[f]
	var c Confusion
	for k := range train {
		pos := label.AndCount(train[k])
		majority := 2*pos > train[k].Count()
		var t *Tree
		if pos > 0 && pos < train[k].Count() {
			t, _ = d.fitTree(f, cands, opts, train[k])
		}
		for r := 0; r < d.Rows; r++ {
			if !test[k].Has(r) {
				continue
			}
			predicted := majority
			if t != nil {
				predicted = t.Nodes[t.Leaf(func(c int) bool { return d.Columns[c].Has(r) })].Covered()
			}
			actual := label.Has(r)
			switch {
			case predicted && actual:
				c.TP++
			case predicted:
				c.FP++
			case actual:
				c.FN++
			default:
				c.TN++
			}
			if majority == actual {
				c.BaselineCorrect++
			}
		}
	}
	return c
}

// ScoreCV cross-validates the trees of fns (trained on d with opts) with
// the given number of folds and stores each one's score in its CV.
func ScoreCV(ctx context.Context, d *Dataset, fns []FunctionModel, opts TrainOptions, folds int) error {
	index := map[string]int{}
	for i, name := range d.Functions {
		index[name] = i
	}
	funcs := make([]int, len(fns))
	for i, fn := range fns {
		funcs[i] = index[fn.Name]
	}
	cs, err := CrossValidate(ctx, d, funcs, opts, folds, 0)
	if err != nil {
		return err
	}
	for i, c := range cs {
		fns[i].CV = &CVScore{Folds: max(2, min(folds, d.Rows)), Accuracy: c.Accuracy(), Baseline: c.Baseline(), Balanced: c.Balanced()}
	}
	return nil
}

// Precision is TP/(TP+FP); with no predicted positives it is 1 if there
// were no positives either and 0 otherwise (as E3 counts it).
func (c Confusion) Precision() float64 {
	if c.TP+c.FP == 0 {
		if c.TP+c.FN == 0 {
			return 1
		}
		return 0
	}
	return float64(c.TP) / float64(c.TP+c.FP)
}

// Recall is TP/(TP+FN), 1 with no positives.
func (c Confusion) Recall() float64 { return share(c.TP, c.TP+c.FN) }

// BaseRate is the share of rows that covered the function.
func (c Confusion) BaseRate() float64 { return share(c.TP+c.FN, c.Rows()) }

// Mid-rate functions are those whose base rate lies in this range: for
// the others, accuracy is close to the base rate whatever a tree does.
const (
	MidRateLow  = 0.05
	MidRateHigh = 0.95
)

// CurvePoint is prediction quality at one training set size: means over
// the mid-rate functions of cross-validated scores.
type CurvePoint struct {
	Train     int     `json:"train"` // training rows per fold
	Functions int     `json:"midrate_functions"`
	Accuracy  float64 `json:"accuracy"`
	Baseline  float64 `json:"baseline"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Balanced  float64 `json:"balanced_accuracy"`
	Seconds   float64 `json:"seconds"` // fitting and scoring every fold
}

// Curve measures a learning curve on one corpus: for each size, every
// trainable function is cross-validated with folds folds, its trees
// fitted on at most that many rows of the other folds. Sizes beyond what
// the folds hold are measured at what they hold (and reported as such).
func Curve(ctx context.Context, d *Dataset, opts TrainOptions, folds int, sizes []int) ([]CurvePoint, error) {
	funcs, cands := d.Trainable(), d.Candidates()
	folds = max(2, min(folds, d.Rows))
	most := d.Rows - (d.Rows+folds-1)/folds // training rows of the smallest training side
	var out []CurvePoint
	for _, n := range sizes {
		n = min(n, most)
		if len(out) > 0 && out[len(out)-1].Train == n {
			continue
		}
		start := time.Now()
		cs, err := d.crossValidateAll(ctx, funcs, cands, opts, folds, n)
		if err != nil {
			return out, err
		}
		p := CurvePoint{Train: n}
		for _, c := range cs {
			if r := c.BaseRate(); r < MidRateLow || r > MidRateHigh {
				continue
			}
			p.Functions++
			p.Accuracy += c.Accuracy()
			p.Baseline += c.Baseline()
			p.Precision += c.Precision()
			p.Recall += c.Recall()
			p.Balanced += c.Balanced()
		}
		if p.Functions > 0 {
			k := float64(p.Functions)
			p.Accuracy, p.Baseline, p.Precision, p.Recall, p.Balanced = p.Accuracy/k, p.Baseline/k, p.Precision/k, p.Recall/k, p.Balanced/k
		}
		p.Seconds = time.Since(start).Seconds()
		out = append(out, p)
	}
	return out, nil
}
