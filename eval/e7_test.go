package eval_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

// TestE7 checks E7's bookkeeping on the csv subject: three methods, each
// run Reps times for about the time given; curves that only grow and end
// at the run's final state; valid coverage within coverage; medians and
// p-values that are those of the runs; and the files WriteE7 writes.
func TestE7(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	cfg := eval.E7Config{Subjects: []eval.SubjectSetup{setup(t, "csv")}, Time: 300 * time.Millisecond, Reps: 3, Seed: 1,
		CacheDir: coverage.DefaultCacheDir()}
	start := time.Now()
	res, err := eval.E7(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 9*cfg.Time {
		t.Errorf("9 runs of %v took %v", cfg.Time, took)
	}
	s := res.Subjects[0]
	if s.Error != "" || s.Unit != "blocks" || s.Units == 0 || len(s.Runs) != 9 || len(s.Rows) != 3 {
		t.Fatalf("subject %+v", s)
	}
	finals := map[string][]float64{}
	for _, r := range s.Runs {
		if r.Final.Execs == 0 || r.Final.Covered == 0 || r.Final.ValidCovered > r.Final.Covered || r.Final.Covered > s.Units {
			t.Errorf("%s run %d ends at %+v", r.Method, r.Rep, r.Final)
		}
		for i := 1; i < len(r.Curve); i++ {
			a, b := r.Curve[i-1], r.Curve[i]
			if b.Seconds < a.Seconds || b.Execs < a.Execs || b.Covered < a.Covered || b.ValidCovered < a.ValidCovered {
				t.Errorf("%s run %d: the curve goes back from %+v to %+v", r.Method, r.Rep, a, b)
			}
		}
		if last := r.Curve[len(r.Curve)-1]; last != r.Final {
			t.Errorf("%s run %d: the curve ends at %+v, the run at %+v", r.Method, r.Rep, last, r.Final)
		}
		finals[r.Method] = append(finals[r.Method], float64(r.Final.ValidCovered))
	}
	for _, row := range s.Rows {
		if got := eval.Median(finals[row.Method]); got != row.ValidCovered {
			t.Errorf("%s: median valid coverage %v, the runs give %v", row.Method, row.ValidCovered, got)
		}
		if (row.Method == eval.E7Zest) != (row.PvsZest == nil) {
			t.Errorf("%s: p vs zest %v", row.Method, row.PvsZest)
		}
		if row.PvsZest != nil {
			if _, p := eval.MannWhitney(finals[row.Method], finals[eval.E7Zest]); p != *row.PvsZest {
				t.Errorf("%s: p %v, the runs give %v", row.Method, *row.PvsZest, p)
			}
		}
	}
	dir := t.TempDir()
	files, err := eval.WriteE7(filepath.Join(dir, "e7"), res)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Errorf("files %v", files)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	data, _ := os.ReadFile(files[0])
	var back eval.E7Result
	if err := json.Unmarshal(data, &back); err != nil || len(back.Subjects) != 1 || len(back.Subjects[0].Runs) != 9 {
		t.Errorf("e7.json: %v", err)
	}
}

// TestE7BadSubject: a subject that cannot run is reported with its error,
// and the others still run.
func TestE7BadSubject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	bad := setup(t, "csv")
	bad.Name = "broken"
	bad.Target.ImportPath, bad.Target.Func = "example.com/nowhere", "Run"
	res, err := eval.E7(context.Background(), eval.E7Config{Subjects: []eval.SubjectSetup{bad, setup(t, "csv")},
		Time: 100 * time.Millisecond, Reps: 1, CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Subjects) != 2 || res.Subjects[0].Error == "" || res.Subjects[1].Error != "" || len(res.Subjects[1].Runs) != 3 {
		t.Errorf("result %+v", res)
	}
}
