package synth_test

import (
	"testing"

	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// BenchmarkRandomJSON measures depth-30 random generation on the json
// grammar, including rendering each tree to its input text.
func BenchmarkRandomJSON(b *testing.B) {
	g := fixture.Grammar(b, "json")
	gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
	bytes := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bytes += len(gen.Generate().String())
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inputs/s")
	b.ReportMetric(float64(bytes)/float64(b.N), "bytes/input")
}
