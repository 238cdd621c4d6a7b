package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
)

// SetCoverage is what a set of inputs covers together.
type SetCoverage struct {
	Functions, Blocks int             // covered (the union over the set)
	Panics            map[string]bool // stack hashes of the panics the set found
}

// runner runs sets of inputs on a subject in one harness, with block
// coverage, after a warm-up over every input of the experiment (so that
// work a process does once does not favour whichever set runs first).
type runner struct {
	s       *coverage.Session
	timeout time.Duration
	total   SetCoverage // functions and blocks of the covered packages
}

func newRunner(ctx context.Context, target coverage.Target, cacheDir string) (*runner, error) {
	s, err := coverage.Open(ctx, target, cacheDir, coverage.RunOptions{})
	if err != nil {
		return nil, err
	}
	s.Blocks = true
	return &runner{s: s, timeout: time.Second, total: SetCoverage{Functions: len(s.Funcs.Names), Blocks: s.Funcs.Blocks}}, nil
}

func (r *runner) close() { r.s.Close() }

func (r *runner) warmUp(ctx context.Context, sets ...[]string) error {
	seen := map[string]bool{}
	for _, set := range sets {
		for _, in := range set {
			if seen[in] {
				continue
			}
			seen[in] = true
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := r.s.WarmUp([]byte(in), r.timeout); err != nil {
				return err
			}
		}
	}
	return nil
}

// run measures a set of inputs.
func (r *runner) run(ctx context.Context, set []string) (SetCoverage, error) {
	fns, blocks := map[int]bool{}, map[int]bool{}
	out := SetCoverage{Panics: map[string]bool{}}
	for _, in := range set {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		res, err := r.s.Record([]byte(in), r.timeout)
		if err != nil {
			return out, err
		}
		for _, f := range res.Covered {
			fns[f] = true
		}
		for _, b := range res.Blocks {
			blocks[b] = true
		}
		if res.Outcome == coverage.Panic {
			out.Panics[res.Stack] = true
		}
	}
	out.Functions, out.Blocks = len(fns), len(blocks)
	return out, nil
}

// progressf adapts an experiment's Progress callback (nil: none) to
// printf style.
func progressf(progress func(string)) func(format string, args ...any) {
	return func(format string, args ...any) {
		if progress != nil {
			progress(fmt.Sprintf(format, args...))
		}
	}
}
