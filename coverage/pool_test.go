package coverage

import (
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
// experiments' figures differ from run to run.
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
	_, s := buildAndStart(t, Target{ImportPath: "example.com/pooltest/lib", Func: "Run", Dir: mod}, t.TempDir())
	defer s.Close()
	const runs = 20
	missed := 0
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
		if !slices.Contains(r.Covered, id) {
			missed++
		}
	}
	if missed > 0 {
		t.Errorf("the pool's New ran in %d of %d recorded runs; want every one", runs-missed, runs)
	}
}
