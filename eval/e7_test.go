package eval_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/internal/testenv"
	"github.com/arbor-fuzz/arbor/subject"
)

// TestE7 checks E7's bookkeeping on the csv subject: four methods (all
// but gofuzz, which TestE7GoFuzz runs), each run Reps times for about the
// time given; curves that only grow and end at the run's final state;
// valid coverage within coverage; medians and p-values that are those of
// the runs; and the files WriteE7 writes.
func TestE7(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	cfg := eval.E7Config{Subjects: []subject.Setup{setup(t, "csv")}, Time: 300 * time.Millisecond, Reps: 3, Seed: 1,
		Methods: []string{eval.E7Random, eval.E7RL, eval.E7Zest, eval.E7ZestFresh}, CacheDir: coverage.DefaultCacheDir()}
	// The checkpoint sees every run as it finishes, then the whole.
	var seen []int
	cfg.Checkpoint = func(r *eval.E7Result) error {
		n := 0
		for _, s := range r.Subjects {
			n += len(s.Runs)
		}
		seen = append(seen, n)
		return nil
	}
	start := time.Now()
	res, err := eval.E7(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12}; !slices.Equal(seen, want) {
		t.Errorf("checkpoints saw %v runs, want %v", seen, want)
	}
	if took := time.Since(start); took < 12*cfg.Time {
		t.Errorf("12 runs of %v took %v", cfg.Time, took)
	}
	s := res.Subjects[0]
	if s.Error != "" || s.Unit != "blocks" || s.Units == 0 || len(s.Runs) != 12 || len(s.Rows) != 4 || len(s.Skipped) != 0 {
		t.Fatalf("subject %+v", s)
	}
	if res.Fresh != eval.DefaultE7Fresh {
		t.Errorf("zest-fresh ran with a share of %v fresh inputs, want the default %v", res.Fresh, eval.DefaultE7Fresh)
	}
	finals := map[string][]float64{}
	for _, r := range s.Runs {
		checkE7Run(t, s, r)
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
		if (row.Method == eval.E7Random) != (row.PvsRandom == nil) {
			t.Errorf("%s: p vs random %v", row.Method, row.PvsRandom)
		}
		if row.PvsRandom != nil {
			if _, p := eval.MannWhitney(finals[row.Method], finals[eval.E7Random]); p != *row.PvsRandom {
				t.Errorf("%s: p vs random %v, the runs give %v", row.Method, *row.PvsRandom, p)
			}
		}
		if row.Runs != 3 || row.Stopped != 0 {
			t.Errorf("%s: %d runs, %d stopped; want 3 whole", row.Method, row.Runs, row.Stopped)
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
	if err := json.Unmarshal(data, &back); err != nil || len(back.Subjects) != 1 || len(back.Subjects[0].Runs) != 12 {
		t.Errorf("e7.json: %v", err)
	}
}

// TestE7Bonsai: the bonsai method runs Bonsai's lattice for the run's
// time and is measured as the others are.
func TestE7Bonsai(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	res, err := eval.E7(context.Background(), eval.E7Config{Subjects: []subject.Setup{setup(t, "csv")}, Time: 500 * time.Millisecond, Reps: 1,
		Methods: []string{eval.E7Bonsai, eval.E7Random}, CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Subjects[0]
	if len(s.Runs) != 2 || s.Runs[0].Method != eval.E7Random || s.Runs[1].Method != eval.E7Bonsai {
		t.Fatalf("runs %+v", s.Runs)
	}
	checkE7Run(t, s, s.Runs[1])
	if row := s.Rows[1]; row.Method != eval.E7Bonsai || row.PvsRandom == nil {
		t.Errorf("row %+v", row)
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
	res, err := eval.E7(context.Background(), eval.E7Config{Subjects: []subject.Setup{bad, setup(t, "csv")},
		Time: 100 * time.Millisecond, Reps: 1, Methods: []string{eval.E7Random, eval.E7RL, eval.E7Zest}, CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Subjects) != 2 || res.Subjects[0].Error == "" || res.Subjects[1].Error != "" || len(res.Subjects[1].Runs) != 3 {
		t.Errorf("result %+v", res)
	}
}

// checkE7Run checks a run: it ran and covered something, within the
// subject's units, valid coverage within coverage; its curve only grows
// and ends at its final state.
func checkE7Run(t *testing.T, s eval.E7Subject, r eval.E7Run) {
	t.Helper()
	if r.Final.Execs == 0 || r.Final.Covered == 0 || r.Final.ValidCovered > r.Final.Covered || r.Final.Covered > s.Units {
		t.Errorf("%s run %d ends at %+v", r.Method, r.Rep, r.Final)
	}
	for i := 1; i < len(r.Curve); i++ {
		a, b := r.Curve[i-1], r.Curve[i]
		if b.Seconds < a.Seconds || b.Execs < a.Execs || b.Covered < a.Covered || b.ValidCovered < a.ValidCovered {
			t.Errorf("%s run %d: the curve goes back from %+v to %+v", r.Method, r.Rep, a, b)
		}
	}
	if len(r.Curve) == 0 {
		t.Errorf("%s run %d has no curve", r.Method, r.Rep)
	} else if last := r.Curve[len(r.Curve)-1]; last != r.Final {
		t.Errorf("%s run %d: the curve ends at %+v, the run at %+v", r.Method, r.Rep, last, r.Final)
	}
}

// TestE7Methods: E7 runs the methods asked for, each once whatever the
// order and repetitions of the list, and reports them in E7Methods'
// order; without zest there is nothing to compare with. An unknown
// method, or a share of fresh inputs outside [0, 1), is an error; a
// method that cannot run (gofuzz without arbor's source) is skipped with
// its reason while the others run.
func TestE7Methods(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	ctx := context.Background()
	cfg := eval.E7Config{Subjects: []subject.Setup{setup(t, "csv")}, Time: 100 * time.Millisecond, Reps: 2, Seed: 1,
		Methods: []string{eval.E7RL, eval.E7Random, eval.E7RL}, CacheDir: coverage.DefaultCacheDir()}
	res, err := eval.E7(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Subjects[0]
	want := []string{eval.E7Random, eval.E7RL}
	if !slices.Equal(res.Methods, want) || s.Error != "" || len(s.Runs) != 4 || len(s.Rows) != 2 {
		t.Fatalf("methods %v, subject %+v", res.Methods, s)
	}
	for i, r := range s.Runs {
		if r.Method != want[i%2] || r.Rep != i/2 {
			t.Errorf("run %d is %s repetition %d", i, r.Method, r.Rep)
		}
	}
	for i, row := range s.Rows {
		if row.Method != want[i] || row.PvsZest != nil {
			t.Errorf("row %d: %s, p vs zest %v", i, row.Method, row.PvsZest)
		}
	}
	if res.Fresh != 0 {
		t.Errorf("fresh %v reported, but zest-fresh did not run", res.Fresh)
	}
	if _, err := eval.E7(ctx, eval.E7Config{Subjects: cfg.Subjects, Methods: []string{"afl"}}); err == nil || !strings.Contains(err.Error(), `"afl"`) {
		t.Errorf("an unknown method: %v", err)
	}
	if _, err := eval.E7(ctx, eval.E7Config{Subjects: cfg.Subjects, Methods: []string{eval.E7ZestFresh}, Fresh: 1}); err == nil {
		t.Error("a share of fresh inputs of 1 is accepted")
	}

	cfg.Methods, cfg.Reps, cfg.ArborDir = []string{eval.E7GoFuzz, eval.E7Random}, 1, t.TempDir()
	res, err = eval.E7(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s = res.Subjects[0]
	if s.Error != "" || len(s.Runs) != 1 || s.Runs[0].Method != eval.E7Random || len(s.Skipped) != 1 || s.Skipped[0].Method != eval.E7GoFuzz ||
		!strings.Contains(s.Skipped[0].Reason, "arbor's source") {
		t.Errorf("gofuzz without arbor's source: %+v", s)
	}
}

// TestE7GoFuzz runs Go's fuzzer on csv's grammar-aware fuzz target for
// 1.5 seconds: the clock leaves out compiling (the run lasts about its
// time), Go's progress lines give the executions, and the corpus it kept
// is measured: coverage grows past the seed's, at times within the run.
func TestE7GoFuzz(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a fuzz test and runs go test -fuzz")
	}
	testenv.NeedTool(t, "go", "Go 1.24 or newer, https://go.dev/doc/install")
	// cron's grammar has where clauses: the fuzz test's generator keeps
	// them as E7's own does, or its agreement test would fail and the
	// method be skipped.
	cfg := eval.E7Config{Subjects: []subject.Setup{setup(t, "cron")}, Time: 1500 * time.Millisecond, Reps: 1, Seed: 1,
		Methods: []string{eval.E7GoFuzz}, CacheDir: coverage.DefaultCacheDir()}
	res, err := eval.E7(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Subjects[0]
	if s.Error != "" || len(s.Skipped) != 0 || len(s.Runs) != 1 || len(s.Rows) != 1 {
		t.Fatalf("subject %+v", s)
	}
	r := s.Runs[0]
	checkE7Run(t, s, r)
	// Under load, Go before 1.27 may report the end of -fuzztime as a
	// failure (golang/go#75804): the run is whole, and says so.
	if r.Method != eval.E7GoFuzz || r.Note != "" && !strings.Contains(r.Note, "75804") {
		t.Errorf("run %s, note %q", r.Method, r.Note)
	}
	if r.Final.Seconds < cfg.Time.Seconds() || r.Final.Seconds > cfg.Time.Seconds()+1 {
		t.Errorf("a run of %v lasted %.2f s by its clock", cfg.Time, r.Final.Seconds)
	}
	// The seed's point, then points of files Go's fuzzer kept.
	if len(r.Curve) < 3 || r.Corpus < 3 || r.Curve[len(r.Curve)-2].Covered <= r.Curve[0].Covered || r.Final.ValidCovered == 0 {
		t.Errorf("the corpus added no coverage to the seed's: %d inputs, curve %+v", r.Corpus, r.Curve)
	}
	if r.Curve[0].Seconds != 0 {
		t.Errorf("the seed's point is at %v s", r.Curve[0].Seconds)
	}
	for _, p := range r.Curve[1 : len(r.Curve)-1] {
		if p.Seconds <= 0 || p.Seconds > r.Final.Seconds || p.Execs > r.Final.Execs {
			t.Errorf("point %+v outside the run (final %+v)", p, r.Final)
		}
	}
}

// TestE7GoFuzzFailure: a run whose fuzzer fails within a second of its
// start (so at every start) is not started again: it keeps the failing
// input and the fuzzer's message, and the row says it stopped.
func TestE7GoFuzzFailure(t *testing.T) {
	// A subject that ends its process on its 40th input: a crash Go's
	// fuzzer cannot recover from, after its seed has run.
	res := goFuzzFailing(t, "exits", 3*time.Second, `package lib

import "os"

var calls int

func Run(in []byte) error {
	if calls++; calls == 40 {
		os.Exit(7)
	}
	return nil
}
`)
	r, row := res.Subjects[0].Runs[0], res.Subjects[0].Rows[0]
	if r.Failure == nil || !r.Stopped || r.Restarts != 0 || !strings.Contains(r.Note, "stopped at a failure") {
		t.Fatalf("run note %q, failure %+v, stopped %v, %d restarts", r.Note, r.Failure, r.Stopped, r.Restarts)
	}
	if !strings.Contains(r.Failure.Message, "FAIL") || r.Failure.Seconds < 0 || r.Failure.Seconds > r.Final.Seconds+1 {
		t.Errorf("failure %+v", r.Failure)
	}
	t.Logf("failure %+v", r.Failure)
	if row.Runs != 1 || row.Stopped != 1 {
		t.Errorf("row %+v: want its one run, stopped", row)
	}
	if _, rows := res.Table(); !strings.Contains(rows[0][2], "every run stopped at a failure") {
		t.Errorf("table row %q", rows[0])
	}
}

// TestE7GoFuzzRestart: Go's fuzzer stops at its first failure; a run
// with time left starts it again on the corpus it kept, counts every
// failure, keeps the first, and is whole: its medians count it.
func TestE7GoFuzzRestart(t *testing.T) {
	// A subject whose every process ends itself 1.5 seconds after it
	// started: a crash Go's fuzzer cannot recover from, after it fuzzed
	// for a while, at every start.
	budget := 6 * time.Second
	res := goFuzzFailing(t, "exits-later", budget, `package lib

import (
	"os"
	"time"
)

var start = time.Now()

func Run(in []byte) error {
	if time.Since(start) > 1500*time.Millisecond {
		os.Exit(7)
	}
	return nil
}
`)
	r, row := res.Subjects[0].Runs[0], res.Subjects[0].Rows[0]
	t.Logf("note %q, %d failures, %d restarts, final %+v", r.Note, r.Failures, r.Restarts, r.Final)
	if r.Restarts < 1 || r.Failures < r.Restarts || r.Stopped || r.Failure == nil || !strings.Contains(r.Note, "started again") {
		t.Fatalf("run: note %q, %d failures, %d restarts, stopped %v, failure %+v", r.Note, r.Failures, r.Restarts, r.Stopped, r.Failure)
	}
	if r.Final.Seconds < budget.Seconds()-1 {
		t.Errorf("a run of %v ended after %.2f s", budget, r.Final.Seconds)
	}
	if r.Failure.Seconds < 1 || r.Failure.Seconds > 3 || !strings.Contains(r.Failure.Message, "FAIL") {
		t.Errorf("first failure %+v: want it about 1.5 s in", r.Failure)
	}
	// Executions keep counting across the starts.
	for i := 1; i < len(r.Curve); i++ {
		if r.Curve[i].Execs < r.Curve[i-1].Execs || r.Curve[i].Seconds < r.Curve[i-1].Seconds {
			t.Errorf("curve goes back at point %d: %+v", i, r.Curve)
		}
	}
	if row.Runs != 1 || row.Stopped != 0 || row.Restarted != 1 {
		t.Errorf("row %+v: want its one run, whole and started again", row)
	}
	if _, rows := res.Table(); !strings.Contains(rows[0][2], "started again") {
		t.Errorf("table row %q", rows[0])
	}
}

// goFuzzFailing runs E7's gofuzz once for budget on a subject whose
// function is lib.Run of the source given (on csv's grammar), and
// checks that it made one run and one row.
func goFuzzFailing(t *testing.T, name string, budget time.Duration, lib string) *eval.E7Result {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a fuzz test and runs go test -fuzz")
	}
	testenv.NeedTool(t, "go", "Go 1.24 or newer, https://go.dev/doc/install")
	s := setup(t, "csv")
	s.Name = name
	path := "example.com/" + name
	s.Target = coverage.Target{ImportPath: path + "/lib", Func: "Run", CoverPkgs: []string{path + "/lib"}, Dir: writeModule(t, path, lib)}
	res, err := eval.E7(context.Background(), eval.E7Config{Subjects: []subject.Setup{s}, Time: budget, Reps: 1, Seed: 1,
		Methods: []string{eval.E7GoFuzz}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if es := res.Subjects[0]; es.Error != "" || len(es.Runs) != 1 || len(es.Rows) != 1 {
		t.Fatalf("subject %+v", es)
	}
	return res
}

// writeModule writes a module of one package, lib, with the source given.
func writeModule(t *testing.T, path, lib string) string {
	t.Helper()
	return fixture.Module(t, map[string]string{"go.mod": "module " + path + "\n\ngo 1.24\n", "lib/lib.go": lib})
}

// TestE7FreshProcess checks that every run starts in a process of its
// own, warmed up before its clock starts: the subject does one-time work
// on its first call and rejects that call, as a library that builds its
// environment on first use and then finds the input wrong does. Run in
// one shared process, the first run alone was credited with the one-time
// blocks; in a cold process per run, each run's first input was, and
// being rejected it took them out of the run's valid coverage for good.
func TestE7FreshProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a subject")
	}
	mod := fixture.OnceModule(t)
	s := setup(t, "csv")
	s.Name = "once"
	s.Target = coverage.Target{ImportPath: "example.com/once/lib", Func: "Run", Dir: mod, CoverPkgs: []string{"example.com/once/lib"}}
	res, err := eval.E7(context.Background(), eval.E7Config{Subjects: []subject.Setup{s}, Time: 100 * time.Millisecond, Reps: 2,
		Methods: []string{eval.E7Random, eval.E7Zest}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	runs := res.Subjects[0].Runs
	if len(runs) != 4 {
		t.Fatalf("result %+v", res.Subjects[0])
	}
	for _, r := range runs {
		if r.Final.Execs == 0 || r.Final.Covered == 0 {
			t.Fatalf("%s run %d: %+v", r.Method, r.Rep, r.Final)
		}
		if r.Final.Covered != runs[0].Final.Covered {
			t.Errorf("%s run %d covered %d blocks, run 0 %d: every run should start alike", r.Method, r.Rep, r.Final.Covered, runs[0].Final.Covered)
		}
		if r.Final.ValidCovered != r.Final.Covered {
			t.Errorf("%s run %d: %d valid blocks of %d covered: the one-time work of the rejected first call was credited to the run", r.Method, r.Rep, r.Final.ValidCovered, r.Final.Covered)
		}
	}
}
