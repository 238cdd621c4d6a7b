package eval

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestStatistics(t *testing.T) {
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median %v", m)
	}
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median %v", m)
	}
	if q := Quantile([]float64{1, 2, 3, 4, 5}, 0.95); !near(q, 4.8, 1e-12) {
		t.Errorf("95th percentile %v", q)
	}
	// The "before/after" example of the Wikipedia article on the test:
	// 9 non-zero differences, rank sums 27 and 18 (the article reports the
	// signed sum 27 - 18 = 9); W here is the smaller rank sum.
	before := []float64{125, 115, 130, 140, 140, 115, 140, 125, 140, 135}
	after := []float64{110, 122, 125, 120, 140, 124, 123, 137, 135, 145}
	w, p, n := Wilcoxon(before, after)
	if w != 18 || n != 9 {
		t.Errorf("W %v n %d, want W = 18 (the smaller rank sum), n = 9", w, n)
	}
	// Normal approximation, continuity correction, tie correction (one pair
	// of tied ranks): p ≈ 0.6353.
	if !near(p, 0.6353, 0.002) {
		t.Errorf("p = %.4f, want about 0.6353", p)
	}
	// A clear shift gives a small p.
	a := []float64{10, 12, 13, 15, 16, 18, 19, 21, 22, 25}
	b := []float64{1, 2, 2, 3, 5, 5, 6, 8, 9, 9}
	if _, p, _ := Wilcoxon(a, b); p > 0.01 {
		t.Errorf("p = %.4f for a clear shift", p)
	}
	if _, p, n := Wilcoxon([]float64{1, 2}, []float64{1, 2}); p != 1 || n != 0 {
		t.Errorf("identical samples: p %v n %d", p, n)
	}
	// Cohen's d: means 2 and 4, both standard deviations 1.58 -> d = -1.265.
	if d := CohensD([]float64{0, 1, 2, 3, 4}, []float64{2, 3, 4, 5, 6}); !near(d, -1.2649, 1e-3) {
		t.Errorf("Cohen's d %v", d)
	}
}
