package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

// TestMain lets TestSuiteShards run this test binary as a shard of the
// suite: a process of its own, as a shard on another machine would be.
func TestMain(m *testing.M) {
	if spec := os.Getenv("ARBOR_TEST_SUITE_SHARD"); spec != "" {
		os.Exit(runShard(spec))
	}
	os.Exit(m.Run())
}

// runShard runs "i/n subjects out": eval.Suite's quick preset, seed 1.
func runShard(spec string) int {
	f := strings.Fields(spec)
	i, n, _ := strings.Cut(f[0], "/")
	shard, _ := strconv.Atoi(i)
	shards, _ := strconv.Atoi(n)
	_, err := eval.Suite(context.Background(), eval.SuiteConfig{Subjects: strings.Split(f[1], ","), Quick: true, Seed: 1,
		Out: f[2], CacheDir: coverage.DefaultCacheDir(), Shard: shard, Shards: shards})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// timeless is a result without what depends on the clock or the folder
// it was written to: training and targeting times, the model's path.
func timeless(r *eval.SuiteResult) *eval.SuiteResult {
	c := *r
	c.Rows = nil
	for _, row := range r.Rows {
		if row.E3 != nil {
			e3 := *row.E3
			e3.TrainSeconds, e3.Model = 0, ""
			row.E3 = &e3
		}
		if row.E4 != nil {
			e4 := *row.E4
			e4.Seconds = 0
			row.E4 = &e4
		}
		c.Rows = append(c.Rows, row)
	}
	return &c
}

// TestSuiteShards: the suite run as 3 shard processes at once, merged,
// is the suite run in one process, row for row (timings aside), and its
// CSV is the same byte for byte.
func TestSuiteShards(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick suite on three subjects, twice")
	}
	subjects := "csv,cron,url"
	dir := t.TempDir()
	const n = 3
	procs := make([]*exec.Cmd, n)
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("ARBOR_TEST_SUITE_SHARD=%d/%d %s %s", i+1, n, subjects, filepath.Join(dir, fmt.Sprint("shard", i+1))))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[i] = cmd
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("shard %d: %s", i+1, out.String())
			}
		})
	}
	single, err := eval.Suite(context.Background(), eval.SuiteConfig{Subjects: strings.Split(subjects, ","), Quick: true, Seed: 1,
		Out: filepath.Join(dir, "single"), CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	var shards []*eval.SuiteResult
	for i, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("shard %d: %v", i+1, err)
		}
		r, err := eval.ReadSuite(filepath.Join(dir, fmt.Sprint("shard", i+1), "suite.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != 1 || r.Shard != fmt.Sprintf("%d/%d", i+1, n) {
			t.Fatalf("shard %d: %d rows, shard %q", i+1, len(r.Rows), r.Shard)
		}
		shards = append(shards, r)
	}
	merged, missing, err := eval.MergeSuite(shards)
	if err != nil || len(missing) > 0 {
		t.Fatalf("merge: %v, missing %v", err, missing)
	}
	for _, row := range single.Rows {
		if row.Error != "" {
			t.Fatalf("%s: %s", row.Subject, row.Error)
		}
	}
	// As JSON, the form in which both are written and read: the one run's
	// result in memory holds counts its file leaves out (json:"-").
	ja, err := json.MarshalIndent(timeless(single), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.MarshalIndent(timeless(merged), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if string(ja) != string(jb) || len(single.Rows) != 3 {
		t.Fatalf("merged shards differ from one run:\none run: %s\nmerged: %s", ja, jb)
	}
	if err := eval.WriteSuite(filepath.Join(dir, "merged"), merged); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "single", "suite.csv"))
	b, _ := os.ReadFile(filepath.Join(dir, "merged", "suite.csv"))
	if string(a) != string(b) || len(a) == 0 {
		t.Errorf("suite.csv differs:\none run:\n%s\nmerged:\n%s", a, b)
	}
}

