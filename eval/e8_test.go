package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

// TestE8 checks E8's bookkeeping on the csv subject: three variants run
// Reps times; rare functions reached within the rare list and within
// the functions covered; medians and p-values that are those of the runs.
func TestE8(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	res, err := eval.E8(context.Background(), eval.E8Config{Subjects: []subject.Setup{setup(t, "csv")}, Execs: 300, Reps: 3,
		BaseInputs: 200, Seed: 1, CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Subjects[0]
	if s.Error != "" || len(s.Runs) != 9 || len(s.Rows) != 3 {
		t.Fatalf("subject %+v", s)
	}
	series := map[string][]float64{}
	calls := map[string][]float64{}
	for _, r := range s.Runs {
		if r.RareReached > len(s.Rare) || r.RareReached > r.Functions || r.Functions == 0 || r.MaxCalls == 0 || r.Costliest == "" {
			t.Errorf("run %+v", r)
		}
		series[r.Variant] = append(series[r.Variant], float64(r.RareReached))
		calls[r.Variant] = append(calls[r.Variant], float64(r.MaxCalls))
	}
	for _, row := range s.Rows {
		if row.RareReached != eval.Median(series[row.Variant]) || row.MaxCalls != eval.Median(calls[row.Variant]) {
			t.Errorf("row %+v, runs %v %v", row, series[row.Variant], calls[row.Variant])
		}
		if (row.Variant == eval.E8Zest) != (row.RareP == nil) {
			t.Errorf("row %+v", row)
		}
		if row.CallsP != nil {
			if _, p := eval.MannWhitney(calls[row.Variant], calls[eval.E8Zest]); p != *row.CallsP {
				t.Errorf("%s: p %v, the runs give %v", row.Variant, *row.CallsP, p)
			}
		}
	}
	files, err := eval.WriteE8(filepath.Join(t.TempDir(), "e8"), res)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
