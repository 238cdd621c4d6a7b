package synth_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// byteStrings are the byte strings the FromBytes tests feed: edge cases
// and random strings of lengths up to 512.
func byteStrings(seed uint64, n int) [][]byte {
	r := rand.New(rand.NewPCG(seed, 1))
	out := [][]byte{nil, {0}, {0xff}, bytes.Repeat([]byte{0}, 64), bytes.Repeat([]byte{0xff}, 64), bytes.Repeat([]byte{0x80, 0x7f}, 200)}
	for range n {
		b := make([]byte, r.IntN(513))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		out = append(out, b)
	}
	return out
}

// TestFromBytesParses: every byte string yields an input that its
// grammar parses, for every bundled grammar, and the bytes it used are
// all that matter.
func TestFromBytesParses(t *testing.T) {
	for _, info := range datasets.Grammars() {
		t.Run(info.Name, func(t *testing.T) {
			g := fixture.Grammar(t, info.Name)
			gen := synth.NewByteGenerator(g)
			gen.MaxNodes = 2000 // the expression grammars reach any budget: keep parsing quick
			for _, data := range byteStrings(3, 60) {
				d, used := gen.Derive(data)
				if used > len(data) || !d.Tree.Complete() {
					t.Fatalf("Derive(%x): used %d of %d bytes, complete %v", data, used, len(data), d.Tree.Complete())
				}
				mustParse(t, g, d.Text)
				if got := gen.FromBytes(data); string(got) != d.Text {
					t.Fatalf("FromBytes(%x) = %q, Derive gave %q", data, got, d.Text)
				}
				// Only the bytes used matter: cut off, or, when some were
				// left over, followed by others, they give the same input.
				others := [][]byte{data[:used]}
				if used < len(data) {
					others = append(others, append(slices.Clone(data[:used]), ^data[used], 0x55, 0xaa))
				}
				for _, other := range others {
					if got := gen.FromBytes(other); string(got) != d.Text {
						t.Fatalf("FromBytes(%x) = %q, but %x, whose first %d bytes it used, gives %q", other, got, data, used, d.Text)
					}
				}
				// The choices replay the input.
				replay := synth.NewGenerator(g, &synth.Replay{Choices: d.Choices}, synth.RandomPolicy)
				if got := replay.Generate().String(); got != d.Text {
					t.Fatalf("replayed choices of %x give %q, want %q", data, got, d.Text)
				}
			}
		})
	}
}

// TestFromBytesJSON: the json grammar's inputs from bytes are JSON that
// encoding/json accepts.
func TestFromBytesJSON(t *testing.T) {
	gen := synth.NewByteGenerator(fixture.Grammar(t, "json"))
	for _, data := range byteStrings(4, 300) {
		if in := gen.FromBytes(data); !json.Valid(in) {
			t.Fatalf("FromBytes(%x) = %q, not valid JSON", data, in)
		}
	}
}

// TestFromBytesShortest: no bytes give the grammar's shortest input, and
// bytes of 0 take first options and fewest repetitions.
func TestFromBytesShortest(t *testing.T) {
	for _, name := range []string{"json", "url", "expr", "csv", "xml"} {
		g := fixture.Grammar(t, name)
		gen := synth.NewByteGenerator(g)
		shortest := synth.NewGenerator(g, &synth.Replay{}, synth.ShortestPolicy).Generate().String()
		if got := string(gen.FromBytes(nil)); got != shortest {
			t.Errorf("%s: FromBytes(nil) = %q, want the shortest input %q", name, got, shortest)
		}
		if d, used := gen.Derive([]byte{}); used != 0 || d.Text != shortest {
			t.Errorf("%s: Derive of no bytes used %d bytes and gave %q", name, used, d.Text)
		}
	}
	gen := synth.NewByteGenerator(fixture.Grammar(t, "json"))
	if got := string(gen.FromBytes([]byte{0, 0, 0, 0, 0, 0, 0, 0})); got != "{}" {
		t.Errorf("json: zero bytes give %q, want {} (first alternative, no members)", got)
	}
}

