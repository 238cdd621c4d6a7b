package main

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/arbor-fuzz/arbor/eval"
)

// TestEvalBench runs the quick bench through the command line and
// decodes its JSON. It checks that the rows are there, with the command
// line's own generation measured, and asserts no timing.
func TestEvalBench(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the json subject's harness")
	}
	out, errOut, code := runArbor(t, "", "eval", "bench", "--quick", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res eval.BenchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Preset != "quick" || len(res.Rows) != 8 {
		t.Fatalf("preset %q, %d rows: %s", res.Preset, len(res.Rows), out)
	}
	for _, r := range res.Rows {
		if !(r.A > 0 && r.B > 0 && r.Ratio > 0) || math.IsInf(r.Ratio, 0) {
			t.Errorf("row %s: A %v, B %v, ratio %v", r.Name, r.A, r.B, r.Ratio)
		}
	}
	if r := res.Rows[0]; r.Name != "generate" || r.Met == nil {
		t.Errorf("the first row is %+v, want generation with the command line measured against its goal", r)
	}
}
