package eval

import (
	"math"
	"slices"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
)

func same(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestE3Bookkeeping checks E3's figures on confusion counts small enough
// to work out by hand.
func TestE3Bookkeeping(t *testing.T) {
	res := &E3Result{PerFunction: []FunctionMetrics{
		// 10 test inputs: 4 positives; predicted 3 TP, 1 FN, 1 FP, 5 TN.
		// Training majority: not covered (3 of 10).
		{Function: "a", TP: 3, FN: 1, FP: 1, TN: 5, TrainPositives: 3, TrainRows: 10},
		// 10 test inputs, 9 positives (base rate 0.9); all predicted covered.
		// Training majority: covered (8 of 10).
		{Function: "b", TP: 9, FP: 1, TrainPositives: 8, TrainRows: 10},
		// 10 test inputs, none positive (base rate 0: not mid-rate);
		// nothing predicted. Training: a tie (5 of 10) counts as not covered.
		{Function: "c", TN: 10, TrainPositives: 5, TrainRows: 10},
		// All 4 test inputs positive and predicted so; training majority
		// covered. No negatives: the true-positive rate alone.
		{Function: "d", TP: 4, TrainPositives: 9, TrainRows: 10},
	}}
	res.summarize()
	type want struct{ acc, prec, rec, bal, base, rate float64 }
	wants := []want{
		{0.8, 0.75, 0.75, (0.75 + 5.0/6) / 2, 0.6, 0.4},
		{0.9, 0.9, 1, 0.5, 0.9, 0.9}, // the one negative predicted covered: rates 1 and 0
		{1, 1, 1, 1, 1, 0},           // no positives: the true-negative rate alone; precision 1 (nothing to find)
		{1, 1, 1, 1, 1, 1},
	}
	for i, w := range wants {
		m := res.PerFunction[i]
		got := want{m.Accuracy, m.Precision, m.Recall, m.Balanced, m.Baseline, m.BaseRate}
		for j, pair := range [][2]float64{{got.acc, w.acc}, {got.prec, w.prec}, {got.rec, w.rec}, {got.bal, w.bal}, {got.base, w.base}, {got.rate, w.rate}} {
			if !same(pair[0], pair[1]) {
				t.Errorf("%s: metric %d (acc, prec, rec, balanced, baseline, base rate) = %v, want %v", m.Function, j, pair[0], pair[1])
			}
		}
	}
	if !same(res.Accuracy, (0.8+0.9+1+1)/4) || !same(res.Baseline, (0.6+0.9+1+1)/4) || !same(res.Balanced, ((0.75+5.0/6)/2+0.5+1+1)/4) {
		t.Errorf("means: accuracy %v, baseline %v, balanced %v", res.Accuracy, res.Baseline, res.Balanced)
	}
	// Mid-rate: a (0.4) and b (0.9); not c (0) nor d (1).
	if res.MidRate.Functions != 2 || !same(res.MidRate.Precision, (0.75+0.9)/2) || !same(res.MidRate.Recall, (0.75+1)/2) || !same(res.MidRate.Baseline, (0.6+0.9)/2) {
		t.Errorf("mid-rate means %+v", res.MidRate)
	}
}

// TestE4Bookkeeping checks E4's figures on per-function counts small
// enough to work out by hand: random is compared at each function's
// executions, not at the number of inputs asked for.
func TestE4Bookkeeping(t *testing.T) {
	res := &TargetResult{PerFunction: []TargetFunction{
		// Asked 4, verified 4 in 5 executions; base rate 0.5: expected
		// reach 1-0.5^5; random hit 3 of its 5.
		{Function: "common", Constraints: 2, Requested: 4, Targeted: 4, TargetedHits: 4, Executions: 5, RandomHitsAtExecutions: 3,
			Random: 4, RandomHits: 2, BaseRate: 0.5},
		// Rare (0.01): verified 2 of 4 in 20 executions; random none.
		{Function: "rare", Constraints: 1, Requested: 4, Targeted: 2, TargetedHits: 1, Executions: 20, Random: 4, BaseRate: 0.01},
		// Nothing verified in 30 executions, where random hit 6: worse
		// than random (0 < 30 × 0.2).
		{Function: "hard", Requested: 4, Executions: 30, RandomHitsAtExecutions: 6, Random: 4, RandomHits: 1, BaseRate: 0.2},
		// Rare, reached by neither.
		{Function: "never", Requested: 4, Executions: 30, Random: 4, BaseRate: 0},
	}}
	res.summarize()
	exp := []float64{1 - math.Pow(0.5, 5), 1 - math.Pow(0.99, 20), 1 - math.Pow(0.8, 30), 0}
	for i, e := range exp {
		if got := res.PerFunction[i].ExpectedRandomReach; !same(got, e) {
			t.Errorf("%s: expected random reach %v, want %v", res.PerFunction[i].Function, got, e)
		}
	}
	if !same(res.ExpectedRandom, (exp[0]+exp[1]+exp[2]+exp[3])/4) {
		t.Errorf("expected random absolute %v", res.ExpectedRandom)
	}
	// Over all four: targeted reached common and rare; random common and hard.
	if res.Absolute != (Pair{0.5, 0.5}) {
		t.Errorf("absolute %+v, want 0.5 and 0.5", res.Absolute)
	}
	if res.WithConstraints != 2 {
		t.Errorf("with constraints: %d", res.WithConstraints)
	}
	// Verified shares 1, 0.5, 0, 0: median 0.25.
	if !same(res.HitRate, 0.25) {
		t.Errorf("hit rate median %v, want 0.25", res.HitRate)
	}
	// Relative, hits when recorded again over the 4 asked for: targeted
	// 1, 0.25, 0, 0 (median 0.125); random 0.5, 0, 0.25, 0 (median 0.125).
	if !same(res.Relative.Targeted, 0.125) || !same(res.Relative.Random, 0.125) {
		t.Errorf("relative %+v", res.Relative)
	}
	if res.Rare.Functions != 2 || !same(res.Rare.Targeted, 0.5) || !same(res.Rare.Random, 0) || !same(res.Rare.Expected, exp[1]/2) {
		t.Errorf("rare %+v", res.Rare)
	}
	if !slices.Equal(res.WorseThanRandom, []string{"hard"}) {
		t.Errorf("worse than random: %v, want [hard]", res.WorseThanRandom)
	}
	// 85 executions for 6 verified inputs.
	if res.Executions != 85 || !same(res.ExecutionsPerInput, 85.0/6) {
		t.Errorf("executions %d, per verified input %v", res.Executions, res.ExecutionsPerInput)
	}
}

// TestHitsAmong: the random side at equal executions reads consecutive
// base-sample records from a function's offset, wrapping around.
func TestHitsAmong(t *testing.T) {
	f := &coverage.File{Header: coverage.Header{Functions: []string{"x", "y"}}, Records: []coverage.Record{
		{Input: "003", Covered: []int{0}, Outcome: coverage.OK},
		{Input: "001", Covered: []int{0, 1}, Outcome: coverage.OK},
		{Input: "002", Covered: []int{1}, Outcome: coverage.Timeout}, // cut short: left out
		{Input: "004", Outcome: coverage.Error},
	}}
	order := inputOrder(f) // 001, 003, 004
	for _, tt := range []struct {
		fn           string
		offset, n, w int
	}{
		{"x", 0, 1, 1}, {"x", 0, 3, 2}, {"x", 2, 2, 1}, {"x", 1, 7, 5}, {"y", 0, 3, 1}, {"z", 0, 3, 0}, {"x", 0, 0, 0},
	} {
		if got := hitsAmong(f, order, tt.fn, tt.offset, tt.n); got != tt.w {
			t.Errorf("hitsAmong(%s, offset %d, %d) = %d, want %d", tt.fn, tt.offset, tt.n, got, tt.w)
		}
	}
}

func TestBaseRates(t *testing.T) {
	f := &coverage.File{Header: coverage.Header{Functions: []string{"x", "y"}}, Records: []coverage.Record{
		{Covered: []int{0}, Outcome: coverage.OK},
		{Covered: []int{0, 1}, Outcome: coverage.Error},
		{Covered: []int{1}, Outcome: coverage.Panic}, // cut short: left out
		{Outcome: coverage.OK},
	}}
	r := BaseRates(f)
	if !same(r["x"], 2.0/3) || !same(r["y"], 1.0/3) {
		t.Errorf("base rates %v, want x 2/3, y 1/3", r)
	}
}