// TestFromBytesDeterministic: the same bytes give the same input, from a
// fresh generator or a used one, and from many goroutines at once.
func TestFromBytesDeterministic(t *testing.T) {
	g := fixture.Grammar(t, "json")
	data := byteStrings(5, 40)
	want := make([]string, len(data))
	for i, b := range data {
		want[i] = string(synth.NewByteGenerator(g).FromBytes(b))
	}
	shared := synth.NewByteGenerator(g)
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(data))
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range data {
				i := (k + w*5) % len(data)
				if got := string(shared.FromBytes(data[i])); got != want[i] {
					errs <- got + " != " + want[i]
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal("not deterministic:", e)
	}
}

// TestFromBytesBounded: however many bytes there are, the input stays
// within the size bound (past MaxNodes only the shortest completion is
// added) and the depth bound.
func TestFromBytesBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for _, name := range []string{"json", "exprlang", "xml", "markdown"} {
		g := fixture.Grammar(t, name)
		for _, budget := range []int{200, 2000} {
			gen := synth.NewByteGenerator(g)
			gen.MaxNodes = budget
			for off := 0; off < 8; off++ {
				d, _ := gen.Derive(data[off*1000:])
				if n := d.Tree.Size(); n > 4*budget {
					t.Errorf("%s, budget %d: a tree of %d nodes", name, budget, n)
				}
			}
		}
	}
}

// TestFromBytesLocality: a fuzzer's small byte changes are small changes
// of the input: the input of a one-byte mutant is far closer to the
// original than the input of unrelated bytes.
func TestFromBytesLocality(t *testing.T) {
	for _, name := range []string{"json", "url", "expr"} {
		g := fixture.Grammar(t, name)
		gen := synth.NewByteGenerator(g)
		r := rand.New(rand.NewPCG(7, 1))
		var mutant, unrelated []float64
		for _, data := range byteStrings(8, 200)[6:] {
			if len(data) < 8 {
				continue
			}
			d, used := gen.Derive(data)
			if used == 0 {
				continue
			}
			other := byteStrings(uint64(len(data)), 1)[6]
			at := r.IntN(used)
			m := slices.Clone(data)
			m[at] ^= byte(1 + r.IntN(255))
			dm, _ := gen.Derive(m)
			mutant = append(mutant, distance(d.Text, dm.Text))
			unrelated = append(unrelated, distance(d.Text, string(gen.FromBytes(other))))
		}
		mm, mu := median(mutant), median(unrelated)
		t.Logf("%s: median normalized edit distance: one-byte mutants %.3f, unrelated bytes %.3f", name, mm, mu)
		if mm > mu/2 {
			t.Errorf("%s: one-byte mutants are as far (%.3f) as unrelated inputs (%.3f)", name, mm, mu)
		}
	}
}

// distance is the edit distance of a and b over the longer length.
func distance(a, b string) float64 {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(b)]) / float64(len(a))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[len(s)/2]
}

// FuzzFromBytes: whatever the fuzzer's bytes, the json grammar's
// generator gives an input that the grammar parses and encoding/json
// accepts, the same each time.
func FuzzFromBytes(f *testing.F) {
	g, err := datasets.Grammar("json")
	if err != nil {
		f.Fatal(err)
	}
	gen := synth.NewByteGenerator(g)
	for _, b := range byteStrings(9, 10) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := gen.FromBytes(data)
		if _, err := g.Parse(in); err != nil {
			t.Fatalf("FromBytes(%x) = %q does not parse: %v", data, in, err)
		}
		if !json.Valid(in) {
			t.Fatalf("FromBytes(%x) = %q is not valid JSON", data, in)
		}
		if again := gen.FromBytes(data); !bytes.Equal(again, in) {
			t.Fatalf("FromBytes(%x) gave %q, then %q", data, in, again)
		}
	})
}

