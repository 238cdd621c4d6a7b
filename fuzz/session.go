package fuzz

import (
	"errors"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
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
