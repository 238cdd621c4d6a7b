package fuzz

import (
	"context"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
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

// BenchmarkFuzzGrammar is the fuzzer's own cost per execution (the
// subject left out) on grammars whose random inputs differ in size, with
// and without their constraints: govaluate's fill the generator's size
// bound (about 3.5 KB), so realizing them and the garbage they leave
// dominate; with constraints, the repair search adds its own.
func BenchmarkFuzzGrammar(b *testing.B) {
	for _, name := range []string{"govaluate", "gotemplate", "toml", "graphql"} {
		g, err := datasets.Grammar(name)
		if err != nil {
			b.Fatal(err)
		}
		set, err := constraint.Compile(g)
		if err != nil {
			b.Fatal(err)
		}
		for _, cons := range []*constraint.Set{nil, set} {
			b.Run(name+map[bool]string{true: "/constraints", false: "/free"}[cons != nil], func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := Fuzz(context.Background(), g, nullRunner{}, Options{Seed: uint64(i), Execs: 200, Fresh: 0.25, Constraints: cons,
						Domains: []Domain{BlockCoverage(), ValidBlockCoverage()}}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200), "ns/exec")
			})
		}
	}
}
