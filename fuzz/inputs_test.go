package fuzz

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/testctx"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestSeedsFromInputs: seeds derived from inputs make a campaign's first
// executions run exactly those inputs, under the bounds they were
// derived for (a distinct-value bound included, whose reuse decisions
// the seeds must carry), those that fit the bounds with the decisions
// the generator takes (ChoicesOf's: no exact values) and one that does
// not with exact values; inputs that do not parse or that the draw
// cannot write get an error naming their index, and no seed.
func TestSeedsFromInputs(t *testing.T) {
	g := jsonGraph(t)
	for _, b := range []Bounds{{}, {MaxDepth: 14, MaxDistinct: 2}} {
		gen := synth.NewGenerator(g, synth.NewRandom(11), synth.RandomPolicy)
		b.configure(gen)
		inputs := [][]byte{
			[]byte(`{"a": [1, 2.5E+3], "b": "a"}`),
			[]byte(`[1, 2`),                    // does not parse
			[]byte(`[1, 2, 3, 4, 5, 6, 7, 8]`), // 7 repetitions of ("," Element): exact
			[]byte("[\"\xff\"]"),               // not UTF-8: the draw writes runes
		}
		want := []string{string(inputs[0]), string(inputs[2])}
		for range 8 {
			text := gen.Generate().String()
			inputs = append(inputs, []byte(text))
			want = append(want, text)
		}
		seeds, errs := SeedsFromInputs(g, inputs, b)
		if len(errs) != 2 {
			t.Fatalf("bounds %+v: errors %v, want two", b, errs)
		}
		for k, wantIndex := range []int{1, 3} {
			var ie *InputError
			if !errors.As(errs[k], &ie) || ie.Index != wantIndex {
				t.Fatalf("bounds %+v: error %d is %v, want one of input %d", b, k, errs[k], wantIndex)
			}
		}
		if !strings.Contains(errs[0].Error(), "does not parse") || !strings.Contains(errs[1].Error(), "not valid UTF-8") {
			t.Errorf("bounds %+v: errors %q, %q do not say why", b, errs[0], errs[1])
		}
		if len(seeds) != len(want) {
			t.Fatalf("bounds %+v: %d seeds, want %d", b, len(seeds), len(want))
		}
		f := seedCampaign(g, b)
		for i, s := range seeds {
			exact := exactValues(f.seqOf(s))
			if fits := i != 1; fits == (exact > 0) {
				t.Errorf("bounds %+v: seed %q has %d exact values", b, want[i], exact)
			}
		}
		p := &prefixRunner{}
		if _, err := Fuzz(context.Background(), g, p, Options{Seed: 1, Execs: len(seeds) + 10, Seeds: seeds, Bounds: b}); err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if got := string(p.inputs[i]); got != w {
				t.Fatalf("bounds %+v: execution %d ran %q, want seed %q", b, i+1, got, w)
			}
		}
	}
}

// TestSeedsFromAmbiguousInputs: where the parser's tree needs more
// depth than the bound and another tree of the same text does
// not, the seed comes from the other tree. expr's "++" and "--" are
// also "+" "+" and "-" "-": the parser's first tree of "++---++x" takes
// single signs throughout, one rule expansion deeper each, past a depth
// bound that a tree with "++" or "--" fits. Every input is a seed, those
// that no tree fits with exact values, but more of them fit without.
func TestSeedsFromAmbiguousInputs(t *testing.T) {
	g, err := datasets.Grammar("expr")
	if err != nil {
		t.Fatal(err)
	}
	gen := synth.NewGenerator(g, synth.NewRandom(5), synth.RandomPolicy)
	gen.MaxDepth = 10
	var inputs [][]byte
	for range 30 {
		inputs = append(inputs, []byte(gen.Generate().String()))
	}
	p := g.NewParser()
	first := 0
	for _, in := range inputs {
		tree, err := p.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gen.ChoicesOf(tree); err == nil {
			first++
		}
	}
	seeds, errs := SeedsFromInputs(g, inputs, Bounds{MaxDepth: 10})
	if len(errs) > 0 || len(seeds) != len(inputs) {
		t.Fatalf("%d seeds of %d inputs, errors %v", len(seeds), len(inputs), errs)
	}
	f := seedCampaign(g, Bounds{MaxDepth: 10})
	fit := 0
	for _, s := range seeds {
		if exactValues(f.seqOf(s)) == 0 {
			fit++
		}
	}
	t.Logf("%d of %d inputs derive from the parser's tree, %d from some tree", first, len(inputs), fit)
	if fit <= first {
		t.Errorf("other trees gave no more seeds within the bounds (%d) than the parser's trees (%d)", fit, first)
	}
}

// seedCampaign is what seqOf needs of a campaign.
func seedCampaign(g *grammar.Graph, b Bounds) *campaign {
	f := &campaign{g: g, opts: Options{Bounds: b}, ids: newStreams(), r: rand.New(rand.NewPCG(1, 2))}
	f.workers = []*worker{newWorker(g, nil, f.opts, f.ids, f.r, 1)}
	return f
}

