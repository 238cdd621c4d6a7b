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

// TestE10 checks E10's bookkeeping on the csv subject: a run per filter
// and repetition; rows whose shares and medians are those of the runs;
// and the files WriteE10 writes.
func TestE10(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	res, err := eval.E10(context.Background(), eval.E10Config{Subjects: []subject.Setup{setup(t, "csv")}, Trials: 200, Seeds: 5,
		Execs: 1500, Reps: 2, Seed: 1, CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Subjects[0]
	filters := fuzz.Filters()
	if s.Error != "" || len(s.Runs) != 2*len(filters) || len(s.Rows) != len(filters) || len(s.Candidates) != 2 {
		t.Fatalf("subject %+v", s)
	}
	for _, r := range s.Runs {
		if r.Covered == 0 || r.Reached == 0 || r.Reached > 1500 {
			t.Errorf("run %+v", r)
		}
	}
	for _, row := range s.Rows {
		var covered, reached []float64
		caught := 0
		for _, r := range s.Runs {
			if r.Filter == row.Filter {
				covered = append(covered, float64(r.Covered))
				if r.Reached > 0 {
					caught++
					reached = append(reached, float64(r.Reached))
				}
			}
		}
		if row.Covered != eval.Median(covered) || row.CaughtUp != float64(caught)/2 || (caught > 0 && row.ExecsToMeet != eval.Median(reached)) {
			t.Errorf("row %+v, runs %v %v", row, covered, reached)
		}
	}
	files, err := eval.WriteE10(filepath.Join(t.TempDir(), "e10"), res)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
