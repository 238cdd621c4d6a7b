package synth_test

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// replays checks that choices replay, every one of them, to text through
// a generator with gen's grammar, policy and bounds.
func replays(t testing.TB, gen *synth.Generator, choices []int, text string) {
	t.Helper()
	rec := &synth.Recorder{C: &synth.Replay{Choices: choices}}
	again := synth.NewGenerator(gen.G, rec, gen.Policy)
	again.MaxDepth, again.MaxRepeat, again.MaxNodes, again.MaxDistinct = gen.MaxDepth, gen.MaxRepeat, gen.MaxNodes, gen.MaxDistinct
	got := again.Generate().String()
	if got != text || len(rec.Choices) != len(choices) {
		t.Fatalf("%d decisions replay to %q with %d read, want %q", len(choices), got, len(rec.Choices), text)
	}
}

// generatorShape fails unless every node of tree has the children the
// generator gives it: a Ref its rule's body, an Alt one of its
// alternatives, a Cat its elements in order, a Quant a count within its
// bounds of its one child. ChoicesOf reads decisions off parser trees on
// the strength of this.
func generatorShape(t testing.TB, tree *grammar.Tree) {
	t.Helper()
	tree.Walk(func(s *grammar.Tree, _ int) bool {
		n, kids := s.Node, s.Children
		ok := true
		switch n.Kind {
		case grammar.KindLit, grammar.KindRegex:
			ok = len(kids) == 0
		case grammar.KindRef:
			ok = len(kids) == 1 && kids[0].Node == n.Children[0]
		case grammar.KindAlt:
			ok = len(kids) == 1 && slices.Contains(n.Children, kids[0].Node)
		case grammar.KindCat:
			ok = len(kids) == len(n.Children)
			for i := 0; ok && i < len(kids); i++ {
				ok = kids[i].Node == n.Children[i]
			}
		case grammar.KindQuant:
			ok = len(kids) >= n.Min && (n.Max == grammar.Unbounded || len(kids) <= n.Max)
			for i := 0; ok && i < len(kids); i++ {
				ok = kids[i].Node == n.Children[0]
			}
		}
		if !ok {
			t.Fatalf("a parsed %s has children the generator does not give it", n)
		}
		return true
	})
}

