package fuzz

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/arbor-fuzz/arbor/synth"
)

func TestSelectSeeds(t *testing.T) {
	cands := []Candidate{
		{Input: []byte("a"), Choices: []int{1, 1, 1}, Points: []uint64{1, 2}},
		{Input: []byte("b"), Choices: []int{1, 1, 2}, Points: []uint64{2, 3, 4}},
		{Input: []byte("c"), Choices: []int{2, 0, 0}, Points: []uint64{5}},
		{Input: []byte("d"), Choices: []int{1, 2, 0}, Points: []uint64{1, 2, 3, 4}},
		{Input: []byte("e"), Choices: []int{1, 1, 1, 1}, Points: []uint64{1}},
	}
	names := func(cs []Candidate) string {
		s := ""
		for _, c := range cs {
			s += string(c.Input)
		}
		return s
	}
	tests := []struct {
		filter string
		n      int
		want   string
	}{
		// The one sharing the shortest prefix with those chosen.
		{"par", 3, "acd"},
		// Set cover of (decision, choice) pairs: d takes 4, then c 1.
		{"cov", 2, "dc"},
		// Bigrams: a and e are (1,1) only, b shares one of its two; c's,
		// (2,0) and (0,0), none.
		{"cho", 2, "ac"},
		{"cho", 3, "acd"},
		{"par", 9, "abcde"},
		{"cov", 0, ""},
	}
	for _, tt := range tests {
		got, err := SelectSeeds(cands, tt.n, tt.filter, 1)
		if err != nil {
			t.Fatal(err)
		}
		if names(got) != tt.want {
			t.Errorf("%s, %d: %q, want %q", tt.filter, tt.n, names(got), tt.want)
		}
	}
	a, _ := SelectSeeds(cands, 3, "rnd", 7)
	b, _ := SelectSeeds(cands, 3, "rnd", 7)
	if len(a) != 3 || !reflect.DeepEqual(a, b) {
		t.Errorf("rnd: %q and %q", names(a), names(b))
	}
	seen := map[string]bool{}
	for _, c := range a {
		if seen[string(c.Input)] {
			t.Errorf("rnd chose %s twice", c.Input)
		}
		seen[string(c.Input)] = true
	}
	if _, err := SelectSeeds(cands, 2, "best", 1); err == nil {
		t.Error("an unknown filter is accepted")
	}
}

// TestBanditCandidates: the bandit generator's candidates are distinct
// inputs the subject accepted, and their choices replay to them, so they
// seed a campaign that runs exactly them first.
func TestBanditCandidates(t *testing.T) {
	g := jsonGraph(t)
	b := Bounds{MaxDepth: 10}
	cands, err := BanditCandidates(context.Background(), g, &prefixRunner{}, 300, 1, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) < 20 {
		t.Fatalf("%d candidates from 300 trials", len(cands))
	}
	seen := map[string]bool{}
	var seeds [][]int
	for _, c := range cands {
		if seen[string(c.Input)] || !json.Valid(c.Input) || len(c.Points) != len(c.Choices) {
			t.Errorf("candidate %q (seen %v)", c.Input, seen[string(c.Input)])
		}
		seen[string(c.Input)] = true
		x := synth.NewGenerator(g, &synth.Replay{Choices: c.Choices}, synth.RandomPolicy)
		x.MaxDepth = b.MaxDepth
		if got := x.Generate().String(); got != string(c.Input) {
			t.Errorf("choices of %q replay to %q", c.Input, got)
		}
		seeds = append(seeds, c.Choices)
	}
	p := &prefixRunner{}
	if _, err := Fuzz(context.Background(), g, p, Options{Seed: 1, Execs: len(seeds), Seeds: seeds, Bounds: b}); err != nil {
		t.Fatal(err)
	}
	for i, c := range cands {
		if string(p.inputs[i]) != string(c.Input) {
			t.Fatalf("seed %d ran as %q, want %q", i, p.inputs[i], c.Input)
		}
	}
}
