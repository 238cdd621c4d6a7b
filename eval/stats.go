package eval

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Mean of xs (0 for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// Quantile q (0..1) of xs by linear interpolation between order statistics.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// Wilcoxon is the two-sided Wilcoxon signed-rank test of paired samples:
// zero differences are dropped, tied absolute differences get mean ranks,
// and the p-value comes from the normal approximation with the variance
// corrected for ties and a continuity correction. W is the smaller of the
// positive and negative rank sums; N the number of non-zero differences.
func Wilcoxon(a, b []float64) (w, p float64, n int) {
	var d []float64
	for i := range a {
		if diff := a[i] - b[i]; diff != 0 {
			d = append(d, diff)
		}
	}
	n = len(d)
	if n == 0 {
		return 0, 1, 0
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return math.Abs(d[idx[i]]) < math.Abs(d[idx[j]]) })
	ranks := make([]float64, n)
	tieTerm := 0.0
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(d[idx[j+1]]) == math.Abs(d[idx[i]]) {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = r
		}
		t := float64(j - i + 1)
		tieTerm += t*t*t - t
		i = j + 1
	}
	var plus, minus float64
	for i, x := range d {
		if x > 0 {
			plus += ranks[i]
		} else {
			minus += ranks[i]
		}
	}
	w = math.Min(plus, minus)
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	sd := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tieTerm/48)
	if sd == 0 {
		return w, 1, n
	}
	z := (math.Abs(plus-mean) - 0.5) / sd
	if z < 0 {
		z = 0
	}
	p = math.Erfc(z / math.Sqrt2)
	return w, math.Min(1, p), n
}

// CohensD is the standardised mean difference of two samples, with the
// pooled standard deviation.
func CohensD(a, b []float64) float64 {
	na, nb := float64(len(a)), float64(len(b))
	if na < 2 || nb < 2 {
		return 0
	}
	ma, mb := Mean(a), Mean(b)
	var va, vb float64
	for _, x := range a {
		va += (x - ma) * (x - ma)
	}
	for _, x := range b {
		vb += (x - mb) * (x - mb)
	}
	pooled := math.Sqrt((va + vb) / (na + nb - 2))
	if pooled == 0 {
		return 0
	}
	return (ma - mb) / pooled
}

// Ranks returns the 1-based ranks of xs, ties getting their mean rank.
func Ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return xs[idx[i]] < xs[idx[j]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}

// Spearman is Spearman's rank correlation: Pearson's correlation
// (gonum's stat.Correlation) of the average ranks. It is NaN when either
// sample is constant, where no correlation is defined.
func Spearman(x, y []float64) float64 {
	if len(x) < 2 || len(x) != len(y) {
		return 0
	}
	return stat.Correlation(Ranks(x), Ranks(y), nil)
}

// MannWhitney is the two-sided Mann–Whitney U test of two independent
// samples: U of the first sample, and its p-value. The p-value is exact
// (the share of all splits of the pooled ranks, mid-ranks for ties, whose
// U lies as far from its mean) when the samples have at most
// exactMannWhitney values together; beyond, it comes from the normal
// approximation with the variance corrected for ties and a continuity
// correction. The approximation is far off for small samples (five
// against five completely separated: 0.0122 against the exact 0.0079;
// three against three cannot go below 0.10), which are what long
// fuzzing campaigns afford.
func MannWhitney(a, b []float64) (u, p float64) {
	n1, n2 := float64(len(a)), float64(len(b))
	if n1 == 0 || n2 == 0 {
		return 0, 1
	}
	all := append(append([]float64(nil), a...), b...)
	r := Ranks(all)
	sum := 0.0
	for i := range a {
		sum += r[i]
	}
	u = sum - n1*(n1+1)/2
	if len(all) <= exactMannWhitney {
		return u, exactMannWhitneyP(r, len(a), sum)
	}
	n := n1 + n2
	// Tie correction: sum of t^3 - t over groups of tied values.
	sorted := append([]float64(nil), all...)
	sort.Float64s(sorted)
	ties := 0.0
	for i := 0; i < len(sorted); {
		j := i
		for j+1 < len(sorted) && sorted[j+1] == sorted[i] {
			j++
		}
		t := float64(j - i + 1)
		ties += t*t*t - t
		i = j + 1
	}
	sd := math.Sqrt(n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1))))
	if sd == 0 {
		return u, 1
	}
	z := (math.Abs(u-n1*n2/2) - 0.5) / sd
	if z < 0 {
		z = 0
	}
	return u, math.Min(1, math.Erfc(z/math.Sqrt2))
}

// exactMannWhitney is the most values MannWhitney's exact p-value is
// computed for: the number of splits, C(50, 25) ≈ 1.3e14 at most, stays
// exact in a float64's 53 bits.
const exactMannWhitney = 50

// exactMannWhitneyP is the exact two-sided p-value of a rank sum: the
// share of the C(n, n1) ways to choose n1 of the pooled ranks whose sum
// is at least as far from its mean as sum. Ranks are multiples of one
// half, so doubled sums are integers, counted by dynamic programming.
func exactMannWhitneyP(ranks []float64, n1 int, sum float64) float64 {
	total := 0
	for _, r := range ranks {
		total += int(math.Round(2 * r))
	}
	// ways[k][s]: subsets of k ranks with doubled sum s.
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, total+1)
	}
	ways[0][0] = 1
	for i, r := range ranks {
		v := int(math.Round(2 * r))
		for k := min(i+1, n1); k >= 1; k-- {
			for s := total - v; s >= 0; s-- {
				ways[k][s+v] += ways[k-1][s]
			}
		}
	}
	// The mean of a rank sum of n1 values is n1(n+1)/2; doubled, n1(n+1).
	mean := n1 * (len(ranks) + 1)
	far := absInt(int(math.Round(2*sum)) - mean)
	var hit, all float64
	for s, w := range ways[n1] {
		all += w
		if absInt(s-mean) >= far {
			hit += w
		}
	}
	return math.Min(1, hit/all)
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// column is f of each run: one measure across runs, for Median and
// MannWhitney.
func column[T any](rs []T, f func(T) float64) []float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return xs
}

// groupBy groups runs by key (a method or a variant), keeping their
// order within each group.
func groupBy[T any](rs []T, key func(T) string) map[string][]T {
	by := map[string][]T{}
	for _, r := range rs {
		by[key(r)] = append(by[key(r)], r)
	}
	return by
}