// TestChoicesOfBundled generates inputs of every bundled grammar,
// parses them back and derives the parsed trees' decisions, which must
// replay to the input. The generator's own tree always derives, and
// without MaxDistinct to its very decisions. A parsed tree is another
// tree of the input where the grammar is ambiguous (adjacent regex
// tokens merged into one longer match, another associativity), which
// may need more repetitions or depth than the bounds allow; then the
// input's other trees (up to grammar.DefaultTreeLimit) are tried, as
// fuzz.SeedsFromInputs does. Grammars not listed derive every input.
func TestChoicesOfBundled(t *testing.T) {
	// The least share of inputs some tree of which derives, where the
	// grammar is ambiguous (on these seeds, without and with MaxDistinct
	// 2: css 0.98 and 0.85, expr 0.78 and 0.90, exprlang 0.95 and 0.58,
	// markdown 1 and 0.98, toml 0.80 and 0.75, yaml 1 and 0.98; exprlang's
	// second fell from 0.75 when terminals began to count their
	// characters towards MaxNodes, which changed which inputs are drawn).
	ambiguous := map[string]float64{"css": 0.7, "expr": 0.7, "exprlang": 0.5, "markdown": 0.9, "toml": 0.5, "yaml": 0.9}
	const n = 40
	for _, info := range datasets.Grammars() {
		for _, distinct := range []int{0, 2} {
			g := fixture.Grammar(t, info.Name)
			rec := &synth.Recorder{C: synth.NewRandom(uint64(distinct + 1))}
			gen := synth.NewGenerator(g, rec, synth.RandomPolicy)
			gen.MaxDepth, gen.MaxNodes, gen.MaxDistinct = 10, 500, distinct
			p := g.NewParser()
			derived, first, equal := 0, 0, 0
			var lastErr error
			for range n {
				rec.Choices = nil
				tree := gen.Generate()
				text := tree.String()
				own, err := gen.ChoicesOf(tree)
				if err != nil {
					t.Fatalf("%s, MaxDistinct %d: the generator's own tree of %q: %v", info.Name, distinct, text, err)
				}
				replays(t, gen, own, text)
				if distinct == 0 && !slices.Equal(own, rec.Choices) {
					t.Fatalf("%s: the generator's own tree of %q derives to other decisions than it took", info.Name, text)
				}

				parsed, err := p.Parse([]byte(text))
				if err != nil {
					t.Fatalf("%s: %q does not parse: %v", info.Name, text, err)
				}
				generatorShape(t, parsed)
				choices, err := gen.ChoicesOf(parsed)
				if err == nil {
					first++
				} else {
					lastErr = err
					trees, perr := g.ParseAll([]byte(text), grammar.DefaultTreeLimit)
					if perr != nil {
						t.Fatal(perr)
					}
					for _, other := range trees {
						generatorShape(t, other)
						if choices, err = gen.ChoicesOf(other); err == nil {
							break
						}
					}
				}
				if err != nil {
					continue
				}
				derived++
				replays(t, gen, choices, text)
				if slices.Equal(choices, rec.Choices) {
					equal++
				}
			}
			want, ok := ambiguous[info.Name]
			if !ok {
				want = 1
			}
			t.Logf("%s, MaxDistinct %d: of %d inputs, the parser's tree derives %d, some tree %d, to the recorded decisions %d",
				info.Name, distinct, n, first, derived, equal)
			if float64(derived) < want*n {
				t.Errorf("%s, MaxDistinct %d: %d of %d inputs derive, want at least %.0f%% (last error: %v)",
					info.Name, distinct, derived, n, 100*want, lastErr)
			}
		}
	}
}

// TestChoicesOfDecisions checks the decisions themselves, in the order
// Expand makes them.
func TestChoicesOfDecisions(t *testing.T) {
	tests := []struct {
		name, grammar, input string
		distinct             int
		want                 []int
	}{
		{"repetition", `S := "a"* ;`, "aaa", 0, []int{3}},
		{"alternatives", `S := "x" | "y" S ;`, "yyx", 0, []int{1, 1, 0}},
		// The regex's count, its characters, the star's count, the branch.
		{"regex", `S := /[a-c]+(x|yz)*/ ;`, "abyz", 0, []int{2, 'a', 'b', 1, 1}},
		// '1' drawn; 3 more; a new value ('2' drawn), then each reused.
		{"reuse", `S := N ("," N)* ; N := /[0-9]/ ;`, "1,2,1,2", 2, []int{'1', 3, 1, '2', 0, 1}},
		// A new value past the bound's room is not offered: with room
		// for 3, the third value is drawn.
		{"reuse room", `S := N ("," N)* ; N := /[0-9]/ ;`, "1,2,3,1", 3, []int{'1', 3, 1, '2', 2, '3', 0}},
		{"no reuse decisions without a bound", `S := N ("," N)* ; N := /[0-9]/ ;`, "1,1", 0, []int{'1', 1, '1'}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := fixture.Build(t, tt.name, tt.grammar)
			tree, err := g.Parse([]byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			gen := synth.NewGenerator(g, nil, synth.RandomPolicy)
			gen.MaxDistinct = tt.distinct
			got, err := gen.ChoicesOf(tree)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("decisions %v, want %v", got, tt.want)
			}
			replays(t, gen, got, tt.input)
		})
	}
}

