package eval_test

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/eval"
)

// TestE3 runs a small E3 on the url subject and checks the bookkeeping:
// every function's confusion counts cover every test input, metrics lie
// in [0, 1], and the means are the means of the per-function values.
func TestE3(t *testing.T) {
	if testing.Short() {
		t.Skip("records coverage")
	}
	s, _ := datasets.LookupSubject("url")
	target, err := s.Target()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := datasets.Grammar(s.Grammar)
	res, err := eval.E3(context.Background(), eval.E3Config{Subject: "url", GrammarName: "url", Grammar: g,
		Target: target,
		Train:  200, Test: 150, Seed: 7, WorkDir: t.TempDir(), CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.FunctionsTrainable == 0 || res.FunctionsTrainable > res.FunctionsObserved || res.TestInputs == 0 {
		t.Fatalf("result %+v", res)
	}
	var acc, prec, rec float64
	for _, f := range res.PerFunction {
		if n := f.TP + f.FP + f.TN + f.FN; n != res.TestInputs {
			t.Errorf("%s: %d predictions for %d test inputs", f.Function, n, res.TestInputs)
		}
		for _, v := range []float64{f.Accuracy, f.Precision, f.Recall} {
			if v < 0 || v > 1 {
				t.Errorf("%s: metric %v outside [0, 1]", f.Function, v)
			}
		}
		acc, prec, rec = acc+f.Accuracy, prec+f.Precision, rec+f.Recall
	}
	n := float64(len(res.PerFunction))
	if math.Abs(acc/n-res.Accuracy) > 1e-9 || math.Abs(prec/n-res.Precision) > 1e-9 || math.Abs(rec/n-res.Recall) > 1e-9 {
		t.Errorf("means %v %v %v are not the per-function means", res.Accuracy, res.Precision, res.Recall)
	}
	if res.Accuracy < 0.8 {
		t.Errorf("accuracy %.3f on url: far below the published range", res.Accuracy)
	}
}
