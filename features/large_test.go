package features_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestParsedMatchesTrees: the features read off a parse without building
// its tree (Parsed) are those read off its trees, in the same order of
// interning, for inputs of the deterministic and the general parser,
// ambiguous ones among them, and for every feature kind.
func TestParsedMatchesTrees(t *testing.T) {
	for _, name := range []string{"json", "xml", "expr", "url", "ini"} {
		g := mustGrammar(t, name)
		gen := synth.NewGenerator(g, synth.NewRandom(7), synth.RandomPolicy)
		var inputs [][]byte
		var built [][]*grammar.Tree
		var lazy []*grammar.Parsed
		for i := range 80 {
			in := []byte(gen.Generate().String())
			trees, err := g.ParseAll(in, grammar.DefaultTreeLimit)
			if err != nil {
				t.Fatalf("%s input %d: %v", name, i, err)
			}
			p, err := g.ParseLazy(in, grammar.DefaultTreeLimit)
			if err != nil {
				t.Fatalf("%s input %d: %v", name, i, err)
			}
			if p.Len() != len(trees) {
				t.Fatalf("%s input %d: %d trees parsed lazily, %d built", name, i, p.Len(), len(trees))
			}
			inputs, built, lazy = append(inputs, in), append(built, trees), append(lazy, p)
		}
		for _, kinds := range []features.Kinds{features.KPaths, features.AllKinds} {
			t.Run(fmt.Sprintf("%s/%s", name, kinds), func(t *testing.T) {
				opts := features.Options{MaxK: 3, Kinds: kinds}
				fromTrees, fromParsed := features.NewVocabulary(g, opts), features.NewVocabulary(g, opts)
				covTrees, covParsed := features.NewCoverage(g, 3), features.NewCoverage(g, 3)
				for i, in := range inputs {
					trees, p := built[i], lazy[i]
					want, got := fromTrees.Add(trees...), fromParsed.AddParsed(p)
					if !slices.Equal(got, want) {
						t.Fatalf("input %d %q: AddParsed %v, Add %v", i, in, got, want)
					}
					if got, want := fromParsed.ParsedFeatures(p), fromTrees.Features(trees...); !slices.Equal(got, want) {
						t.Fatalf("input %d %q: ParsedFeatures %v, Features %v", i, in, got, want)
					}
					covTrees.Add(trees...)
					covParsed.AddParsed(p)
				}
				for k := 1; k <= 3; k++ {
					if got, want := covParsed.CoveredPaths(k), covTrees.CoveredPaths(k); !slices.EqualFunc(got, want, slices.Equal) {
						t.Errorf("%d-paths: AddParsed covers %d, Add %d", k, len(got), len(want))
					}
				}
				if covParsed.Inputs() != covTrees.Inputs() {
					t.Errorf("inputs: %d and %d", covParsed.Inputs(), covTrees.Inputs())
				}
			})
		}
	}
}

// largeJSON is a JSON array of records of about size bytes.
func largeJSON(size int) []byte {
	var b strings.Builder
	b.WriteString("[\n")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {"id": %d, "name": "user \"%d\"", "score": %d.25e-3, "tags": ["x", "<y>"], "ok": false, "geo": {"lat": -%d.5, "next": null}}`, i, i, i%1000, i%90)
	}
	b.WriteString("\n]\n")
	return []byte(b.String())
}

// BenchmarkLargeInputMemory measures what reading the k-paths (k = 1..4)
// of one large input allocates, per input byte ("B/input-byte"): through
// its tree (ParseAll, Vocabulary.Features) and without it (ParseLazy,
// Vocabulary.ParsedFeatures), for a wide JSON of 4 MB and a deep one of
// 12,000 nested arrays. docs/limits.md quotes the results.
func BenchmarkLargeInputMemory(b *testing.B) {
	g := mustGrammar(b, "json")
	inputs := []struct {
		name string
		in   []byte
	}{
		{"wide-4MB", largeJSON(4 << 20)},
		{"deep-12000", []byte(strings.Repeat("[", 12000) + strings.Repeat("]", 12000))},
	}
	for _, in := range inputs {
		b.Run(in.name+"/tree", func(b *testing.B) {
			v := features.NewVocabulary(g, features.Options{MaxK: 4})
			measure(b, len(in.in), func() {
				trees, err := g.ParseAll(in.in, grammar.DefaultTreeLimit)
				if err != nil {
					b.Fatal(err)
				}
				v.Add(trees...)
			})
		})
		b.Run(in.name+"/lazy", func(b *testing.B) {
			v := features.NewVocabulary(g, features.Options{MaxK: 4})
			measure(b, len(in.in), func() {
				p, err := g.ParseLazy(in.in, grammar.DefaultTreeLimit)
				if err != nil {
					b.Fatal(err)
				}
				v.AddParsed(p)
			})
		})
		// The relational kinds read off the same walk, within their
		// bounds (features.MaxMatchOccurrences and the others); Clause
		// is left out: checking clauses needs the tree.
		b.Run(in.name+"/lazy-relational", func(b *testing.B) {
			v := features.NewVocabulary(g, features.Options{MaxK: 4,
				Kinds: features.KPaths.With(features.Relation).With(features.Match).With(features.Adjacent)})
			measure(b, len(in.in), func() {
				p, err := g.ParseLazy(in.in, grammar.DefaultTreeLimit)
				if err != nil {
					b.Fatal(err)
				}
				v.AddParsed(p)
			})
		})
	}
}

// measure runs f b.N times and reports the bytes it allocated per run
// and input byte.
func measure(b *testing.B, size int, f func()) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		f()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(size), "B/input-byte")
}