// TestChoicesOfRefuses: trees the generator cannot make within its
// bounds get an error that says why.
func TestChoicesOfRefuses(t *testing.T) {
	nested := strings.Repeat("(", 40) + "x" + strings.Repeat(")", 40)
	tests := []struct {
		name, grammar, input string
		setup                func(*synth.Generator)
		want                 string // in the error
	}{
		{"repetitions", `S := "a"* ;`, "aaaaaaa", nil, "needs 7 repetitions at Quant*_0, the bound is 5"},
		{"repetitions bounded", `S := "a"* ;`, "aaaaaaa", func(x *synth.Generator) { x.MaxRepeat = 6 }, "the bound is 6"},
		{"depth", `S := "(" S ")" | "x" ;`, nested, nil, "depth 40 exceeds the bound 30"},
		{"depth bounded", `S := "(" S ")" | "x" ;`, "((x))", func(x *synth.Generator) { x.MaxDepth = 1 }, "depth 2 exceeds the bound 1"},
		{"depth of a repetition", `S := ("(" S ")")* ;`, "((()))", func(x *synth.Generator) { x.MaxDepth = 2 }, "exceeds the bound 2"},
		{"regex repetitions", `S := /[a-z]+/ ;`, "abcdefgh", nil, "more repetitions inside the regex than the bound 5"},
		{"regex characters", `S := /[^"]/ ;`, "\x01", nil, "characters the draw does not write"},
		{"case-folded regex literal", `S := /[eE]/ ;`, "e", nil, "case-folded"},
		{"distinct values", `S := N ("," N)* ; N := /[0-9]/ ;`, "1,2,3", func(x *synth.Generator) { x.MaxDistinct = 2 }, "takes 3 distinct values, the bound is 2"},
		{"size", `S := A A A A ; A := "a"? ;`, "aaaa", func(x *synth.Generator) { x.MaxNodes = 4 }, "past the size bound of 4 nodes"},
		{"size in a regex", `S := "a" "b" /[0-9]?/ ;`, "ab7", func(x *synth.Generator) { x.MaxNodes = 2 }, "shortest choices"},
		{"shortest policy", `S := "x" | "y" S ;`, "yx", func(x *synth.Generator) { x.Policy = synth.ShortestPolicy }, "under the shortest policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := fixture.Build(t, tt.name, tt.grammar)
			tree, err := g.Parse([]byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			gen := synth.NewGenerator(g, nil, synth.RandomPolicy)
			if tt.setup != nil {
				tt.setup(gen)
			}
			got, err := gen.ChoicesOf(tree)
			if err == nil {
				t.Fatalf("derived %v, want an error", got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want it to say %q", err, tt.want)
			}
		})
	}
}

// TestChoicesOfMalformed: trees that are not the grammar's derivations
// are refused, not misread.
func TestChoicesOfMalformed(t *testing.T) {
	g := fixture.Build(t, "s", `S := "x" | "y" S ;`)
	other := fixture.Build(t, "s", `S := "x" | "y" S ;`)
	gen := synth.NewGenerator(g, nil, synth.RandomPolicy)
	parse := func(gr *grammar.Graph, in string) *grammar.Tree {
		tree, err := gr.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	for _, c := range []struct {
		name string
		tree *grammar.Tree
		want string
	}{
		{"nil", nil, "no tree"},
		{"another graph", parse(other, "yx"), "not the grammar's root"},
		{"open slot", &grammar.Tree{Node: g.Root, Children: []*grammar.Tree{nil}}, "open slot"},
		{"not an alternative", &grammar.Tree{Node: g.Root, Children: []*grammar.Tree{{Node: g.Root}}}, "not an alternative"},
	} {
		if _, err := gen.ChoicesOf(c.tree); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.want)
		}
	}
}

