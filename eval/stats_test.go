package eval

import (
	"math"
	"math/bits"
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
	// Spearman: the IQ / hours-of-TV example of the Wikipedia article,
	// rho = -29/165.
	iq := []float64{106, 100, 86, 101, 99, 103, 97, 113, 112, 110}
	tv := []float64{7, 27, 2, 50, 28, 29, 20, 12, 6, 17}
	if rho := Spearman(iq, tv); !near(rho, -29.0/165, 1e-9) {
		t.Errorf("Spearman %v, want %v", rho, -29.0/165)
	}
	if rho := Spearman([]float64{1, 2, 3, 4}, []float64{10, 20, 20, 40}); !near(rho, 0.9486832980505138, 1e-9) {
		t.Errorf("Spearman with ties %v", rho) // ranks 2.5/2.5: Pearson of the ranks
	}
	// Mann–Whitney: complete separation of two samples of five gives
	// U = 0 and the exact p = 2/252 = 0.0079 (the normal approximation
	// with continuity correction said 0.0122); of three, 2/20 = 0.10.
	if u, p := MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}); u != 0 || !near(p, 2.0/252, 1e-12) {
		t.Errorf("Mann-Whitney U %v p %.4f", u, p)
	}
	if _, p := MannWhitney([]float64{9, 8, 7}, []float64{1, 2, 3}); !near(p, 0.1, 1e-12) {
		t.Errorf("three against three separated: p %v, want 0.1", p)
	}
	// Ties: U counts half for each tie.
	if u, _ := MannWhitney([]float64{1, 2, 2}, []float64{2, 3}); u != 1 { // pairs won: 0 + 0.5 + 0.5
		t.Errorf("U with ties %v, want 1", u)
	}
	if _, p := MannWhitney([]float64{3, 3, 3}, []float64{3, 3}); p != 1 {
		t.Errorf("identical samples p %v", p)
	}
	// Cohen's d: means 2 and 4, both standard deviations 1.58 -> d = -1.265.
	if d := CohensD([]float64{0, 1, 2, 3, 4}, []float64{2, 3, 4, 5, 6}); !near(d, -1.2649, 1e-3) {
		t.Errorf("Cohen's d %v", d)
	}
}

func TestSpearmanUndefined(t *testing.T) {
	if rho := Spearman([]float64{1, 2, 3}, []float64{5, 5, 5}); !math.IsNaN(rho) {
		t.Errorf("ρ against a constant = %v, want NaN", rho)
	}
}

// TestMannWhitneyExact checks the exact p-value against enumerating
// every split of the pooled values, ties included, and that large
// samples still get the normal approximation.
func TestMannWhitneyExact(t *testing.T) {
	tests := []struct{ a, b []float64 }{
		{[]float64{1, 2, 3}, []float64{4, 5, 6, 7}},
		{[]float64{790, 807, 782}, []float64{1626, 1628, 1632}},
		{[]float64{1, 2, 2, 3}, []float64{2, 3, 3, 4, 5}},
		{[]float64{5, 5, 5, 6}, []float64{5, 6, 6}},
		{[]float64{10, 20, 30, 40, 50, 60}, []float64{15, 25, 35, 45, 55, 65}},
		{[]float64{1}, []float64{2}},
	}
	for _, tt := range tests {
		_, got := MannWhitney(tt.a, tt.b)
		if want := bruteMannWhitney(tt.a, tt.b); !near(got, want, 1e-12) {
			t.Errorf("MannWhitney(%v, %v) p = %v, enumeration %v", tt.a, tt.b, got, want)
		}
	}
	// 26 against 26, completely separated: beyond the exact limit, the
	// approximation's p (tiny, and not the exact 2/C(52,26)).
	var a, b []float64
	for i := range 26 {
		a, b = append(a, float64(i)), append(b, float64(100+i))
	}
	if _, p := MannWhitney(a, b); p <= 0 || p > 1e-6 || near(p, 2/4.9595669e14, 1e-20) {
		t.Errorf("large samples: p %v", p)
	}
}

// bruteMannWhitney is the two-sided exact p by enumerating which of the
// pooled values form the first sample.
func bruteMannWhitney(a, b []float64) float64 {
	all := append(append([]float64(nil), a...), b...)
	r := Ranks(all)
	n, n1 := len(all), len(a)
	mean := float64(n1*(n+1)) / 2
	obs := 0.0
	for i := range a {
		obs += r[i]
	}
	far := math.Abs(obs - mean)
	hit, total := 0, 0
	for mask := 0; mask < 1<<n; mask++ {
		if bits.OnesCount(uint(mask)) != n1 {
			continue
		}
		sum := 0.0
		for i := range n {
			if mask&(1<<i) != 0 {
				sum += r[i]
			}
		}
		total++
		if math.Abs(sum-mean) >= far-1e-9 {
			hit++
		}
	}
	return float64(hit) / float64(total)
}
