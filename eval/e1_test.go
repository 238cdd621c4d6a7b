package eval_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

func setup(t *testing.T, name string) subject.Setup {
	t.Helper()
	s, err := subject.Load(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func within01(t *testing.T, what string, xs ...float64) {
	t.Helper()
	for _, x := range xs {
		if !(x >= 0 && x <= 1) {
			t.Errorf("%s = %v, outside [0, 1]", what, x)
		}
	}
}

// TestE1 checks E1's bookkeeping on the csv subject: one cell per k, one
// value per repetition, means that are the means of the series, and
// shares and p-values in [0, 1].
func TestE1(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	s := setup(t, "csv")
	const reps = 4
	res, err := eval.E1(context.Background(), eval.E1Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target,
		Ks: []int{1, 2}, Reps: reps, Seed: 3, CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalBlocks == 0 || res.TotalFunctions == 0 {
		t.Fatalf("totals %d blocks, %d functions", res.TotalBlocks, res.TotalFunctions)
	}
	if len(res.Cells) != 2 || res.Cells[0].K != 1 || res.Cells[1].K != 2 {
		t.Fatalf("cells %+v, want k = 1, 2", res.Cells)
	}
	for _, c := range res.Cells {
		if len(c.BlockSeriesKPath) != reps || len(c.BlockSeriesRand) != reps {
			t.Errorf("k=%d: series of %d and %d values, want %d", c.K, len(c.BlockSeriesKPath), len(c.BlockSeriesRand), reps)
		}
		if math.Abs(eval.Mean(c.BlockSeriesKPath)-c.BlocksKPath) > 1e-9 || math.Abs(eval.Mean(c.BlockSeriesRand)-c.BlocksRandom) > 1e-9 {
			t.Errorf("k=%d: means %v, %v are not the series' means", c.K, c.BlocksKPath, c.BlocksRandom)
		}
		if c.SetSize < 1 {
			t.Errorf("k=%d: set size %v", c.K, c.SetSize)
		}
		within01(t, fmt.Sprintf("k=%d coverage", c.K), c.BlocksKPath, c.BlocksRandom, c.FunctionsKPath, c.FunctionsRandom)
		within01(t, fmt.Sprintf("k=%d p", c.K), c.BlocksP, c.FunctionsP)
		within01(t, fmt.Sprintf("k=%d series", c.K), append(c.BlockSeriesKPath, c.BlockSeriesRand...)...)
		if c.BlocksU < 0 || c.BlocksU > reps*reps {
			t.Errorf("k=%d: U = %v outside [0, %d]", c.K, c.BlocksU, reps*reps)
		}
	}
	for _, p := range res.Panics {
		within01(t, "panic rate", p.RateKPath, p.RateRandom)
	}
}

// TestE2 checks E2 on the csv subject: the sets span a range of k-path
// coverage starting from a single input, ρ is a correlation, and the
// same seed gives the same result.
func TestE2(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	s := setup(t, "csv")
	cfg := eval.E2Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target, MaxK: 3, Sets: 12, MaxSize: 30, Seed: 5, CacheDir: coverage.DefaultCacheDir()}
	res, err := eval.E2(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != cfg.Sets || len(res.Rho) != cfg.MaxK {
		t.Fatalf("%d points and %d coefficients, want %d and %d", len(res.Points), len(res.Rho), cfg.Sets, cfg.MaxK)
	}
	if res.Points[0].Inputs != 1 {
		t.Errorf("first set has %d inputs, want 1 (the low end of the range)", res.Points[0].Inputs)
	}
	lo, hi := 1.0, 0.0
	for _, p := range res.Points {
		if p.Inputs < 1 || p.Inputs > cfg.MaxSize {
			t.Errorf("set of %d inputs, want 1..%d", p.Inputs, cfg.MaxSize)
		}
		within01(t, "block coverage", p.Blocks)
		within01(t, "k-path coverage", p.KPath...)
		lo, hi = min(lo, p.KPath[cfg.MaxK-1]), max(hi, p.KPath[cfg.MaxK-1])
	}
	if hi-lo < 0.1 {
		t.Errorf("k-path coverage spans only [%v, %v]", lo, hi)
	}
	for _, rho := range res.Rho {
		if !(rho >= -1 && rho <= 1) {
			t.Errorf("ρ = %v", rho)
		}
	}
	again, err := eval.E2(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, again) {
		t.Error("the same seed gave different results")
	}
}

// TestAllStopped checks that a run stopped early still leaves a report
// saying where it stopped.
func TestAllStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	path, err := eval.All(ctx, eval.AllConfig{Out: dir, Quick: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Stopped before finishing") || !strings.Contains(string(b), "# arbor evaluation report") {
		t.Errorf("report:\n%s", b)
	}
}

func TestNumberRecord(t *testing.T) {
	if !eval.NumberRecord([]byte(`{"a": 1, "b": -2.5}`)) || eval.NumberRecord([]byte(`{"a": 1}`)) || eval.NumberRecord([]byte(`{"a": 1, "a": 2}`)) || eval.NumberRecord([]byte(`{"a": 1, "b": "x"}`)) {
		t.Errorf("NumberRecord judges wrongly")
	}
}
