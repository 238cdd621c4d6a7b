package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/testctx"
)

// TestCancelledE3AndBench (issue 29, item 9): a done context stops the
// long loops of E3 and of the bench that did not look at it: generating
// the inputs, parsing the test set, generating the bench's corpora and
// parsing them; each returns the context's error after part of its
// work, and E3 and Bench stop before recording anything. Before, none
// of these took a context: E3 generated and parsed every input after
// Ctrl-C, and the bench ran each part to its end.
func TestCancelledE3AndBench(t *testing.T) {
	g, err := datasets.Grammar("json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := E3Config{Subject: "json", GrammarName: "json", Grammar: g, WorkDir: t.TempDir()}
	cfg.setDefaults()
	const n = 300
	t.Run("generate", func(t *testing.T) {
		s, err := generate(testctx.Countdown(50), cfg, "train", n, 1)
		if !errors.Is(err, context.Canceled) || s != nil {
			t.Errorf("%v, %v; want no sample and the context's error", s, err)
		}
	})
	s, err := generate(context.Background(), cfg, "test", n, 2)
	if err != nil || len(s.files) != n {
		t.Fatalf("%v, %v", s, err)
	}
	data := s.data
	cov := &coverage.File{Header: coverage.NewHeader("json", []string{"f"})}
	for sum := range data {
		cov.Records = append(cov.Records, coverage.Record{SHA256: sum, Outcome: coverage.OK})
	}
	t.Run("newTestSet", func(t *testing.T) {
		ts, err := newTestSet(context.Background(), g, cov, data, nil)
		if err != nil || len(ts.trees) != len(cov.Records) {
			t.Fatalf("uncancelled: %v", err)
		}
		for _, ctx := range []context.Context{testctx.Countdown(0), testctx.Countdown(50)} {
			if ts, err := newTestSet(ctx, g, cov, data, nil); !errors.Is(err, context.Canceled) || ts != nil {
				t.Errorf("%v; want the context's error", err)
			}
		}
	})
	t.Run("generateAccepted", func(t *testing.T) {
		ins, _, err := generateAccepted(testctx.Countdown(50), g, n, 1, func([]byte) bool { return true })
		if !errors.Is(err, context.Canceled) || ins != nil {
			t.Errorf("%d inputs, %v; want none and the context's error", len(ins), err)
		}
	})
	t.Run("parseAll", func(t *testing.T) {
		var ins [][]byte
		for _, d := range data {
			ins = append(ins, d)
		}
		if err := parseAll(context.Background(), g, ins); err != nil {
			t.Fatal(err)
		}
		for _, ctx := range []context.Context{testctx.Countdown(0), testctx.Countdown(50)} {
			if err := parseAll(ctx, g, ins); !errors.Is(err, context.Canceled) {
				t.Errorf("parseAll: %v; want the context's error", err)
			}
		}
	})
	t.Run("E3", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		cfg := cfg
		cfg.WorkDir = t.TempDir()
		res, err := E3(ctx, cfg)
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("%v, %v; want the context's error", res, err)
		}
		// Before, E3 wrote its 2,000 inputs before it looked at ctx.
		if entries, _ := os.ReadDir(filepath.Join(cfg.WorkDir, "train")); len(entries) > 0 {
			t.Errorf("%d training inputs written after the context was done", len(entries))
		}
	})
	t.Run("Bench", func(t *testing.T) {
		// The first part, generation, stops inside its first round.
		res, err := Bench(testctx.Countdown(20), BenchConfig{Quick: true, Seed: 1})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("%v, %v; want the context's error", res, err)
		}
	})
}
