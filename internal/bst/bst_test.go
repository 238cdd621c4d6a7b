package bst_test

import (
	"context"
	"testing"

	"github.com/arbor-fuzz/arbor/internal/bst"
	"github.com/arbor-fuzz/arbor/synth"
)

func bstRun(t testing.TB, guide *synth.Guide, state synth.StateKind, trials int) *synth.CheckResult {
	gen, oracle := bst.Generator(guide, state, 1)
	res, err := synth.Check(context.Background(), gen, guide, oracle, synth.CheckOptions{Trials: trials})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestBSTTargets: 100,000 trials of the BST example.
func TestBSTTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 trials, four times")
	}
	random := bstRun(t, nil, synth.TreeState, 100000)
	rlcheck := bstRun(t, synth.NewGuide(1), synth.TreeState, 100000)
	improved := bstRun(t, synth.NewImprovedGuide(1), synth.TreeState, 100000)
	t.Logf("unique valid: random %d, RLCheck settings %d, improved %d", random.UniqueValid, rlcheck.UniqueValid, improved.UniqueValid)
	if random.UniqueValid < 600 || random.UniqueValid > 1100 {
		t.Errorf("random: %d unique valid, the reference measured about 820", random.UniqueValid)
	}
	if improved.UniqueValid < 10000 || improved.UniqueValid < 10*random.UniqueValid {
		t.Errorf("improved guide: %d unique valid, want at least 10,000 and 10× random (%d)", improved.UniqueValid, random.UniqueValid)
	}
	if improved.UniqueValid <= rlcheck.UniqueValid {
		t.Errorf("the improvements did not help: %d against %d", improved.UniqueValid, rlcheck.UniqueValid)
	}
	if len(improved.Curve) != 50 || improved.Curve[49].UniqueValid != improved.UniqueValid {
		t.Errorf("curve of %d points", len(improved.Curve))
	}
}

// TestStates: the guide drives the example under each state abstraction.
func TestStates(t *testing.T) {
	for _, st := range []synth.StateKind{synth.TreeState, synth.WindowState, synth.NoState} {
		if r := bstRun(t, synth.NewGuide(1), st, 5000); r.Trials != 5000 || r.Valid == 0 {
			t.Errorf("state %d: %+v", st, r)
		}
	}
}

func BenchmarkBST100k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := bstRun(b, synth.NewImprovedGuide(uint64(i)+1), synth.TreeState, 100000)
		b.ReportMetric(float64(r.UniqueValid), "unique-valid")
	}
}
