package synth_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

var bundled = []string{"csv", "expr", "exprlang", "govaluate", "ini", "json", "markdown", "toml", "url", "xml"}

// mustParse parses a generated input back and returns its trees (all of
// them, up to the default limit, for an ambiguous input).
func mustParse(t testing.TB, g *grammar.Graph, text string) []*grammar.Tree {
	t.Helper()
	trees, err := g.ParseAll([]byte(text), grammar.DefaultTreeLimit)
	if err != nil {
		t.Fatalf("generated input %q does not parse: %v", text, err)
	}
	for _, tree := range trees {
		if tree.String() != text {
			t.Fatalf("parsed tree derives %q, input is %q", tree.String(), text)
		}
	}
	return trees
}

func TestRandomAndShortestParse(t *testing.T) {
	for _, name := range bundled {
		g := fixture.Grammar(t, name)
		for _, policy := range []synth.Policy{synth.RandomPolicy, synth.ShortestPolicy} {
			gen := synth.NewGenerator(g, synth.NewRandom(7), policy)
			gen.MaxNodes = 2000 // the expression grammars reach any budget: keep parsing quick
			total := 0
			for i := 0; i < 100; i++ {
				tr := gen.Generate()
				if !tr.Complete() {
					t.Fatalf("%s: incomplete tree", name)
				}
				text := tr.String()
				total += len(text)
				mustParse(t, g, text)
			}
			if policy == synth.ShortestPolicy && total > 100*40 {
				t.Errorf("%s: shortest inputs average %d bytes", name, total/100)
			}
		}
	}
}

func TestSizeBudget(t *testing.T) {
	g := fixture.Grammar(t, "exprlang")
	for _, budget := range []int{200, 2000} {
		gen := synth.NewGenerator(g, synth.NewRandom(5), synth.RandomPolicy)
		gen.MaxNodes = budget
		for i := 0; i < 20; i++ {
			// Past the budget only the shortest close-off remains, which adds
			// at most a few nodes per open repetition level.
			if n := gen.Generate().Size(); n > 4*budget {
				t.Fatalf("budget %d: tree of %d nodes", budget, n)
			}
		}
	}
}

func TestDepthBound(t *testing.T) {
	g := fixture.Grammar(t, "expr")
	// expr's shallowest tree is MinDepth(root) = 4 expansions deep.
	if d := g.MinDepth(g.Root); d != 4 {
		t.Fatalf("MinDepth(root) = %d", d)
	}
	for _, maxDepth := range []int{4, 8, 30} {
		gen := &synth.Generator{G: g, Chooser: synth.NewRandom(1), MaxDepth: maxDepth}
		for i := 0; i < 300; i++ {
			deepest := 0
			gen.Generate().Walk(func(_ *grammar.Tree, d int) bool { deepest = max(deepest, d); return true })
			// The bound holds wherever an alternative that fits exists;
			// expr always has one (Identifier), so it holds exactly.
			if deepest > maxDepth {
				t.Fatalf("max depth %d: tree %d deep", maxDepth, deepest)
			}
		}
	}
}

func TestSeedsAndReplay(t *testing.T) {
	g := fixture.Grammar(t, "json")
	texts := func(seed uint64) []string {
		gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
		var out []string
		for i := 0; i < 20; i++ {
			out = append(out, gen.Generate().String())
		}
		return out
	}
	a, b, c := texts(1), texts(1), texts(2)
	if strings.Join(a, "\x00") != strings.Join(b, "\x00") {
		t.Errorf("the same seed gave different inputs")
	}
	if strings.Join(a, "\x00") == strings.Join(c, "\x00") {
		t.Errorf("different seeds gave the same inputs")
	}
	for _, name := range bundled {
		g := fixture.Grammar(t, name)
		for _, policy := range []synth.Policy{synth.RandomPolicy, synth.ShortestPolicy} {
			rec := &synth.Recorder{C: synth.NewRandom(3)}
			gen := synth.NewGenerator(g, rec, policy)
			for i := 0; i < 50; i++ {
				rec.Choices = nil
				want := gen.Generate().String()
				replay := &synth.Replay{Choices: rec.Choices}
				got := synth.NewGenerator(g, replay, synth.RandomPolicy).Generate().String()
				if got != want || replay.Exhausted {
					t.Fatalf("%s: replay gave %q, want %q", name, got, want)
				}
			}
		}
	}
}

