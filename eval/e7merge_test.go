package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/subject"
)

// runKeys lists a result's runs as subject/method/rep.
func runKeys(r *eval.E7Result) []string {
	var keys []string
	for _, s := range r.Subjects {
		for _, run := range s.Runs {
			keys = append(keys, fmt.Sprintf("%s/%s/%d", s.Subject, run.Method, run.Rep))
		}
	}
	return keys
}

// TestE7Shards: a campaign run in 3 shards and merged has the runs of
// the campaign run whole, in the same order, with rows over all of them;
// each shard runs whole repetitions (every method of one together) and
// none runs a repetition twice. A shard's result resumed runs nothing
// again and keeps its runs as they were.
func TestE7Shards(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subjects")
	}
	ctx := context.Background()
	base := eval.E7Config{Subjects: []subject.Setup{setup(t, "csv"), setup(t, "cron")}, Time: 100 * time.Millisecond, Reps: 4, Seed: 1,
		Methods: []string{eval.E7Random, eval.E7Zest}, CacheDir: coverage.DefaultCacheDir()}
	whole, err := eval.E7(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var shards []*eval.E7Result
	for i := 1; i <= 3; i++ {
		cfg := base
		cfg.Shard, cfg.Shards = i, 3
		r, err := eval.E7(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Shard != fmt.Sprintf("%d/3", i) {
			t.Errorf("shard %d says it is %q", i, r.Shard)
		}
		for _, s := range r.Subjects {
			for j := 0; j < len(s.Runs); j += 2 {
				if s.Runs[j].Rep != s.Runs[j+1].Rep || s.Runs[j].Method != eval.E7Random || s.Runs[j+1].Method != eval.E7Zest {
					t.Errorf("shard %d, %s: a repetition split: %+v %+v", i, s.Subject, s.Runs[j], s.Runs[j+1])
				}
			}
		}
		shards = append(shards, r)

		// Resumed from its own result, the shard runs nothing again.
		cfg.Done, cfg.Time = r, base.Time
		again, err := eval.E7(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(r.Subjects)
		b, _ := json.Marshal(again.Subjects)
		if string(a) != string(b) {
			t.Errorf("shard %d resumed from its finished result changed it:\n%s\n%s", i, a, b)
		}
	}
	merged, missing, err := eval.MergeE7([]*eval.E7Result{shards[2], shards[0], shards[1]})
	if err != nil || missing != 0 {
		t.Fatalf("merge: %v, %d missing", err, missing)
	}
	for _, s := range whole.Subjects {
		if s.Error != "" {
			// Say why a subject's runs are missing, not only that they are.
			t.Errorf("the whole campaign, %s: %s", s.Subject, s.Error)
		}
	}
	if got, want := runKeys(merged), runKeys(whole); !slices.Equal(got, want) || len(want) != 16 {
		t.Errorf("merged runs %v\nwhole campaign's %v", got, want)
	}
	for _, s := range merged.Subjects {
		if len(s.Rows) != 2 || s.Rows[0].Runs != 4 || s.Rows[1].PvsRandom == nil {
			t.Errorf("%s: rows %+v", s.Subject, s.Rows)
		}
	}
	if _, _, err := eval.MergeE7([]*eval.E7Result{shards[0], shards[0]}); err == nil || !strings.Contains(err.Error(), "in two results") {
		t.Errorf("a shard merged twice: %v", err)
	}
	if _, missing, _ := eval.MergeE7(shards[:2]); missing == 0 {
		t.Errorf("a shard left out: nothing missing")
	}
}

// TestE7Resume: a campaign stopped after some runs, resumed, keeps them
// as they were and makes the others; results of other settings, or of
// another shard, are refused.
func TestE7Resume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	ctx := context.Background()
	cfg := eval.E7Config{Subjects: []subject.Setup{setup(t, "csv")}, Time: 100 * time.Millisecond, Reps: 2, Seed: 1,
		Methods: []string{eval.E7Random, eval.E7Zest}, CacheDir: coverage.DefaultCacheDir()}
	full, err := eval.E7(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s := full.Subjects[0]; len(s.Runs) != 4 {
		// Say why, rather than fail on the slice below.
		t.Fatalf("the whole campaign made %d runs of 4; its error: %q", len(s.Runs), s.Error)
	}
	// Stopped after three runs: what its checkpoint wrote.
	part := *full
	part.Subjects = []eval.E7Subject{full.Subjects[0]}
	part.Subjects[0].Runs = full.Subjects[0].Runs[:3]
	cfg.Done = &part
	res, err := eval.E7(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	runs := res.Subjects[0].Runs
	if len(runs) != 4 || runs[3].Method != eval.E7Zest || runs[3].Rep != 1 {
		t.Fatalf("resumed: %v", runKeys(res))
	}
	a, _ := json.Marshal(runs[:3])
	b, _ := json.Marshal(full.Subjects[0].Runs[:3])
	if string(a) != string(b) {
		t.Errorf("the finished runs changed:\n%s\n%s", a, b)
	}
	for _, tt := range []struct {
		name   string
		change func(*eval.E7Config)
		want   string
	}{
		{"seed", func(c *eval.E7Config) { c.Seed = 2 }, "seed 1, not 2"},
		{"time", func(c *eval.E7Config) { c.Time = time.Second }, "seconds a run"},
		{"methods", func(c *eval.E7Config) { c.Methods = []string{eval.E7Random} }, "methods"},
		{"shard", func(c *eval.E7Config) { c.Shard, c.Shards = 1, 2 }, "shard"},
	} {
		c := cfg
		tt.change(&c)
		if _, err := eval.E7(ctx, c); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestDecodeE7(t *testing.T) {
	ok := `{"seconds_per_run":1,"reps":2,"methods":["random","zest"],"all_subjects":["a"],"subjects":[{"subject":"a","runs":[{"method":"zest","rep":1}]}]}`
	tests := []struct{ name, json, err string }{
		{"ok", ok, ""},
		{"not json", `[`, "not E7's result"},
		{"old", `{"seconds_per_run":1,"reps":2,"methods":["random"],"subjects":[]}`, "no list of subjects"},
		{"no reps", strings.Replace(ok, `"reps":2`, `"reps":0`, 1), "0 repetitions"},
		{"method", strings.Replace(ok, `"methods":["random","zest"]`, `"methods":["afl"]`, 1), `no method "afl"`},
		{"run of another method", strings.Replace(ok, `"methods":["random","zest"]`, `"methods":["random"]`, 1), "does not run"},
		{"rep out of range", strings.Replace(ok, `"rep":1`, `"rep":2`, 1), "repetition 2, of 2"},
		{"twice", strings.Replace(ok, `{"method":"zest","rep":1}`, `{"method":"zest","rep":1},{"method":"zest","rep":1}`, 1), "two zest runs"},
		{"stranger", strings.Replace(ok, `{"subject":"a"`, `{"subject":"b"`, 1), "not in the campaign's list"},
		{"negative failures", strings.Replace(ok, `"rep":1`, `"rep":1,"failures":-1`, 1), "-1 failures"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := eval.DecodeE7([]byte(tt.json))
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
		})
	}
	// A gofuzz run written before Go's fuzzer was started again after a
	// failure has a failure and no count of them: it stopped at its
	// first, and the medians leave it out.
	old := `{"seconds_per_run":600,"reps":1,"methods":["gofuzz"],"all_subjects":["a"],"subjects":[{"subject":"a","runs":[
		{"method":"gofuzz","rep":0,"final":{"seconds":181},"failure":{"seconds":181,"input":"x","message":"FAIL"}}]}]}`
	r, err := eval.DecodeE7([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if run := r.Subjects[0].Runs[0]; !run.Stopped || run.Failures != 1 {
		t.Errorf("an old stopped run decoded as %+v", run)
	}
	m, _, err := eval.MergeE7([]*eval.E7Result{r})
	if err != nil {
		t.Fatal(err)
	}
	if row := m.Subjects[0].Rows[0]; row.Stopped != 1 {
		t.Errorf("row %+v: want its run stopped", row)
	}
	// ReadE7 names the file.
	path := filepath.Join(t.TempDir(), "e7.json")
	os.WriteFile(path, []byte(`{}`), 0o644)
	if _, err := eval.ReadE7(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadE7: %v", err)
	}
}

// FuzzDecodeE7: an e7.json from elsewhere is a result or an error, never
// a panic; a decoded result merges alone, and with itself only as an
// error when it has runs.
func FuzzDecodeE7(f *testing.F) {
	f.Add([]byte(`{"seconds_per_run":1,"reps":2,"methods":["random","zest"],"all_subjects":["a","b"],"subjects":[{"subject":"a","unit":"blocks","units":9,"runs":[{"method":"zest","rep":1,"final":{"valid_covered":3}}]}]}`))
	f.Add([]byte(`{"seconds_per_run":0.5,"reps":1,"methods":["gofuzz"],"all_subjects":["a"],"subjects":[{"subject":"a","skipped":[{"method":"gofuzz","reason":"x"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := eval.DecodeE7(data)
		if err != nil {
			return
		}
		m, _, err := eval.MergeE7([]*eval.E7Result{r})
		if err != nil {
			t.Fatalf("a decoded result does not merge alone: %v", err)
		}
		if len(runKeys(m)) != len(runKeys(r)) {
			t.Fatalf("merged %d runs of %d", len(runKeys(m)), len(runKeys(r)))
		}
		if len(runKeys(r)) > 0 {
			if _, _, err := eval.MergeE7([]*eval.E7Result{r, r}); err == nil {
				t.Fatalf("a result merged with itself: no error")
			}
		}
		if _, err := eval.WriteE7(t.TempDir(), m); err != nil && !strings.Contains(err.Error(), "plot") {
			t.Logf("write: %v", err)
		}
	})
}

// TestE7LastGain: a row's gain in the last tenth is the median over its
// runs of the valid coverage at the end less that at nine tenths of the
// run (the last curve point by then).
func TestE7LastGain(t *testing.T) {
	pt := func(sec float64, valid int) eval.E7Point { return eval.E7Point{Seconds: sec, ValidCovered: valid} }
	rising := eval.E7Run{Method: eval.E7Random, Rep: 0, Final: pt(10, 30), Curve: []eval.E7Point{pt(1, 10), pt(5, 20), pt(9.5, 25), pt(10, 30)}}
	flat := eval.E7Run{Method: eval.E7Random, Rep: 1, Final: pt(10, 20), Curve: []eval.E7Point{pt(1, 10), pt(2, 20), pt(10, 20)}}
	late := eval.E7Run{Method: eval.E7Random, Rep: 2, Final: pt(10, 7), Curve: []eval.E7Point{pt(9.2, 7), pt(10, 7)}}
	r := &eval.E7Result{Seconds: 10, Reps: 3, Methods: []string{eval.E7Random}, All: []string{"s"},
		Subjects: []eval.E7Subject{{Subject: "s", Runs: []eval.E7Run{rising, flat, late}}}}
	m, _, err := eval.MergeE7([]*eval.E7Result{r})
	if err != nil {
		t.Fatal(err)
	}
	// Gains 10 (20 at 9 s), 0 and 7 (nothing before 9 s): median 7.
	if got := m.Subjects[0].Rows[0].LastGain; got != 7 {
		t.Errorf("gain in the last tenth %v, want 7", got)
	}
}
