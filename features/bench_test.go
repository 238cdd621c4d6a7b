package features_test

import (
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// BenchmarkExtractJSON parses 10,000 random json inputs and extracts all
// their k-paths for k = 1..4, as training does: into a vocabulary (Add),
// and plain (Extract).
func BenchmarkExtractJSON(b *testing.B) {
	g := mustGrammar(b, "json")
	gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
	corpus := make([][]byte, 10000)
	size := 0
	for i := range corpus {
		corpus[i] = []byte(gen.Generate().String())
		size += len(corpus[i])
	}
	run := func(b *testing.B, extract func(v *features.Vocabulary, in []byte)) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			v := features.NewVocabulary(g, features.Options{MaxK: 4})
			for _, in := range corpus {
				extract(v, in)
			}
		}
		b.ReportMetric(float64(b.N*len(corpus))/b.Elapsed().Seconds(), "inputs/s")
	}
	b.Run("parse+vocabulary", func(b *testing.B) {
		run(b, func(v *features.Vocabulary, in []byte) {
			t, err := g.Parse(in)
			if err != nil {
				b.Fatal(err)
			}
			v.Add(t)
		})
	})
	b.Run("parse+extract", func(b *testing.B) {
		run(b, func(_ *features.Vocabulary, in []byte) {
			t, err := g.Parse(in)
			if err != nil {
				b.Fatal(err)
			}
			features.Extract(t, 4)
		})
	})
	b.Run("parse-only", func(b *testing.B) {
		run(b, func(_ *features.Vocabulary, in []byte) {
			if _, err := g.Parse(in); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkMatrix100kx50k builds the column bitsets of a 100,000-row ×
// 50,000-feature matrix with 300 features per row (sparse rows, as k-path
// features are), and reports the memory it holds.
func BenchmarkMatrix100kx50k(b *testing.B) {
	const rows, width, perRow = 100_000, 50_000, 300
	for i := 0; i < b.N; i++ {
		m := features.NewMatrix()
		ids := make([]int, perRow)
		x := uint64(12345)
		for r := 0; r < rows; r++ {
			for j := range ids {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				ids[j] = int(x % width)
			}
			m.AddRow(ids)
		}
		cols := m.Columns(width)
		words := 0
		for _, c := range cols {
			words += len(c)
		}
		b.ReportMetric(float64(words*8)/(1<<20), "MB-columns")
		b.ReportMetric(float64(rows*perRow*4)/(1<<20), "MB-rows")
	}
}

// BenchmarkKinds fits a vocabulary of each feature kind (with k-paths,
// k = 1..4) on 1,000 parsed random inputs of json and css, and extracts
// the features of the same inputs again (Features, as prediction does).
// Parsing is done once, outside the timing.
func BenchmarkKinds(b *testing.B) {
	for _, name := range []string{"json", "css"} {
		g := mustGrammar(b, name)
		gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
		var corpus [][]*grammar.Tree
		for len(corpus) < 1000 {
			trees, err := g.ParseAll([]byte(gen.Generate().String()), grammar.DefaultTreeLimit)
			if err == nil {
				corpus = append(corpus, trees)
			}
		}
		for _, kinds := range []string{"kpath", "sibling", "value", "class", "length", "count", "number", "all"} {
			k, _ := features.ParseKinds(kinds)
			b.Run(name+"/"+kinds+"/fit", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					features.NewVocabulary(g, features.Options{MaxK: 4, Kinds: k}).Fit(corpus)
				}
				b.ReportMetric(float64(b.N*len(corpus))/b.Elapsed().Seconds(), "inputs/s")
			})
			b.Run(name+"/"+kinds+"/features", func(b *testing.B) {
				v := features.NewVocabulary(g, features.Options{MaxK: 4, Kinds: k})
				v.Fit(corpus)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for _, trees := range corpus {
						v.Features(trees...)
					}
				}
				b.ReportMetric(float64(b.N*len(corpus))/b.Elapsed().Seconds(), "inputs/s")
			})
		}
	}
}
