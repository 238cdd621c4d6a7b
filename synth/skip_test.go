package synth

import (
	"context"
	"testing"
)

// TestMakeSkipsSizesPastRepair: where the first size Make draws at
// breaks more instances than a repair mends, Make soon starts at a
// smaller size (fewer trees drawn an input), but for a Make in
// probeEvery, which starts at the first size again; its inputs still
// satisfy the clauses.
func TestMakeSkipsSizesPastRepair(t *testing.T) {
	// A random tree grows until its size bound closes it, with a digit
	// in every other node and one in five of those broken: at the first
	// size, mostly past what a repair mends; at a sixteenth, within it.
	g, set := constrained(t, `Doc := Block " " Block " " Block " " Block " " Block " " Block ;
Block := Digit | "(" Block " " Block " " Block ")" | "(" Block " " Block ")" ;
Digit := /[0-9]/ ;
where all(Digit, {.num < 8}) ;`)
	for _, seed := range []uint64{1, 5, 11} {
		gen := NewGenerator(g, NewRandom(seed), RandomPolicy)
		sat := NewSatisfier(set, seed, gen)
		var draws, firstSize []int
		reset := func() {
			if len(firstSize) < len(draws) {
				firstSize = append(firstSize, gen.MaxNodes)
			}
			draws[len(draws)-1]++
		}
		for range 4 * probeEvery {
			draws = append(draws, 0)
			_, broken, _ := sat.Make(context.Background(), gen, reset)
			if broken != 0 {
				t.Fatalf("seed %d, make %d: %d instances broken", seed, len(draws), broken)
			}
		}
		if draws[0] <= DefaultFreshTries {
			t.Fatalf("seed %d: the first Make drew %d trees: its first size is not past repair, so the test tests nothing", seed, draws[0])
		}
		// Makes but the probes, after the first skipAfter: their
		// trees drawn, and those that started at the first size.
		var later, full, n int
		for i := skipAfter; i < len(draws); i++ {
			probe := (i+1)%probeEvery == 0
			if probe && firstSize[i] != 0 {
				t.Errorf("seed %d, make %d, a probe, started at size %d, not the first", seed, i+1, firstSize[i])
			}
			if !probe {
				n++
				later += draws[i]
				if firstSize[i] == 0 {
					full++
				}
			}
		}
		first := 0
		for _, d := range draws[:skipAfter] {
			first += d
		}
		t.Logf("seed %d: trees drawn per Make %v; later Makes started at the first size: %d of %d", seed, draws, full, n)
		if full > n/4 {
			t.Errorf("seed %d: %d of %d later Makes started at the first size", seed, full, n)
		}
		if float64(later)/float64(n) >= float64(first)/skipAfter {
			t.Errorf("seed %d: later Makes drew %.1f trees each, the first %d drew %.1f", seed, float64(later)/float64(n), skipAfter, float64(first)/skipAfter)
		}
	}
}