// TestCoverFullCoverage checks through features, not the generator's own
// agenda, that covering sets reach k-path coverage 1.0 for k = 1..4: on the
// generated derivation trees, and on the inputs parsed back with the
// grammar. Three grammars are highly ambiguous: expr ("++x" is also
// "+" "+" x, and runs of signs have exponentially many trees), exprlang
// ("upper" is a variable and a builtin) and markdown (a paragraph can read
// as other blocks); parsed back, the union of their first DefaultTreeLimit
// trees can miss paths, so for them only the trees are checked.
func TestCoverFullCoverage(t *testing.T) {
	for _, name := range bundled {
		g := fixture.Grammar(t, name)
		for k := 1; k <= 4; k++ {
			for _, policy := range []synth.Policy{synth.RandomPolicy, synth.ShortestPolicy} {
				res, err := synth.Cover(context.Background(), g, synth.CoverOptions{K: k, Seed: 11, CloseOff: policy})
				if err != nil {
					t.Fatal(err)
				}
				generated := features.NewCoverage(g, k)
				parsed := features.NewCoverage(g, k)
				for _, in := range res.Inputs {
					generated.Add(in.Tree)
					parsed.Add(mustParse(t, g, in.Text)...)
				}
				check := func(what string, cov *features.Coverage) {
					if cov.Fraction(k) != 1 {
						missing, _ := cov.Missing(k)
						t.Errorf("%s k=%d policy %d: %s coverage %.4f, %d missing, e.g. %s", name, k, policy, what, cov.Fraction(k), len(missing), missing[0].Format(g))
					}
				}
				check("generated-tree", generated)
				if name != "expr" && name != "exprlang" && name != "markdown" {
					check("parsed-back", parsed)
				}
				// Every input replays from its choices.
				for _, in := range res.Inputs[:min(5, len(res.Inputs))] {
					got := synth.NewGenerator(g, &synth.Replay{Choices: in.Choices}, synth.RandomPolicy).Generate().String()
					if got != in.Text {
						t.Fatalf("%s k=%d: replay %q, want %q", name, k, got, in.Text)
					}
				}
			}
		}
	}
}

// Published k-path covering set sizes on grammars of similar size (k = 1, 2, 3).
var published = map[string][3]int{"json": {40, 35, 58}, "csv": {42, 38, 51}, "url": {43, 45, 72}}