// FuzzChoicesOf: whatever JSON text parses, its derived decisions replay
// to it exactly, or ChoicesOf says why there are none; it never panics.
// Where ChoicesOf finds none, ExactChoicesOf does for any valid UTF-8
// (JSON's regexes have no case-folded literal), and they replay as they
// are to the text.
func FuzzChoicesOf(f *testing.F) {
	g := fixture.Grammar(f, "json")
	for _, s := range []string{
		`{"a": [1, -2.5E+3, true, null, "\u00e9\n"]}`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		`{"name": "arbor-fuzz", "tags": ["a", "b", "a", "b", "a", "b"]}`,
		`1e5`,
		` "<&>" `,
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(2))
	}
	gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
	for range 5 {
		f.Add([]byte(gen.Generate().String()), uint8(1))
	}
	f.Fuzz(func(t *testing.T, in []byte, distinct uint8) {
		if len(in) > 4096 {
			return
		}
		tree, err := g.Parse(in)
		if err != nil {
			return
		}
		gen := synth.NewGenerator(g, nil, synth.RandomPolicy)
		gen.MaxDistinct = int(distinct % 4)
		choices, err := gen.ChoicesOf(tree)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			exact, err := gen.ExactChoicesOf(tree)
			switch {
			case err == nil:
				exactReplays(t, gen, exact, string(in))
			case utf8.Valid(in):
				t.Fatalf("ExactChoicesOf: %v", err)
			case err.Error() == "":
				t.Fatal("an empty error")
			}
			return
		}
		replays(t, gen, choices, string(in))
	})
}

// exactReplays checks that choices, replayed as they are by synth.Replay
// through a generator with gen's grammar, policy and bounds, make text,
// every one of them read.
func exactReplays(t testing.TB, gen *synth.Generator, choices []int, text string) {
	t.Helper()
	r := &synth.Replay{Choices: choices}
	again := synth.NewGenerator(gen.G, r, gen.Policy)
	again.MaxDepth, again.MaxRepeat, again.MaxNodes, again.MaxDistinct = gen.MaxDepth, gen.MaxRepeat, gen.MaxNodes, gen.MaxDistinct
	rec := &synth.Recorder{C: r}
	again.Chooser = rec
	got := again.Generate().String()
	if got != text || r.Exhausted || len(rec.Choices) != len(choices) {
		t.Fatalf("%d decisions replay to %q with %d read, want %q", len(choices), got, len(rec.Choices), text)
	}
}

