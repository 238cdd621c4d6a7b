package coverage

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestARBOR2 runs a made-up harness (testdata/arbor2) that speaks the
// protocol of harnesses in other languages: its names come sorted
// whatever order it sends them in, its (id, calls) pairs become covered
// functions and counts, a harness that dies is restarted, and counter
// data that cannot be right is an error, not a wrong label.
func TestARBOR2(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "arbor2")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/arbor2").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	s, err := Start(&Binary{Path: bin, Target: Target{Harness: &HarnessTarget{Lang: "test"}}}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if want := []string{"a", "b", "c"}; !slices.Equal(s.Funcs.Names, want) {
		t.Fatalf("names %q, want %q", s.Funcs.Names, want)
	}
	for _, tt := range []struct {
		in      string
		outcome Outcome
		covered []int
		counts  []uint32
		err     string
	}{
		{in: "b", outcome: OK, covered: []int{1}, counts: []uint32{2}},
		{in: "cab", outcome: OK, covered: []int{0, 1, 2}, counts: []uint32{1, 2, 1}},
		{in: "bb", outcome: OK, covered: []int{1}, counts: []uint32{4}},
		{in: "xa", outcome: Error, covered: []int{0}, counts: []uint32{1}},
		{in: "die", outcome: Panic},
		{in: "ca", outcome: OK, covered: []int{0, 2}, counts: []uint32{1, 1}}, // after a restart
		{in: "bad", err: "function id 9 of 3"},
		{in: "odd", err: "not a whole number of pairs"},
	} {
		r, err := s.Record([]byte(tt.in), 10*time.Second)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: %+v, %v; want an error with %q", tt.in, r, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if r.Outcome != tt.outcome || !slices.Equal(r.Covered, tt.covered) || !slices.Equal(r.Counts, tt.counts) {
			t.Errorf("%q: %s %v %v, want %s %v %v", tt.in, r.Outcome, r.Covered, r.Counts, tt.outcome, tt.covered, tt.counts)
		}
	}
}
