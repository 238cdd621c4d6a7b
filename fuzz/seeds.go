package fuzz

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// Candidate is an input a generator made, offered as a seed.
type Candidate struct {
	Input   []byte
	Choices []int // replays the input (synth.Replay)
	// Points are the generator's (decision, choice) pairs the input
	// took: the generator's own coverage, which the cov filter covers.
	Points []uint64
}

// BanditCandidates runs the bandit generator (synth.Guide with the
// improved settings, RLCheck's rewards) for trials inputs, judged by the
// subject (an input it accepts is valid; its functions are its
// characteristic), and returns the distinct valid inputs, in the order
// found, with their choice sequences. Kummer's seeds come from these.
func BanditCandidates(ctx context.Context, g *grammar.Graph, subject coverage.Runner, trials int, seed uint64, b Bounds) ([]Candidate, error) {
	guide := synth.NewImprovedGuide(seed)
	rec := &pointRecorder{c: &synth.GuideChooser{Guide: guide, State: synth.TreeState}}
	gen := synth.NewGenerator(g, rec, synth.RandomPolicy)
	b.configure(gen)
	var out []Candidate
	seen := map[string]bool{}
	var last Candidate
	oracle := oracleFunc(func(in []byte) (synth.Verdict, error) {
		r, err := subject.Run(ctx, in)
		if err != nil {
			return synth.Verdict{}, err
		}
		v := synth.Verdict{Valid: r.Outcome == coverage.OK, Trace: fmt.Sprint(r.Covered)}
		if v.Valid && !seen[string(in)] {
			seen[string(in)] = true
			out = append(out, last)
		}
		return v, nil
	})
	next := func() []byte {
		rec.c.Reset()
		rec.choices, rec.points = nil, nil
		in := []byte(gen.Generate().String())
		last = Candidate{Input: in, Choices: rec.choices, Points: rec.points}
		return in
	}
	if _, err := synth.Check(ctx, next, guide, oracle, synth.CheckOptions{Trials: trials}); err != nil {
		return out, err
	}
	return out, ctx.Err()
}

type oracleFunc func([]byte) (synth.Verdict, error)

func (f oracleFunc) Judge(in []byte) (synth.Verdict, error) { return f(in) }

// pointRecorder records the choices a chooser makes, and the (decision,
// choice) pairs.
type pointRecorder struct {
	c       *synth.GuideChooser
	choices []int
	points  []uint64
}

func (r *pointRecorder) Choose(p synth.Point) int {
	v := r.c.Choose(p)
	r.choices = append(r.choices, v)
	r.points = append(r.points, uint64(keyOf(p))*0x9e3779b97f4a7c15^uint64(uint32(v)))
	return v
}

// Filters are Kummer's ways of choosing seeds among candidates.
func Filters() []string { return []string{"rnd", "par", "cho", "cov"} }

// SelectSeeds chooses up to n of the candidates as seeds, with Kummer's
// filters: rnd at random; par greedily, each next the candidate whose
// choice sequence shares the shortest prefix with those chosen; cho
// greedily, the one whose choice-bigram vector is least similar (cosine)
// to those chosen; cov greedily, the one that takes the most (decision,
// choice) pairs of the generator not taken yet. Ties go to the earlier
// candidate, and the result is deterministic for a seed.
func SelectSeeds(cands []Candidate, n int, filter string, seed uint64) ([]Candidate, error) {
	if n >= len(cands) {
		return slices.Clone(cands), nil
	}
	if n <= 0 {
		return nil, nil
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed5))
	switch filter {
	case "rnd":
		idx := r.Perm(len(cands))[:n]
		slices.Sort(idx)
		out := make([]Candidate, n)
		for i, j := range idx {
			out[i] = cands[j]
		}
		return out, nil
	case "par":
		return greedy(cands, n, func(c *Candidate, chosen []*Candidate) float64 {
			most := 0
			for _, o := range chosen {
				most = max(most, commonPrefix(c.Choices, o.Choices))
			}
			return -float64(most)
		}), nil
	case "cho":
		vecs := make(map[*Candidate]map[[2]int]float64, len(cands))
		vec := func(c *Candidate) map[[2]int]float64 {
			if v, ok := vecs[c]; ok {
				return v
			}
			v := map[[2]int]float64{}
			for i := 1; i < len(c.Choices); i++ {
				v[[2]int{c.Choices[i-1], c.Choices[i]}]++
			}
			vecs[c] = v
			return v
		}
		return greedy(cands, n, func(c *Candidate, chosen []*Candidate) float64 {
			most := 0.0
			for _, o := range chosen {
				most = max(most, cosine(vec(c), vec(o)))
			}
			return -most
		}), nil
	case "cov":
		taken := map[uint64]bool{}
		var out []Candidate
		used := make([]bool, len(cands))
		for len(out) < n {
			best, bestGain := -1, -1
			for i, c := range cands {
				if used[i] {
					continue
				}
				gain := 0
				for _, p := range uniq(c.Points) {
					if !taken[p] {
						gain++
					}
				}
				if gain > bestGain {
					best, bestGain = i, gain
				}
			}
			used[best] = true
			for _, p := range cands[best].Points {
				taken[p] = true
			}
			out = append(out, cands[best])
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown seed filter %q: want one of %s", filter, strings.Join(Filters(), ", "))
}

// greedy picks the first candidate, then repeatedly the one scoring
// highest against those chosen (the earliest among equals).
func greedy(cands []Candidate, n int, score func(*Candidate, []*Candidate) float64) []Candidate {
	used := make([]bool, len(cands))
	chosen := []*Candidate{&cands[0]}
	used[0] = true
	for len(chosen) < n {
		best, bestScore := -1, math.Inf(-1)
		for i := range cands {
			if used[i] {
				continue
			}
			if s := score(&cands[i], chosen); s > bestScore {
				best, bestScore = i, s
			}
		}
		used[best] = true
		chosen = append(chosen, &cands[best])
	}
	out := make([]Candidate, len(chosen))
	for i, c := range chosen {
		out[i] = *c
	}
	return out
}

func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func cosine(a, b map[[2]int]float64) float64 {
	dot, na, nb := 0.0, 0.0, 0.0
	for k, x := range a {
		dot += x * b[k]
		na += x * x
	}
	for _, y := range b {
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func uniq(xs []uint64) []uint64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return slices.Compact(s)
}
