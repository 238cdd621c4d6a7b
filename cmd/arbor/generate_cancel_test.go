package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/testctx"
	"github.com/arbor-fuzz/arbor/synth"
)

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
			ctx := testctx.Countdown(40)
			w := f.writer(io.Discard, "json")
			if mode == "random" {
				_, err := generateStream(ctx, g, f, w, distinctCount{})
				err = w.Close(err)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v, want the context's", err)
				}
			} else {
				err := generateSet(ctx, io.Discard, g, nil, f, w)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v, want the context's", err)
				}
			}
			entries, _ := os.ReadDir(f.layout("json").InputDir(dir))
			if len(entries) == 0 || len(entries) >= f.n {
				t.Errorf("%d of %d inputs written: want those finished before the stop", len(entries), f.n)
			}
		})
	}
}
