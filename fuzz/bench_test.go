package fuzz

import (
	"context"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/synth"
)

// nullRunner runs nothing: the benchmarks measure the fuzzer alone.
type nullRunner struct{}

func (nullRunner) Functions() []string { return nil }
func (nullRunner) Run(_ context.Context, in []byte) (*coverage.Result, error) {
	return &coverage.Result{Outcome: coverage.OK, Covered: []int{len(in) % 50}, Counts: []uint32{1}, Blocks: []int{len(in) % 97}}, nil
}

// BenchmarkFuzzOverhead is the fuzzer's cost per execution on json, the
// subject left out, beside BenchmarkRandomGeneration, the cost of making
// a grammar-random input: what a campaign adds to random testing.
func BenchmarkFuzzOverhead(b *testing.B) {
	g := jsonGraph(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Fuzz(context.Background(), g, nullRunner{}, Options{Seed: uint64(i), Execs: 1000,
			Domains: []Domain{BlockCoverage(), ValidBlockCoverage()}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/exec")
}

func BenchmarkRandomGeneration(b *testing.B) {
	g := jsonGraph(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		gen := synth.GrammarGenerator(g, nil, synth.TreeState, uint64(i), 0)
		for range 1000 {
			gen()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/exec")
}
