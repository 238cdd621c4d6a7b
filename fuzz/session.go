package fuzz

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// DefaultDomains names the feedback domains of a campaign on session s
// when none are named: Zest measures branches, so basic blocks where
// the session records them (Go programs), functions elsewhere.
func DefaultDomains(s *coverage.Session) []string {
	if s.Funcs.Blocks > 0 {
		return []string{"blocks", "valid-blocks"}
	}
	return []string{"cov", "valid"}
}

// SessionDomains makes the named domains (NewDomains) for a campaign on
// session s, and has s record the blocks of each input when one of them
// measures blocks; those it refuses when s's coverage has functions
// only.
func SessionDomains(s *coverage.Session, names []string, g *grammar.Graph, k int) ([]Domain, error) {
	domains, err := NewDomains(names, g, k)
	if err != nil {
		return nil, err
	}
	for _, d := range domains {
		if d.Name() != "blocks" && d.Name() != "valid-blocks" {
			continue
		}
		if s.Funcs.Blocks == 0 {
			return nil, errors.New("this subject's coverage has functions only, no blocks: use cov and valid")
		}
		s.Blocks = true
	}
	return domains, nil
}

// ResumeSeed is the seed a campaign given seed runs with in the store's
// folder: seed itself in a new folder, and in one that earlier campaigns
// wrote, another for every execution they made, so that a resumed
// campaign goes on where the last one stopped rather than make the
// mutants it made again.
func (s *Store) ResumeSeed(seed uint64) uint64 {
	return seed + uint64(s.Previous().Executions)*0x9e3779b97f4a7c15
}

// WarmInput is the input a campaign's processes are warmed up with: g's
// shortest (satisfying set's constraints where it can; set may be nil),
// the same for a seed whatever the campaign does.
func WarmInput(ctx context.Context, g *grammar.Graph, set *constraint.Set, maxDepth int, seed uint64) ([]byte, error) {
	var in []byte
	opts := synth.GenerateOptions{Policy: synth.ShortestPolicy, Seed: seed, MaxDepth: maxDepth, Constraints: set}
	err := synth.GenerateFunc(ctx, g, 1, opts, func(i synth.Input) error {
		in = []byte(i.Text)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the warm-up input: %w", err)
	}
	return in, nil
}

// WarmUp has each session run input unrecorded (within timeout), now
// and in every process it starts later (coverage.Session.WarmStarts),
// so that no input a campaign runs is credited with the work a process
// does once (type caches, lazy tables, an environment built on the
// first call): where that first input was rejected, the blocks of that
// work never counted as valid coverage. A session whose warm-up hangs
// or crashes its process starts its later processes cold, or every
// restart would cost that again. ctx ending stops the wait (the session
// then stays interrupted, as coverage.SessionRunner leaves it). A
// timeout of 0 means 10 seconds, as coverage.SessionRunner's.
func WarmUp(ctx context.Context, input []byte, timeout time.Duration, sessions ...*coverage.Session) error {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	for _, s := range sessions {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		stop := context.AfterFunc(ctx, s.Interrupt)
		r, err := s.WarmUp(input, timeout)
		stop()
		if err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		if r.Outcome == coverage.OK || r.Outcome == coverage.Error {
			s.WarmStarts(input, timeout)
		} else {
			s.WarmStarts(nil, 0)
		}
	}
	return nil
}