func TestCoverSetSizes(t *testing.T) {
	for name, limits := range published {
		g := fixture.Grammar(t, name)
		for k := 1; k <= 3; k++ {
			res, err := synth.Cover(context.Background(), g, synth.CoverOptions{K: k, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(res.Inputs); n > limits[k-1] {
				t.Errorf("%s k=%d: %d inputs, published %d", name, k, n, limits[k-1])
			}
		}
	}
}

func TestAbsence(t *testing.T) {
	g := fixture.Grammar(t, "json")
	ag, err := synth.WithAbsence(g.Source)
	if err != nil {
		t.Fatal(err)
	}
	empties := 0
	for _, n := range ag.Nodes {
		if n.Kind == grammar.KindLit && n.Name == "" {
			empties++
		}
	}
	if empties == 0 {
		t.Fatal("the rewritten grammar has no absence symbols")
	}
	res, err := synth.Cover(context.Background(), ag, synth.CoverOptions{K: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := synth.Cover(context.Background(), g, synth.CoverOptions{K: 2, Seed: 5})
	for _, in := range res.Inputs {
		mustParse(t, g, in.Text) // inputs of the original grammar
	}
	if res.Coverage != 1 || len(res.Inputs) < len(plain.Inputs) {
		t.Errorf("absence covering: %d inputs, coverage %v; plain %d", len(res.Inputs), res.Coverage, len(plain.Inputs))
	}
}

func TestForest(t *testing.T) {
	g := fixture.Grammar(t, "url")
	inputs, err := synth.Forest(context.Background(), g, 60, synth.CoverOptions{K: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 60 {
		t.Fatalf("%d inputs", len(inputs))
	}
	cov := features.NewCoverage(g, 2)
	var fractions []float64
	for _, in := range inputs {
		cov.Add(mustParse(t, g, in.Text)...)
		fractions = append(fractions, cov.Fraction(2))
	}
	if fractions[0] > 0.3 || fractions[len(fractions)-1] < 0.6 {
		t.Errorf("forest prefixes do not span the coverage range: %.2f .. %.2f", fractions[0], fractions[len(fractions)-1])
	}
}

func TestDirectedRejectsNonPaths(t *testing.T) {
	g := fixture.Grammar(t, "expr")
	gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
	for _, p := range []features.Path{{39, 0}, {1}, {0, 48}, {999}} {
		if _, err := gen.Directed(p); err == nil {
			t.Errorf("Directed(%v) accepted a non-path", p)
		}
	}
	tr, err := gen.Directed(features.Path{15, 36, 11})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, parsed := range mustParse(t, g, tr.String()) {
		for _, p := range features.Of(parsed, 3) {
			found = found || p.Key() == "15,36,11"
		}
	}
	if !found {
		t.Errorf("Directed tree %q lacks its target", tr.String())
	}
}

// TestNoWordBoundaryDrawn: \B holds or not by the next character, which
// a regex draw cannot see, so the generator draws another alternative
// where there is one. An imported ANTLR grammar's gap between two tokens
// is (H)*(H|\B); drawn as nothing (always, when drawing shortest), it
// glued words together and 5 of 20 real grammars generated inputs that
// did not parse back.
func TestNoWordBoundaryDrawn(t *testing.T) {
	g := fixture.Build(t, "gap", `S := "a" Gap "b" ; Gap := /(?: )*(?: |\B)/ ;`)
	for _, policy := range []synth.Policy{synth.RandomPolicy, synth.ShortestPolicy} {
		for seed := range uint64(30) {
			in := synth.NewGenerator(g, synth.NewRandom(seed), policy).Generate().String()
			if !strings.HasPrefix(in, "a ") {
				t.Fatalf("policy %v, seed %d: %q has no gap", policy, seed, in)
			}
		}
	}
	// A \B that is the only alternative is still drawn (as nothing).
	g = fixture.Build(t, "only", `S := "a" /\B|\B/ "b" ;`)
	if in := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy).Generate().String(); in != "ab" {
		t.Errorf("only \\B: %q", in)
	}
}

// TestGeneratorReuse: a generator that reuses the previous tree's memory
// generates the same inputs as one that does not, and allocates far
// less per input (the streaming CLI's memory stays that of one tree).
func TestGeneratorReuse(t *testing.T) {
	for _, name := range bundled {
		g := fixture.Grammar(t, name)
		fresh := synth.NewGenerator(g, synth.NewRandom(9), synth.RandomPolicy)
		reused := synth.NewGenerator(g, synth.NewRandom(9), synth.RandomPolicy)
		reused.Reuse = true
		for i := range 200 {
			want, got := fresh.Generate().String(), reused.Generate().String()
			if got != want {
				t.Fatalf("%s, input %d: %q with Reuse, %q without", name, i, got, want)
			}
		}
	}
	g := fixture.Grammar(t, "json")
	allocated := func(reuse bool) uint64 {
		gen := synth.NewGenerator(g, synth.NewRandom(3), synth.RandomPolicy)
		gen.Reuse = reuse
		gen.Generate()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 2000 {
			gen.Generate()
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / 2000
	}
	with, without := allocated(true), allocated(false)
	t.Logf("bytes allocated per json input: %d with Reuse, %d without", with, without)
	if with > without/4 {
		t.Errorf("bytes allocated per input: %d with Reuse, %d without; want far fewer", with, without)
	}
}
