package eval

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
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
		s, err := LoadSubject("csv")
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