// TestBytesOf: the bytes BytesOf writes for a tree make that tree's input
// again through FromBytes, for every bundled grammar, whether the tree was
// generated or parsed from text; a tree past the bounds is an error that
// says which decision.
func TestBytesOf(t *testing.T) {
	for _, info := range datasets.Grammars() {
		t.Run(info.Name, func(t *testing.T) {
			g := fixture.Grammar(t, info.Name)
			gen := synth.NewByteGenerator(g)
			gen.MaxNodes = 2000
			x := &synth.Generator{G: g, Chooser: synth.NewRandom(5), Policy: synth.RandomPolicy, MaxNodes: gen.MaxNodes}
			parsed := 0
			for i := range 20 {
				tree := x.Generate()
				text := tree.String()
				data, err := gen.BytesOf(tree)
				if err != nil {
					t.Fatalf("input %d %q: %v", i, text, err)
				}
				if got := gen.FromBytes(data); string(got) != text {
					t.Fatalf("FromBytes(BytesOf(%q)) = %q", text, got)
				}
				// The same text parsed: another tree where the grammar is
				// ambiguous, which may not fit the bounds, but whose bytes,
				// when it does, make the text again.
				pt, err := g.Parse([]byte(text))
				if err != nil {
					t.Fatalf("input %d %q does not parse: %v", i, text, err)
				}
				if data, err := gen.BytesOf(pt); err == nil {
					parsed++
					if got := gen.FromBytes(data); string(got) != text {
						t.Fatalf("FromBytes(BytesOf(parse(%q))) = %q", text, got)
					}
				}
			}
			if parsed == 0 {
				t.Errorf("no parsed tree of 20 inputs had bytes")
			}
		})
	}
}

func TestBytesOfBounds(t *testing.T) {
	g := fixture.Grammar(t, "json")
	gen := synth.NewByteGenerator(g)
	tree, err := g.Parse([]byte(`[1,2,3,4,5,6,7,8,9,10,11,12]`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gen.BytesOf(tree); err == nil {
		t.Fatalf("BytesOf of an array of 12 elements (MaxRepeat %d): no error", synth.DefaultMaxRepeat)
	}
	small, err := g.Parse([]byte(`[1,2]`))
	if err != nil {
		t.Fatal(err)
	}
	data, err := gen.BytesOf(small)
	if err != nil {
		t.Fatal(err)
	}
	if got := gen.FromBytes(data); string(got) != `[1,2]` {
		t.Fatalf("FromBytes(BytesOf([1,2])) = %q", got)
	}
}

// TestByteGeneratorConstraints: with Constraints, the inputs of random
// bytes keep a grammar's where clauses far more often than without, the
// input is a function of the bytes whatever was made before, and
// FromBytes and Derive agree.
func TestByteGeneratorConstraints(t *testing.T) {
	for _, name := range []string{"cron", "gotemplate", "xml"} {
		t.Run(name, func(t *testing.T) {
			g := fixture.Grammar(t, name)
			set, err := constraint.Compile(g)
			if err != nil {
				t.Fatal(err)
			}
			check := constraint.NewChecker(set)
			plain, kept := synth.NewByteGenerator(g), synth.NewByteGenerator(g)
			kept.Constraints = set
			data := byteStrings(11, 60)
			satisfied := map[*synth.ByteGenerator]int{}
			first := make([]string, len(data))
			for i, d := range data {
				for _, gen := range []*synth.ByteGenerator{plain, kept} {
					tree := mustParse(t, g, string(gen.FromBytes(d)))[0]
					if len(check.Check(tree)) == 0 {
						satisfied[gen]++
					}
				}
				first[i] = string(kept.FromBytes(d))
			}
			// Again, in reverse order: the same inputs.
			for i := len(data) - 1; i >= 0; i-- {
				if got := string(kept.FromBytes(data[i])); got != first[i] {
					t.Fatalf("FromBytes(%x) = %q, before %q", data[i], got, first[i])
				}
				if d, _ := kept.Derive(data[i]); d.Text != first[i] {
					t.Fatalf("Derive(%x) = %q, FromBytes %q", data[i], d.Text, first[i])
				}
			}
			t.Logf("%s: %d of %d inputs keep the clauses with Constraints, %d without", name, satisfied[kept], len(data), satisfied[plain])
			if satisfied[kept] < len(data)*9/10 || satisfied[kept] <= satisfied[plain] {
				t.Errorf("%d of %d inputs keep the clauses with Constraints, %d without", satisfied[kept], len(data), satisfied[plain])
			}
		})
	}
}
