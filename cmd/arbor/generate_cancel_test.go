package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/synth"
)

// countdownCtx is a context that is done once its Err has been asked n
// times: work that looks at its context stops part way, at a point that
// depends on the work's looks, not on timing.
type countdownCtx struct {
	context.Context // Background's Deadline and Value
	left            atomic.Int64
	once            sync.Once
	done            chan struct{}
}

func newCountdownCtx(n int64) *countdownCtx {
	c := &countdownCtx{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(n)
	return c
}

func (c *countdownCtx) Err() error {
	if c.left.Add(-1) < 0 {
		c.once.Do(func() { close(c.done) })
		return context.Canceled
	}
	return nil
}

func (c *countdownCtx) Done() <-chan struct{} { return c.done }

// TestGenerateCancelled (issue 29, item 9): generate stops when its
// context is done, in random generation and in a forest, with an error
// that wraps the context's and says how far it got, and the inputs
// finished before are written and kept, as --help says.
func TestGenerateCancelled(t *testing.T) {
	g, err := datasets.Grammar("json")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"random", "forest"} {
		t.Run(mode, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			f := generateFlags{mode: mode, out: dir, n: 1000, k: 2, seed: 1, maxDepth: synth.DefaultMaxDepth, maxRepeat: synth.DefaultMaxRepeat}
			ctx := newCountdownCtx(40)
			if mode == "random" {
				sink, err := newInputSink(io.Discard, f, "json", f.n)
				if err != nil {
					t.Fatal(err)
				}
				err = sink.close(generateStream(ctx, g, f, sink))
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v, want the context's", err)
				}
			} else {
				opts := synth.CoverOptions{K: f.k, Seed: f.seed, MaxDepth: f.maxDepth, MaxRepeat: f.maxRepeat}
				err := generateSet(ctx, io.Discard, io.Discard, g, g, "json", f, opts)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v, want the context's", err)
				}
			}
			entries, _ := os.ReadDir(f.inputDir(dir))
			if len(entries) == 0 || len(entries) >= f.n {
				t.Errorf("%d of %d inputs written: want those finished before the stop", len(entries), f.n)
			}
		})
	}
}
