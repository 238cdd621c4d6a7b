package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/subject"
)

// TestE9 checks E9's bookkeeping on the csv subject: a run per method and
// repetition, each within the budget, with a corpus whose coverage run
// again is what all its executions ran at most; rows whose medians are
// those of the runs; and the files WriteE9 writes.
func TestE9(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	top := fuzz.Bounds{MaxDistinct: 2, MaxRepeat: 2, MaxDepth: 12}
	res, err := eval.E9(context.Background(), eval.E9Config{Subjects: []subject.Setup{setup(t, "csv")}, Execs: 800, Reps: 2, Seed: 1,
		Top: top, Levels: 2, CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Subjects[0]
	if s.Error != "" || len(s.Runs) != 6 || len(s.Rows) != 3 || s.Lattice != 8 {
		t.Fatalf("subject %+v", s)
	}
	for _, r := range s.Runs {
		if r.Execs != 800 || r.Files == 0 || r.Bytes == 0 || r.CorpusCovered == 0 || r.CorpusCovered > r.Covered || r.ValidCovered > r.CorpusCovered || r.Largest > r.Bytes {
			t.Errorf("run %+v", r)
		}
	}
	for _, row := range s.Rows {
		var bytes, covered []float64
		for _, r := range s.Runs {
			if r.Method == row.Method {
				bytes = append(bytes, float64(r.Bytes))
				covered = append(covered, float64(r.CorpusCovered))
			}
		}
		if len(bytes) != 2 || row.Bytes != eval.Median(bytes) || row.CorpusCovered != eval.Median(covered) {
			t.Errorf("row %+v, runs %v %v", row, bytes, covered)
		}
		if (row.Method == eval.E9Zest) != (row.BytesP == nil) {
			t.Errorf("row %+v: a p-value against zest for every method but zest", row)
		}
	}
	files, err := eval.WriteE9(filepath.Join(t.TempDir(), "e9"), res)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
