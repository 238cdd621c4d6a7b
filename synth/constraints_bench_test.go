package synth_test

import (
	"context"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// BenchmarkGenerateConstrained makes inputs that satisfy a bundled
// grammar's constraints as E11 does (GenerateFunc, depth 30), and
// reports the share that do and how many are made per second.
func BenchmarkGenerateConstrained(b *testing.B) {
	for _, name := range []string{"gotemplate", "graphql", "yaml", "xml", "javascript", "starlark"} {
		g := fixture.Grammar(b, name)
		set, err := constraint.Compile(g)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			const n = 20
			satisfying := 0
			for i := 0; i < b.N; i++ {
				opts := synth.GenerateOptions{Seed: uint64(i), MaxDepth: 30, Constraints: set}
				err := synth.GenerateFunc(context.Background(), g, n, opts, func(in synth.Input) error {
					if in.Broken == 0 {
						satisfying++
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(satisfying)/float64(b.N*n), "satisfied")
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "inputs/s")
		})
	}
}
