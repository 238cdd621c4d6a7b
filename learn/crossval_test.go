package learn

import (
	"math/rand/v2"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
)

func TestConfusion(t *testing.T) {
	tests := []struct {
		c                               Confusion
		acc, base, prec, rec, bal, rate float64
	}{
		{Confusion{TP: 30, FP: 10, TN: 50, FN: 10, BaselineCorrect: 60}, 0.8, 0.6, 0.75, 0.75, (0.75 + 50.0/60) / 2, 0.4},
		// No predicted positives and no positives: precision 1.
		{Confusion{TN: 10, BaselineCorrect: 10}, 1, 1, 1, 1, 1, 0},
		// No predicted positives, some positives: precision 0, recall 0.
		{Confusion{TN: 8, FN: 2, BaselineCorrect: 8}, 0.8, 0.8, 0, 0, 0.5, 0.2},
		{Confusion{}, 1, 1, 1, 1, 1, 1},
	}
	for _, tt := range tests {
		c := tt.c
		got := []float64{c.Accuracy(), c.Baseline(), c.Precision(), c.Recall(), c.Balanced(), c.BaseRate()}
		want := []float64{tt.acc, tt.base, tt.prec, tt.rec, tt.bal, tt.rate}
		for i := range got {
			if d := got[i] - want[i]; d > 1e-9 || d < -1e-9 {
				t.Errorf("%+v: metric %d = %.4f, want %.4f", c, i, got[i], want[i])
			}
		}
	}
}

// TestCrossValidate: a function that a feature decides is predicted
// perfectly on held-out rows and beats the majority class; one that no
// feature tells (a seeded coin with a rare head) does not beat it; every
// row is held out exactly once.
func TestCrossValidate(t *testing.T) {
	const rows = 1000
	cols, decided, _ := synthetic(rows, 30, 0.3, 7, func(has func(int) bool) bool { return has(4) && !has(9) })
	noise := features.NewBitset(rows)
	r := rand.New(rand.NewPCG(3, 3))
	for i := range rows {
		if r.Float64() < 0.08 {
			noise.Set(i)
		}
	}
	d := dataset(cols, []features.Bitset{decided, noise}, rows)
	opts := TrainOptions{Seed: 1, NoBalance: true}
	cs, err := CrossValidate(t.Context(), d, []int{0, 1}, opts, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		if c.Rows() != rows {
			t.Errorf("function %d: %d rows held out, want %d", i, c.Rows(), rows)
		}
	}
	if cs[0].Accuracy() != 1 || cs[0].Accuracy() <= cs[0].Baseline() {
		t.Errorf("decided function: held-out accuracy %.3f, baseline %.3f", cs[0].Accuracy(), cs[0].Baseline())
	}
	fns, err := Train(t.Context(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ScoreCV(t.Context(), d, fns, opts, 5); err != nil {
		t.Fatal(err)
	}
	if !fns[0].CV.Beats() || fns[1].CV.Beats() {
		t.Errorf("beats the majority: decided %v (%+v), noise %v (%+v); want true, false", fns[0].CV.Beats(), fns[0].CV, fns[1].CV.Beats(), fns[1].CV)
	}
	// A learning curve: sizes clamp to what the folds hold, in order, and
	// 800 training rows predict better than 50 (if the size were ignored,
	// the points would be equal).
	points, err := Curve(t.Context(), d, opts, 5, []int{50, 200, 5000, 9000})
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 3 || points[0].Train != 50 || points[1].Train != 200 || points[2].Train != 800 {
		t.Fatalf("curve sizes %+v, want 50, 200, 800", points)
	}
	if points[0].Functions != 2 || points[2].Accuracy <= points[0].Accuracy {
		t.Errorf("curve %+v", points)
	}
}
