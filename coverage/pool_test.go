package coverage

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestPoolNewEveryRun: a function that only a sync.Pool's New calls runs
// on every recorded run of an input that takes from the pool, whether or
// not the collector emptied the pool since the last run. Before, the
// harness left the pool as the previous run (or the warm-up) left it, so
// New ran only after a collection, a matter of time: encoding/json's
// scanner pool and go-toml's decoder pool made labels, models and the
// experiments' figures differ from run to run. With KeepPools (what
// fuzzing asks for, for speed) the pools are left alone.
func TestPoolNewEveryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	mod := writeModule(t, map[string]string{
		"go.mod": "module example.com/pooltest\n\ngo 1.24\n",
		"lib/lib.go": `package lib

import "sync"

var pool = sync.Pool{New: func() any { return fresh() }}

func fresh() *[]byte { b := make([]byte, 0, 64); return &b }

func Run(in []byte) error {
	b := pool.Get().(*[]byte)
	*b = append((*b)[:0], in...)
	pool.Put(b)
	return nil
}
`,
	})
	bin, err := Build(context.Background(), Target{ImportPath: "example.com/pooltest/lib", Func: "Run", Dir: mod}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const runs = 20
	for _, tt := range []struct {
		name      string
		keepPools bool
	}{{"emptied", false}, {"kept", true}} {
		t.Run(tt.name, func(t *testing.T) {
			ran := poolNewRuns(t, bin, tt.keepPools, runs)
			switch {
			case !tt.keepPools && ran != runs:
				t.Errorf("the pool's New ran in %d of %d recorded runs; want every one", ran, runs)
			case tt.keepPools && ran == runs:
				// The warm-up before each run puts a buffer back, and
				// nothing collects it: New runs only after a collection
				// the harness did not ask for.
				t.Errorf("with KeepPools the pool's New ran in every run: the pools were emptied")
			}
		})
	}
}

// poolNewRuns records "abc" runs times, each after a warm-up run, and
// counts the recorded runs in which the pool's New ran.
func poolNewRuns(t *testing.T, bin *Binary, keepPools bool, runs int) int {
	s, err := Start(bin, RunOptions{KeepPools: keepPools})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ran := 0
	for range runs {
		if _, err := s.WarmUp([]byte("abc"), 5*time.Second); err != nil {
			t.Fatal(err)
		}
		r, err := s.Record([]byte("abc"), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		id := slices.Index(s.Funcs.Names, "example.com/pooltest/lib.fresh")
		if id < 0 {
			t.Fatalf("fresh is not among the functions: %v", s.Funcs.Names)
		}
		if slices.Contains(r.Covered, id) {
			ran++
		}
	}
	return ran
}
