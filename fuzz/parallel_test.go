package fuzz

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/synth"
)

// slowRunner is a runner that takes a little time per input, as a
// harness does, so that the workers take turns.
type slowRunner struct {
	coverage.Runner
	runs atomic.Int64
}

func (s *slowRunner) Run(ctx context.Context, in []byte) (*coverage.Result, error) {
	s.runs.Add(1)
	time.Sleep(20 * time.Microsecond)
	return s.Runner.Run(ctx, in)
}

// TestFuzzParallel checks a campaign on several workers: every
// execution is counted once (FairFuzz's mask trials too) and the budget
// holds exactly; every worker runs inputs; every kept input replays
// from its choices (the workers share one stream numbering) and was
// run; with constraints every worker's input satisfies them; and feedback
// still gets deep into the prefix subject.
func TestFuzzParallel(t *testing.T) {
	cron, err := datasets.Grammar("cron")
	if err != nil {
		t.Fatal(err)
	}
	set, err := constraint.Compile(cron)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		workers int
		rare    bool
		cons    bool
	}{
		{"two", 2, false, false},
		{"four", 4, false, false},
		{"four rare", 4, true, false},
		{"three constrained", 3, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, opts := jsonGraph(t), Options{Seed: 1, Execs: 3000, Rare: tt.rare, Bounds: Bounds{MaxDepth: 10}}
			if tt.cons {
				g, opts.Constraints = cron, set
			}
			runners := make([]*slowRunner, tt.workers)
			for i := range runners {
				runners[i] = &slowRunner{Runner: &prefixRunner{}}
			}
			for _, r := range runners[1:] {
				opts.Parallel = append(opts.Parallel, r)
			}
			res, err := Fuzz(context.Background(), g, runners[0], opts)
			if err != nil {
				t.Fatal(err)
			}
			var total int64
			for i, r := range runners {
				if r.runs.Load() == 0 {
					t.Errorf("worker %d ran nothing", i)
				}
				total += r.runs.Load()
			}
			if res.Execs != 3000 || total != 3000 {
				t.Fatalf("%d executions counted, %d made; want 3000", res.Execs, total)
			}
			checker := constraint.NewChecker(set)
			for _, e := range res.Corpus {
				x := synth.NewGenerator(g, &synth.Replay{Choices: e.Choices}, synth.RandomPolicy)
				x.MaxDepth = 10
				again := x.Generate()
				if again.String() != string(e.Input) {
					t.Errorf("choices of %q replay to %q", e.Input, again.String())
				}
				ran := false
				for _, r := range runners {
					for _, in := range r.Runner.(*prefixRunner).inputs {
						ran = ran || bytes.Equal(in, e.Input)
					}
				}
				if !ran {
					t.Errorf("%q was kept but no worker ran it", e.Input)
				}
				if tt.cons {
					if v := checker.Check(again); len(v) > 0 {
						t.Errorf("%q breaks %v", e.Input, v)
					}
				}
			}
			if tt.rare {
				for _, e := range res.Corpus {
					if st := e.rare; st != nil && (st.done > st.next || st.done == len(st.trials) && st.unlocked == nil && len(st.slots) > 0 && !allLocked(st)) {
						t.Errorf("mask state %+v", st)
					}
				}
			}
			if !tt.cons && deepest(res) < 8 {
				t.Errorf("reached %d bytes of the prefix in 3000 executions", deepest(res))
			}
		})
	}
}

func allLocked(st *rareState) bool {
	for _, l := range st.locked {
		if !l {
			return false
		}
	}
	return true
}

// TestFuzzParallelStops: a worker's error ends the campaign with that
// error, and the caller's cancellation with its own, with every worker
// stopped and the executions made counted.
func TestFuzzParallelStops(t *testing.T) {
	g := jsonGraph(t)
	boom := errors.New("boom")
	_, err := Fuzz(context.Background(), g, &prefixRunner{}, Options{Seed: 1, Execs: 1000, Parallel: []coverage.Runner{&prefixRunner{}, failingRunner{boom}}})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the worker's", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	res, err := Fuzz(ctx, g, &prefixRunner{}, Options{Seed: 1, Parallel: []coverage.Runner{&prefixRunner{}, &prefixRunner{}},
		Domains: []Domain{Coverage(), cancelAfter(cancel, 100)}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || res.Execs < 100 || res.Execs > 103 {
		t.Errorf("result %+v, want 100 executions and those still out", res)
	}
	start := time.Now()
	res, err = Fuzz(context.Background(), g, &slowRunner{Runner: &prefixRunner{}}, Options{Seed: 1, Time: 200 * time.Millisecond,
		Parallel: []coverage.Runner{&slowRunner{Runner: &prefixRunner{}}}})
	if err != nil || res.Execs == 0 {
		t.Errorf("a timed campaign: %v, %d executions", err, res.Execs)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a campaign of 200ms took %v", took)
	}
}

// TestFuzzParallelSeeds: with workers, seeds still run first and are
// taken in their order, whichever worker finishes first.
func TestFuzzParallelSeeds(t *testing.T) {
	g := jsonGraph(t)
	inputs := [][]byte{[]byte("[true,null,false,true]"), []byte("[true]"), []byte("[true,null]"), []byte("[true,null,false,true,false,true]"), []byte("false")}
	seeds, errs := SeedsFromInputs(g, inputs, Bounds{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for range 5 {
		res, err := Fuzz(context.Background(), g, &slowRunner{Runner: &prefixRunner{}}, Options{Seed: 1, Execs: 200, Seeds: seeds,
			Parallel: []coverage.Runner{&slowRunner{Runner: &prefixRunner{}}, &slowRunner{Runner: &prefixRunner{}}}})
		if err != nil {
			t.Fatal(err)
		}
		// The first and fourth seeds move coverage (a longer prefix of
		// magic); the others cover what the first did.
		want := []string{"[true,null,false,true]", "[true,null,false,true,false,true]"}
		for i, w := range want {
			if i >= len(res.Corpus) || string(res.Corpus[i].Input) != w {
				t.Fatalf("corpus starts %q, want the seeds that moved coverage, %q", inputsOf(res.Corpus), want)
			}
		}
		if a, b := res.Corpus[0].Exec, res.Corpus[1].Exec; a != 1 || b != 4 {
			t.Errorf("the seeds kept are executions %d and %d, want 1 and 4", a, b)
		}
	}
}