func TestMergeSuite(t *testing.T) {
	b := eval.QuickSuiteBudgets
	all := []string{"a", "b", "c"}
	res := func(shard string, rows ...string) *eval.SuiteResult {
		r := &eval.SuiteResult{Budgets: b, Seed: 1, All: all, Shard: shard}
		for _, s := range rows {
			r.Rows = append(r.Rows, eval.SuiteRow{Subject: s, Error: "from " + shard})
		}
		return r
	}
	tests := []struct {
		name    string
		results []*eval.SuiteResult
		want    []string // the merged rows' subjects
		missing []string
		err     string
	}{
		{"shards", []*eval.SuiteResult{res("2/2", "b"), res("1/2", "a", "c")}, all, nil, ""},
		{"one missing", []*eval.SuiteResult{res("1/2", "a", "c")}, []string{"a", "c"}, []string{"b"}, ""},
		{"none", nil, nil, nil, "no results"},
		{"twice", []*eval.SuiteResult{res("1/2", "a", "c"), res("", "c")}, nil, nil, "subject c has a row in two results"},
		{"seed", []*eval.SuiteResult{res("1/2", "a"), func() *eval.SuiteResult { r := res("2/2", "b"); r.Seed = 2; return r }()}, nil, nil, "seed 2"},
		{"budgets", []*eval.SuiteResult{res("1/2", "a"), func() *eval.SuiteResult { r := res("2/2", "b"); r.Budgets = eval.DefaultSuiteBudgets; return r }()}, nil, nil, "budgets"},
		{"constraints", []*eval.SuiteResult{res("1/2", "a"), func() *eval.SuiteResult { r := res("2/2", "b"); r.NoConstraints = true; return r }()}, nil, nil, "constraints off"},
		{"subjects", []*eval.SuiteResult{res("1/2", "a"), func() *eval.SuiteResult { r := res("2/2", "b"); r.All = []string{"a", "b"}; return r }()}, nil, nil, "another list of subjects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, missing, err := eval.MergeSuite(tt.results)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range m.Rows {
				got = append(got, r.Subject)
			}
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(missing, tt.missing) {
				t.Errorf("rows %v missing %v, want %v and %v", got, missing, tt.want, tt.missing)
			}
		})
	}
}

func TestDecodeSuite(t *testing.T) {
	tests := []struct{ name, json, err string }{
		{"ok", `{"all_subjects":["a"],"subjects":[{"subject":"a"}]}`, ""},
		{"not json", `{`, "not a suite's result"},
		{"no list", `{"subjects":[]}`, "no list of subjects"},
		{"listed twice", `{"all_subjects":["a","a"]}`, "listed twice"},
		{"stranger", `{"all_subjects":["a"],"subjects":[{"subject":"b"}]}`, "not in the suite's list"},
		{"two rows", `{"all_subjects":["a"],"subjects":[{"subject":"a"},{"subject":"a"}]}`, "two rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := eval.DecodeSuite([]byte(tt.json))
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
		})
	}
}

// FuzzDecodeSuite: a suite.json from elsewhere is a result or an error,
// never a panic, and a result merges with itself only as a duplicate.
func FuzzDecodeSuite(f *testing.F) {
	f.Add([]byte(`{"all_subjects":["a","b"],"subjects":[{"subject":"a","e3":{"subject":"a"}}],"seed":3}`))
	f.Add([]byte(`{"all_subjects":["a"],"subjects":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := eval.DecodeSuite(data)
		if err != nil {
			return
		}
		m, _, err := eval.MergeSuite([]*eval.SuiteResult{r})
		if err != nil {
			t.Fatalf("a decoded result does not merge alone: %v", err)
		}
		if len(m.Rows) != len(r.Rows) {
			t.Fatalf("merged %d rows of %d", len(m.Rows), len(r.Rows))
		}
		if len(r.Rows) > 0 {
			if _, _, err := eval.MergeSuite([]*eval.SuiteResult{r, r}); err == nil {
				t.Fatalf("a result merged with itself: no error")
			}
		}
	})
}

// TestSuiteKilled kills the suite (SIGKILL) at seeded random moments:
// suite.json is never a part of a file, and what it holds merges.
func TestSuiteKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 5))
	written := 0
	defer func() { t.Logf("suite.json was there after %d of 6 kills", written) }()
	for i := range 6 {
		out := filepath.Join(dir, fmt.Sprint(i))
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "ARBOR_TEST_SUITE_SHARD=1/1 csv,cron,url "+out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Int64N(int64(3 * time.Second))))
		cmd.Process.Kill()
		cmd.Wait()
		res, err := eval.ReadSuite(filepath.Join(out, "suite.json"))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			t.Fatalf("kill %d: suite.json is damaged: %v", i, err)
		}
		if _, _, err := eval.MergeSuite([]*eval.SuiteResult{res}); err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		written++
	}
}
