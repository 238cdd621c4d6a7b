package grammar_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// Benchmarks of large grammars (issue 17, item 4): imported SQL and
// language grammars have thousands of rules, and loading one, counting
// its k-paths and generating its first inputs should take a second or
// two, not minutes.

var largeSizes = []int{1000, 5000, 20000}

func buildSynthetic(tb testing.TB, n int) *grammar.Graph {
	tb.Helper()
	ast, err := grammar.Parse(fmt.Sprintf("synthetic%d.grammar", n), []byte(grammar.SyntheticGrammar(n, 1)))
	if err != nil {
		tb.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// BenchmarkLargeGrammar measures, per grammar size: load (parse, build
// with every analysis) and check (Stats, Conflicts), as 'arbor grammar
// check' does; counting k-paths for k = 1..6, as 'arbor grammar stats
// --max-k 6' does; and the first 10 random inputs of a fresh graph, as
// 'arbor generate -n 10' does.
func BenchmarkLargeGrammar(b *testing.B) {
	for _, n := range largeSizes {
		src := []byte(grammar.SyntheticGrammar(n, 1))
		b.Run(fmt.Sprintf("rules=%d/load+check", n), func(b *testing.B) {
			for b.Loop() {
				ast, err := grammar.Parse("synthetic.grammar", src)
				if err != nil {
					b.Fatal(err)
				}
				g, err := grammar.Build(ast)
				if err != nil {
					b.Fatal(err)
				}
				_ = g.Stats()
				_ = g.Conflicts()
			}
		})
		g := buildSynthetic(b, n)
		b.Run(fmt.Sprintf("rules=%d/kpaths6", n), func(b *testing.B) {
			for b.Loop() {
				features.CountUpTo(g, 6)
			}
		})
		b.Run(fmt.Sprintf("rules=%d/generate10", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				g := buildSynthetic(b, n)
				b.StartTimer()
				gen := &synth.Generator{G: g, Chooser: synth.NewRandom(1)}
				for range 10 {
					gen.Generate()
				}
			}
		})
	}
}

// TestWriteLargeGrammars writes the synthetic grammars of the benchmark
// to the folder ARBOR_LARGE_GRAMMARS names, to time the command line on
// them; without it the test is skipped.
func TestWriteLargeGrammars(t *testing.T) {
	dir := os.Getenv("ARBOR_LARGE_GRAMMARS")
	if dir == "" {
		t.Skip("set ARBOR_LARGE_GRAMMARS to a folder to write the grammars into")
	}
	for _, n := range largeSizes {
		name := filepath.Join(dir, fmt.Sprintf("synthetic%d.grammar", n))
		if err := os.WriteFile(name, []byte(grammar.SyntheticGrammar(n, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSyntheticGrammars: the synthetic grammars build, with the left
// recursion and nullable rules they are meant to have.
func TestSyntheticGrammars(t *testing.T) {
	for _, n := range []int{1, 10, 300} {
		g := buildSynthetic(t, n)
		if len(g.Rules) != n {
			t.Errorf("%d rules, want %d", len(g.Rules), n)
		}
		if n == 300 {
			st := g.Stats()
			if len(st.LeftRec) == 0 || len(st.Nullable) == 0 {
				t.Errorf("%d left-recursive and %d nullable rules, want some of each", len(st.LeftRec), len(st.Nullable))
			}
		}
	}
}
