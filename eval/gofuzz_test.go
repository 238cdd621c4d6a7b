package eval

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/subject"
)

// TestGoFuzzSkips: gofuzz applies to Go functions only, and needs arbor's
// source; otherwise it says why it does not apply, and is no error.
func TestGoFuzzSkips(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name   string
		target coverage.Target
		dir    string
		want   string
	}{
		{"c", coverage.Target{Harness: &coverage.HarnessTarget{Lang: "c"}}, "", "arbor's c harness"},
		{"command", coverage.Target{Command: &coverage.CommandTarget{Argv: []string{"true"}}}, "", "a command"},
		{"no source", coverage.Target{ImportPath: "example.com/p", Func: "Run"}, t.TempDir(), "arbor's source"},
	} {
		s, err := subject.Load(context.Background(), "csv")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := exec.LookPath("go"); err != nil && tt.name == "no source" {
			continue // the go command is looked for first
		}
		s.Name, s.Target = tt.name, tt.target
		g, skip, err := buildGoFuzz(ctx, E7Config{ArborDir: tt.dir}, s)
		if g != nil || err != nil || !strings.Contains(skip, tt.want) {
			t.Errorf("%s: skip %q, error %v; want a skip saying %q", tt.name, skip, err, tt.want)
		}
	}
}

// TestExecsAt: executions between Go's progress lines are interpolated,
// from none at the start; after the last line they are its count.
func TestExecsAt(t *testing.T) {
	samples := []execSample{{3, 300}, {6, 900}, {7, 1000}}
	for _, tt := range []struct {
		t    float64
		want int
	}{{0, 0}, {1.5, 150}, {3, 300}, {4.5, 600}, {7, 1000}, {9, 1000}} {
		if got := execsAt(samples, tt.t); got != tt.want {
			t.Errorf("at %v s: %d executions, want %d", tt.t, got, tt.want)
		}
	}
	if got := execsAt(nil, 5); got != 0 {
		t.Errorf("without progress lines: %d executions", got)
	}
}

// TestGoFuzzDeadlineRace tells the end-of-time race of Go's fuzzer
// (golang/go#75804; this output is from an E7 run on cron under load)
// from failures that write an input or crash the worker.
func TestGoFuzzDeadlineRace(t *testing.T) {
	race := []string{
		"fuzz: elapsed: 9s, execs: 67131 (6059/sec), new interesting: 144 (total: 145)",
		"fuzz: elapsed: 10s, execs: 77709 (9433/sec), new interesting: 147 (total: 148)",
		"--- FAIL: FuzzGrammar (10.15s)",
		"    context deadline exceeded",
		"FAIL",
	}
	if !goFuzzDeadlineRace(race) {
		t.Error("the race is not recognized")
	}
	for _, extra := range []string{"    Failing input written to testdata/fuzz/FuzzGrammar/0123456789abcdef", "fatal error: stack overflow"} {
		if goFuzzDeadlineRace(append(slices.Clone(race), extra)) {
			t.Errorf("with %q: taken for the race", extra)
		}
	}
	if goFuzzDeadlineRace([]string{"--- FAIL: FuzzGrammar (1.00s)", "    fuzz_test.go:9: boom", "FAIL"}) {
		t.Error("another failure taken for the race")
	}
}