// TestExactChoicesOf: trees that ChoicesOf refuses for breaking a bound
// derive with ExactChoicesOf to the decisions the tree takes, which
// synth.Replay replays to the input under the same bounds; only what
// the draw cannot write at all is refused.
func TestExactChoicesOf(t *testing.T) {
	nested := strings.Repeat("(", 40) + "x" + strings.Repeat(")", 40)
	tests := []struct {
		name, grammar, input string
		setup                func(*synth.Generator)
		want                 []int  // nil: only check that they replay
		err                  string // in the error, for refusals
		strictToo            bool   // ChoicesOf derives it too
	}{
		{name: "repetitions", grammar: `S := "a"* ;`, input: "aaaaaaa", want: []int{7}},
		{name: "depth", grammar: `S := "(" S ")" | "x" ;`, input: nested},
		{name: "depth of a repetition", grammar: `S := ("(" S ")")* ;`, input: "((()))", setup: func(x *synth.Generator) { x.MaxDepth = 2 }, want: []int{1, 1, 1, 0}},
		{name: "regex repetitions", grammar: `S := /[a-z]+/ ;`, input: "abcdefgh", want: []int{8, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}},
		{name: "long regex repetition", grammar: `S := "\"" /[^"]*/ "\"" ;`, input: `"` + strings.Repeat("long text, ", 500) + `"`},
		{name: "regex characters", grammar: `S := /[^"]+/ ;`, input: "\x01\n", want: []int{2, 1, '\n'}},
		// x{2,} draws up to 2+MaxRepeat.
		{name: "open regex repetition", grammar: `S := /x{2,}y/ ;`, input: "xxxxy", setup: func(x *synth.Generator) { x.MaxRepeat = 1 }, want: []int{4}},
		// '1' drawn; 2 more; a new value (pool of 1), '2'; a new value
		// past the bound of 2 (index 2, which draws), '3'.
		{name: "distinct values", grammar: `S := N ("," N)* ; N := /[0-9]/ ;`, input: "1,2,3", setup: func(x *synth.Generator) { x.MaxDistinct = 2 }, want: []int{'1', 2, 1, '2', 2, '3'}},
		{name: "size", grammar: `S := A A A A ; A := "a"? ;`, input: "aaaa", setup: func(x *synth.Generator) { x.MaxNodes = 4 }, want: []int{1, 1, 1, 1}},
		{name: "size in a regex", grammar: `S := "a" "b" /[0-9]?/ ;`, input: "ab7", setup: func(x *synth.Generator) { x.MaxNodes = 2 }, want: []int{1, '7'}},
		{name: "shortest policy", grammar: `S := "x" | "y" S ;`, input: "yx", setup: func(x *synth.Generator) { x.Policy = synth.ShortestPolicy }, want: []int{1, 0}},
		// \B only where the text needs it: an empty z? otherwise.
		{name: "no \\B where another branch derives", grammar: `S := /-(\B|z?)/ ;`, input: "-", want: []int{1, 0}, strictToo: true},
		{name: "\\B where the text needs it", grammar: `S := /-(z|\B)/ ;`, input: "-", want: []int{1}},
		{name: "case-folded regex literal", grammar: `S := /[eE]/ ;`, input: "e", err: "case-folded"},
		{name: "invalid UTF-8", grammar: `S := /[^"]+/ ;`, input: "a\xffb", err: "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := fixture.Build(t, "g", tt.grammar)
			tree, err := g.Parse([]byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			gen := synth.NewGenerator(g, nil, synth.RandomPolicy)
			if tt.setup != nil {
				tt.setup(gen)
			}
			if strict, err := gen.ChoicesOf(tree); err == nil && !tt.strictToo {
				t.Fatalf("ChoicesOf derives %v: the case tests nothing ChoicesOf cannot do", strict)
			}
			got, err := gen.ExactChoicesOf(tree)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("derived %v, error %v, want an error that says %q", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil && !slices.Equal(got, tt.want) {
				t.Fatalf("decisions %v, want %v", got, tt.want)
			}
			exactReplays(t, gen, got, tt.input)
		})
	}
}

// TestExactChoicesOfBundled: every bundled grammar's generated inputs,
// parsed back, derive exactly under bounds far smaller than those they
// were generated with, and replay to themselves; every decision is one
// the grammar allows where it is made (Valid).
func TestExactChoicesOfBundled(t *testing.T) {
	for _, info := range datasets.Grammars() {
		g := fixture.Grammar(t, info.Name)
		gen := synth.NewGenerator(g, synth.NewRandom(3), synth.RandomPolicy)
		gen.MaxDepth, gen.MaxNodes = 12, 500
		small := synth.NewGenerator(g, nil, synth.RandomPolicy)
		small.MaxDepth, small.MaxRepeat, small.MaxNodes, small.MaxDistinct = 2, 1, 20, 1
		p := g.NewParser()
		for range 15 {
			text := gen.Generate().String()
			tree, err := p.Parse([]byte(text))
			if err != nil {
				t.Fatalf("%s: %q does not parse: %v", info.Name, text, err)
			}
			choices, err := small.ExactChoicesOf(tree)
			if err != nil {
				t.Fatalf("%s: %q: %v", info.Name, text, err)
			}
			exactReplays(t, small, choices, text)
			v := &validating{gen: small, choices: choices}
			small.Chooser = v
			small.Generate()
			small.Chooser = nil
			if v.bad != "" {
				t.Fatalf("%s: %q: %s", info.Name, text, v.bad)
			}
		}
	}
}

// validating replays choices and notes the first that Valid refuses.
type validating struct {
	gen     *synth.Generator
	choices []int
	next    int
	bad     string
}

func (v *validating) Choose(p synth.Point) int {
	c := v.choices[v.next]
	v.next++
	if v.bad == "" && !v.gen.Valid(p, c) {
		v.bad = fmt.Sprintf("decision %d (%s of %s) is %d, which Valid refuses", v.next-1, p.Kind, p.Node, c)
	}
	return c
}

// TestValid: what the grammar allows at each kind of decision, whatever
// the bounds (MaxRepeat 1 here).
func TestValid(t *testing.T) {
	g := fixture.Build(t, "g", `S := ("a" | "b" | "c") Q R ; Q := "q"{2,4} ; R := /(xx|yy)[a-f]{2}z*/ ;`)
	var points []synth.Point
	gen := synth.NewGenerator(g, chooserFunc(func(p synth.Point) int {
		points = append(points, synth.Point{Node: p.Node, Kind: p.Kind, Sub: p.Sub})
		return p.Options[0]
	}), synth.RandomPolicy)
	gen.MaxRepeat = 1
	gen.Generate()
	// The decisions in the order the generator makes them.
	tests := []struct {
		kind        synth.PointKind
		valid, nots []int
	}{
		{synth.Alternative, []int{0, 1, 2}, []int{-1, 3}},
		{synth.Repetition, []int{2, 3, 4}, []int{1, 5}},
		{synth.RegexAlternative, []int{0, 1}, []int{-1, 2}},
		{synth.RegexRepetition, []int{2}, []int{1, 3}},
		{synth.RegexChar, []int{'a', 'f'}, []int{-1, 'g', 'x', 0xD800, 0x110000}},
		{synth.RegexChar, []int{'c'}, []int{'A'}},
		{synth.RegexRepetition, []int{0, 1, 7, 1000}, []int{-1}},
	}
	if len(points) != len(tests) {
		t.Fatalf("%d decisions, want %d", len(points), len(tests))
	}
	for i, tt := range tests {
		p := points[i]
		if p.Kind != tt.kind {
			t.Fatalf("decision %d is a %s, want a %s", i, p.Kind, tt.kind)
		}
		for _, v := range tt.valid {
			if !gen.Valid(p, v) {
				t.Errorf("decision %d (%s of %s): %d not valid", i, p.Kind, p.Node, v)
			}
		}
		for _, v := range tt.nots {
			if gen.Valid(p, v) {
				t.Errorf("decision %d (%s of %s): %d valid", i, p.Kind, p.Node, v)
			}
		}
	}
	// A point of another kind than its node decides is not valid.
	if gen.Valid(synth.Point{Node: points[1].Node, Kind: synth.Alternative}, 0) {
		t.Error("an Alternative of a Quant is valid")
	}
}

type chooserFunc func(synth.Point) int

func (f chooserFunc) Choose(p synth.Point) int { return f(p) }

// TestChoicesOfDigest pins what ChoicesOf and ExactChoicesOf derive
// for the parsed trees of the bundled grammars' generated inputs, under
// the bounds they were made with and under small ones (decisions, or
// the error): a digest recorded before their regex search came to share
// one file with deriveRegex. The fuzzer's seeds are these decisions.
func TestChoicesOfDigest(t *testing.T) {
	h := sha256.New()
	derived, tried := 0, 0
	for _, name := range synth.DigestGrammars {
		g := fixture.Grammar(t, name)
		gen := synth.NewGenerator(g, synth.NewRandom(9), synth.RandomPolicy)
		gen.MaxDepth, gen.MaxNodes, gen.MaxDistinct = 10, 400, 3
		small := synth.NewGenerator(g, nil, synth.RandomPolicy)
		small.MaxDepth, small.MaxRepeat, small.MaxNodes, small.MaxDistinct = 3, 2, 30, 1
		p := g.NewParser()
		for range 12 {
			text := gen.Generate().String()
			tree, err := p.Parse([]byte(text))
			if err != nil {
				t.Fatalf("%s: %q does not parse: %v", name, text, err)
			}
			for _, x := range []*synth.Generator{gen, small} {
				for _, derive := range []func(*grammar.Tree) ([]int, error){x.ChoicesOf, x.ExactChoicesOf} {
					dec, err := derive(tree)
					fmt.Fprintf(h, "%v %v\n", dec, err)
					if tried++; err == nil {
						derived++
					}
				}
			}
		}
	}
	t.Logf("%d of %d derive", derived, tried)
	if got, want := fmt.Sprintf("%x", h.Sum(nil))[:16], "b9a6c468905689d3"; got != want {
		t.Errorf("the decisions changed: digest %s, want %s", got, want)
	}
}