// exactValues counts a sequence's exact values.
func exactValues(seq *sequence) int {
	n := 0
	for _, vs := range seq.streams {
		for _, v := range vs {
			if v&exactBit != 0 {
				n++
			}
		}
	}
	return n
}

// TestExactSeeds: inputs that break the generator's bounds become seeds
// with exact values, which realize to exactly the input, run first in a
// campaign, and whose mutants are always inputs of the grammar; the
// values mutation and extension make are never exact.
func TestExactSeeds(t *testing.T) {
	g := jsonGraph(t)
	nested := strings.Repeat("[", 12) + "1" + strings.Repeat("]", 12)
	tests := []struct {
		name, input string
		bounds      Bounds
	}{
		{"long string", `{"key": [null, "a string of thirty characters.."]}`, Bounds{}},
		{"newlines", "{\n  \"x\": 1,\n  \"y\": [\n    true,\r\n    \"\\u00e9\"\n  ]\n}\n", Bounds{}},
		{"deeper than MaxDepth", nested, Bounds{MaxDepth: 12}},
		{"more repetitions than MaxRepeat", `[1,2,3,4,5,6,7,8,9,10,11,12]`, Bounds{MaxRepeat: 3}},
		{"more distinct values than MaxDistinct", `{"a": 1, "b": 2, "c": 3, "a": 4}`, Bounds{MaxDistinct: 2}},
		{"past the size bound", `[{"a": [1, 2, 3]}, {"b": "long strings past the bound"}, 12345]`, Bounds{MaxNodes: 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gen := newRealizer(g, tt.bounds, newStreams()).gen
			tree, err := g.Parse([]byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := gen.ChoicesOf(tree); err == nil {
				t.Fatal("the input fits the bounds: the case tests nothing")
			}
			seeds, errs := SeedsFromInputs(g, [][]byte{[]byte(tt.input)}, tt.bounds)
			if len(errs) > 0 || len(seeds) != 1 {
				t.Fatalf("seeds %v, errors %v", seeds, errs)
			}
			f := seedCampaign(g, tt.bounds)
			seq := f.seqOf(seeds[0])
			if exactValues(seq) == 0 {
				t.Error("the seed has no exact value")
			}
			d := f.workers[0].real.realize(seq)
			if string(d.text) != tt.input {
				t.Fatalf("the seed realizes %q, want %q", d.text, tt.input)
			}
			if again := f.workers[0].real.realize(d.seq); string(again.text) != tt.input {
				t.Fatalf("the seed's recorded sequence realizes %q, want %q", again.text, tt.input)
			}
			x := synth.NewGenerator(g, &synth.Replay{Choices: d.choices}, synth.RandomPolicy)
			tt.bounds.configure(x)
			if got := x.Generate().String(); got != tt.input {
				t.Fatalf("the realization's choices replay to %q, want %q", got, tt.input)
			}

			p := &prefixRunner{}
			if _, err := Fuzz(context.Background(), g, p, Options{Seed: 1, Execs: 1, Seeds: seeds, Bounds: tt.bounds}); err != nil {
				t.Fatal(err)
			}
			if string(p.inputs[0]) != tt.input {
				t.Fatalf("the campaign ran %q first, want the seed %q", p.inputs[0], tt.input)
			}

			// Mutants, and mutants of mutants, parse.
			mut := &mutator{r: rand.New(rand.NewPCG(7, 7)), meanSpans: 2, meanLength: 4}
			parent := d
			for i := range 300 {
				seq := mut.mutate(parent.seq, parent.slots)
				for id, vs := range seq.streams {
					for k, v := range vs {
						if v&exactBit != 0 && (id >= len(parent.seq.streams) || k >= len(parent.seq.streams[id]) || parent.seq.streams[id][k] != v) {
							t.Fatalf("mutant %d: a mutated value %#x is exact", i, v)
						}
					}
				}
				m := f.workers[0].real.realize(seq)
				if _, err := g.Parse(m.text); err != nil {
					t.Fatalf("mutant %d %q of %q does not parse: %v", i, m.text, parent.text, err)
				}
				if i%3 == 2 {
					parent = m
				}
				if i%50 == 49 {
					parent = d
				}
			}
		})
	}
}

// TestExactValuesOnlyFromSeeds: random inputs (extension) and mutants of
// them read no exact value.
func TestExactValuesOnlyFromSeeds(t *testing.T) {
	for salt := range uint64(50) {
		for key := range streamKey(50) {
			for k := range 50 {
				if v := extension(salt, key<<24|key, k); v&exactBit != 0 {
					t.Fatalf("extension(%d, %d, %d) = %#x is exact", salt, key, k, v)
				}
			}
		}
	}
	g := jsonGraph(t)
	r := newRealizer(g, Bounds{}, newStreams())
	mut := &mutator{r: rand.New(rand.NewPCG(3, 3)), meanSpans: 2, meanLength: 4}
	for salt := range uint64(200) {
		d := r.realize(&sequence{salt: salt})
		if n := exactValues(d.seq); n > 0 {
			t.Fatalf("salt %d: %d extended values are exact", salt, n)
		}
		if n := exactValues(mut.mutate(d.seq, d.slots)); n > 0 {
			t.Fatalf("salt %d: %d mutated values are exact", salt, n)
		}
	}
}

// TestExactWordBoundary: a seed needs \B where its text has an empty
// match of H|\B (an imported grammar's gap between words); the seed
// keeps it, but a mutant, whose next item may now be a word, takes the
// option its value selects instead, so that it never glues "-" to a
// word ("-x" does not parse: \B does not hold between - and x).
func TestExactWordBoundary(t *testing.T) {
	ast, err := grammar.Parse("gap", []byte(`S := I (G I)* ; I := /[a-z]+/ | "-" ; G := /( |\B)/ ;`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"-x", "- x"} {
		_, err := g.Parse([]byte(in))
		if ok := in == "- x"; ok != (err == nil) {
			t.Fatalf("%q parses: %v; the test's grammar is not what it says", in, err)
		}
	}
	const input = "--"
	seeds, errs := SeedsFromInputs(g, [][]byte{[]byte(input)}, Bounds{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	f := seedCampaign(g, Bounds{})
	d := f.workers[0].real.realize(f.seqOf(seeds[0]))
	if string(d.text) != input {
		t.Fatalf("the seed realizes %q, want %q", d.text, input)
	}
	mut := &mutator{r: rand.New(rand.NewPCG(5, 5)), meanSpans: 2, meanLength: 4}
	words := 0
	for i := range 300 {
		m := f.workers[0].real.realize(mut.mutate(d.seq, d.slots))
		if _, err := g.Parse(m.text); err != nil {
			t.Fatalf("mutant %d %q does not parse: %v", i, m.text, err)
		}
		if strings.ContainsAny(string(m.text), "abcdefghijklmnopqrstuvwxyz") {
			words++
		}
	}
	if words == 0 {
		t.Error("no mutant has a word: the test tests nothing")
	}
}

// TestSeedsNotOfTheGrammar: a seed's values that the grammar does not
// allow where they are read (choices made for another grammar, or
// another version of it) are not kept as exact values, which would break
// the generator (an index past an Alt's children), but take the first
// option, as values past a seed's end do.
func TestSeedsNotOfTheGrammar(t *testing.T) {
	g := jsonGraph(t)
	seeds := [][]int{
		{0, 99},       // no white space, then the 100th of Value's 7 alternatives
		{0, 3, 1, -7}, // a string of one character, -7
		{-1},
	}
	p := &prefixRunner{}
	if _, err := Fuzz(context.Background(), g, p, Options{Seed: 1, Execs: len(seeds), Seeds: seeds}); err != nil {
		t.Fatal(err)
	}
	for i, in := range p.inputs {
		if _, err := g.Parse(in); err != nil {
			t.Errorf("seed %v ran %q, which does not parse: %v", seeds[i], in, err)
		}
	}
}

// TestSeedsFromInputsCancelled (issue 29, item 9): a done context stops
// the derivation of seeds from inputs, before the first or part way,
// with an error that wraps the context's, the seeds of the inputs before
// the stop, and no input blamed for a parse that was stopped. Before,
// SeedsFromInputs took no context and parsed every input.
func TestSeedsFromInputsCancelled(t *testing.T) {
	g := jsonGraph(t)
	gen := synth.NewGenerator(g, synth.NewRandom(3), synth.RandomPolicy)
	var inputs [][]byte
	for range 200 {
		inputs = append(inputs, []byte(gen.Generate().String()))
	}
	all, errs := SeedsFromInputs(g, inputs, Bounds{})
	if len(all)+len(errs) != len(inputs) {
		t.Fatalf("%d seeds and %d errors of %d inputs", len(all), len(errs), len(inputs))
	}
	for _, tt := range []struct {
		name string
		ctx  context.Context
		some bool // seeds before the stop
	}{
		{"cancelled", testctx.Countdown(0), false},
		{"cancelled part way", testctx.Countdown(40), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seeds, serrs, err := SeedsFromInputsContext(tt.ctx, g, inputs, Bounds{})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want the context's", err)
			}
			if done := len(seeds) + len(serrs); done >= len(inputs) || tt.some != (done > 0) {
				t.Errorf("%d of %d inputs done: not stopped, or not where it should", done, len(inputs))
			}
			for i := range seeds {
				if !slices.Equal(seeds[i], all[i]) {
					t.Fatalf("seed %d differs from the one an uncancelled run derives", i)
				}
			}
			if len(serrs) > len(errs) {
				t.Errorf("%d input errors, an uncancelled run has %d", len(serrs), len(errs))
			}
		})
	}
}
