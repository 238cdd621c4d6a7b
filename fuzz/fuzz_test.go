package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

func jsonGraph(t testing.TB) *grammar.Graph {
	t.Helper()
	g, err := datasets.Grammar("json")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// magic is the text the prefix subject rewards step by step.
const magic = `[true,null,false,true,false,true,null`

// prefixRunner is a made-up subject: function i runs when the input,
// white space left out, starts with magic's first i+1 bytes (prefix), so
// each step deeper is rare for
// random inputs but one mutation away for a kept input. Inputs that
// encoding/json rejects are rejected; an input starting with all of
// magic crashes, and so does one holding "null,null" (another stack);
// "false" counts calls of function len(magic)+1, one per occurrence.
type prefixRunner struct {
	inputs [][]byte // every input run, in order
}

func (p *prefixRunner) Functions() []string {
	names := make([]string, len(magic)+2)
	for i := range names {
		names[i] = "f" + string(rune('a'+i))
	}
	return names
}

func (p *prefixRunner) Run(ctx context.Context, in []byte) (*coverage.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.inputs = append(p.inputs, bytes.Clone(in))
	r := &coverage.Result{Outcome: coverage.OK}
	if !json.Valid(in) {
		r.Outcome = coverage.Error
	}
	n := prefix(in)
	for i := range n {
		r.Covered = append(r.Covered, i)
		r.Counts = append(r.Counts, 1)
	}
	if n := bytes.Count(in, []byte("false")); n > 0 {
		r.Covered = append(r.Covered, len(magic)+1)
		r.Counts = append(r.Counts, uint32(n))
	}
	switch {
	case n == len(magic):
		r.Outcome, r.Stack, r.Message = coverage.Panic, "magic", "reached the end of magic"
	case bytes.Contains(bytes.Join(bytes.Fields(in), nil), []byte("null,null")):
		r.Outcome, r.Stack, r.Message = coverage.Panic, "nulls", "two nulls"
	}
	return r, nil
}

// prefix is how many of magic's bytes the input starts with, white space
// left out.
func prefix(in []byte) int {
	in = bytes.Join(bytes.Fields(in), nil)
	n := 0
	for n < len(magic) && n < len(in) && in[n] == magic[n] {
		n++
	}
	return n
}

func deepest(res *Result) int {
	best := 0
	for _, e := range res.Corpus {
		best = max(best, prefix(e.Input))
	}
	return best
}

func TestFuzzDeterministic(t *testing.T) {
	g := jsonGraph(t)
	run := func() *Result {
		res, err := Fuzz(context.Background(), g, &prefixRunner{}, Options{Seed: 3, Execs: 1500})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	if a.Execs != 1500 || b.Execs != 1500 {
		t.Fatalf("executions %d and %d, want 1500", a.Execs, b.Execs)
	}
	if len(a.Corpus) != len(b.Corpus) || len(a.Failures) != len(b.Failures) {
		t.Fatalf("corpus %d and %d, failures %d and %d", len(a.Corpus), len(b.Corpus), len(a.Failures), len(b.Failures))
	}
	for i := range a.Corpus {
		if !bytes.Equal(a.Corpus[i].Input, b.Corpus[i].Input) || !reflect.DeepEqual(a.Corpus[i].Choices, b.Corpus[i].Choices) {
			t.Fatalf("corpus input %d differs: %q and %q", i, a.Corpus[i].Input, b.Corpus[i].Input)
		}
	}
	c, err := Fuzz(context.Background(), g, &prefixRunner{}, Options{Seed: 4, Execs: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Corpus) == len(a.Corpus) && bytes.Equal(c.Corpus[len(c.Corpus)-1].Input, a.Corpus[len(a.Corpus)-1].Input) {
		t.Error("another seed gives the same campaign")
	}
}

// TestFuzzCorpus checks what is kept: every corpus input moved a domain,
// replays from its choices, and is valid exactly when the subject
// accepted it; failures are told apart by stack and counted.
func TestFuzzCorpus(t *testing.T) {
	g := jsonGraph(t)
	p := &prefixRunner{}
	res, err := Fuzz(context.Background(), g, p, Options{Seed: 1, Execs: 4000, Bounds: Bounds{MaxDepth: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Corpus) < 3 {
		t.Fatalf("only %d inputs kept", len(res.Corpus))
	}
	for _, e := range res.Corpus {
		if len(e.Moved) == 0 {
			t.Errorf("%q kept without moving a domain", e.Input)
		}
		x := synth.NewGenerator(g, &synth.Replay{Choices: e.Choices}, synth.RandomPolicy)
		x.MaxDepth = 10
		again := x.Generate()
		if again.String() != string(e.Input) {
			t.Errorf("choices of %q replay to %q", e.Input, again.String())
		}
		// Valid is the subject's word: a crash is not valid, even on
		// JSON that encoding/json accepts.
		if r, _ := (&prefixRunner{}).Run(context.Background(), e.Input); e.Valid != (r.Outcome == coverage.OK) {
			t.Errorf("%q: valid %v, the subject says %s", e.Input, e.Valid, r.Outcome)
		}
		if !bytes.Equal(p.inputs[e.Exec-1], e.Input) {
			t.Errorf("execution %d ran %q, the entry says %q", e.Exec, p.inputs[e.Exec-1], e.Input)
		}
	}
	stacks := map[string]int{}
	total := 0
	for _, f := range res.Failures {
		if stacks[f.Stack]++; stacks[f.Stack] > 1 {
			t.Errorf("failure %s listed twice", f.Stack)
		}
		if f.Outcome != coverage.Panic || f.Count < 1 || !bytes.Equal(p.inputs[f.Exec-1], f.Input) {
			t.Errorf("failure %+v", f)
		}
		total += f.Count
	}
	crashes := 0
	for _, in := range p.inputs {
		if prefix(in) == len(magic) || bytes.Contains(bytes.Join(bytes.Fields(in), nil), []byte("null,null")) {
			crashes++
		}
	}
	if total != crashes {
		t.Errorf("failures count %d crashes, the subject crashed %d times", total, crashes)
	}
	if last := res.Curve[len(res.Curve)-1]; last.Execs != res.Execs || last.Corpus != len(res.Corpus) {
		t.Errorf("the curve ends at %+v, the result is %+v", last, res.Stats)
	}
}

// TestFuzzGuidance compares the campaign with the same loop given no
// feedback (a domain that never moves, so every input is random) at the
// same number of executions: feedback must get deeper into magic.
//
// When mutants shared their parent's salt, 13 of seeds 1 to 30 failed:
// the corpus stayed at a few inputs such as "[ ]", since every mutant
// that gave the empty array an element read it from the same extension
// and added the same one. With a salt per mutant, all 30 pass
// (TestMutantsGrowAfresh checks the cause).
func TestFuzzGuidance(t *testing.T) {
	g := jsonGraph(t)
	never := NewDomain("never", Union, func(*Run, func(k, v uint64)) {})
	small := Bounds{MaxDepth: 10}
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		guided, err := Fuzz(context.Background(), g, &prefixRunner{}, Options{Seed: seed, Execs: 5000, Bounds: small})
		if err != nil {
			t.Fatal(err)
		}
		p := &prefixRunner{}
		if _, err := Fuzz(context.Background(), g, p, Options{Seed: seed, Execs: 5000, Bounds: small, Domains: []Domain{never}}); err != nil {
			t.Fatal(err)
		}
		random := 0
		for _, in := range p.inputs {
			random = max(random, prefix(in))
		}
		if d := deepest(guided); d <= random {
			t.Errorf("seed %d: guided fuzzing reached %d bytes of %q, random inputs %d", seed, d, magic, random)
		} else {
			t.Logf("seed %d: guided %d bytes, random %d", seed, d, random)
		}
	}
}

func TestFuzzSeeds(t *testing.T) {
	g := jsonGraph(t)
	var seeds [][]int
	var texts []string
	for i := range 5 {
		rec := &synth.Recorder{C: synth.NewRandom(uint64(i))}
		texts = append(texts, synth.NewGenerator(g, rec, synth.RandomPolicy).Generate().String())
		seeds = append(seeds, rec.Choices)
	}
	p := &prefixRunner{}
	if _, err := Fuzz(context.Background(), g, p, Options{Seed: 1, Execs: 20, Seeds: seeds}); err != nil {
		t.Fatal(err)
	}
	for i, want := range texts {
		if string(p.inputs[i]) != want {
			t.Errorf("execution %d ran %q, want seed %q", i+1, p.inputs[i], want)
		}
	}
}

func TestFuzzStops(t *testing.T) {
	g := jsonGraph(t)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	res, err := Fuzz(ctx, g, &prefixRunner{}, Options{Seed: 1, Progress: func(Stats) {
		calls++
	}, ProgressEvery: 1, Domains: []Domain{Coverage(), cancelAfter(cancel, 100)}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || res.Execs != 100 {
		t.Fatalf("result %+v, want 100 executions", res)
	}
	if calls < 2 {
		t.Errorf("progress told %d times", calls)
	}
	if _, err := Fuzz(context.Background(), g, &prefixRunner{}, Options{Execs: -1}); err == nil {
		t.Error("a negative budget is accepted")
	}
	boom := errors.New("boom")
	_, err = Fuzz(context.Background(), g, failingRunner{boom}, Options{Execs: 10})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the subject's", err)
	}
}

// cancelAfter is a domain that cancels the campaign after n runs.
func cancelAfter(cancel func(), n int) Domain {
	runs := 0
	return NewDomain("cancel", Union, func(*Run, func(k, v uint64)) {
		if runs++; runs == n {
			cancel()
		}
	})
}

type failingRunner struct{ err error }

func (failingRunner) Functions() []string { return nil }
func (f failingRunner) Run(context.Context, []byte) (*coverage.Result, error) {
	return nil, f.err
}

func TestDomains(t *testing.T) {
	res := func(covered []int, counts []uint32, valid bool) *Run {
		return &Run{Result: &coverage.Result{Covered: covered, Counts: counts}, Valid: valid}
	}
	blocks := func(bs []int, valid bool) *Run {
		return &Run{Result: &coverage.Result{Blocks: bs}, Valid: valid}
	}
	tests := []struct {
		domain Domain
		runs   []*Run
		moved  []bool
		size   int
	}{
		{Coverage(), []*Run{res([]int{1, 2}, []uint32{1, 1}, false), res([]int{2}, []uint32{5}, true), res([]int{3}, []uint32{1}, false)},
			[]bool{true, false, true}, 3},
		{BlockCoverage(), []*Run{blocks([]int{7, 9}, false), blocks([]int{9}, true), blocks([]int{8}, false)},
			[]bool{true, false, true}, 3},
		{ValidBlockCoverage(), []*Run{blocks([]int{7, 9}, false), blocks([]int{9}, true), blocks([]int{9}, true), blocks([]int{7}, true)},
			[]bool{false, true, false, true}, 2},
		{ValidCoverage(), []*Run{res([]int{1, 2}, []uint32{1, 1}, false), res([]int{2}, []uint32{5}, true), res([]int{1, 2}, []uint32{1, 1}, true)},
			[]bool{false, true, true}, 2},
		// 1, 2, 3-4, 5-8: a count in a class seen before moves nothing.
		{Counts(), []*Run{res([]int{1}, []uint32{1}, true), res([]int{1}, []uint32{3}, true), res([]int{1}, []uint32{4}, true), res([]int{1}, []uint32{5}, true), res([]int{1}, []uint32{1}, true)},
			[]bool{true, true, false, true, false}, 1},
		{Perf(), []*Run{res([]int{1, 2}, []uint32{3, 1}, true), res([]int{1}, []uint32{2}, true), res([]int{2}, []uint32{9}, true), res([]int{1}, []uint32{3}, true)},
			[]bool{true, false, true, false}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.domain.Name(), func(t *testing.T) {
			for i, r := range tt.runs {
				if got := tt.domain.Observe(r); got != tt.moved[i] {
					t.Errorf("run %d moved %v, want %v", i, got, tt.moved[i])
				}
			}
			if tt.domain.Size() != tt.size {
				t.Errorf("size %d, want %d", tt.domain.Size(), tt.size)
			}
		})
	}
	perf := Perf()
	perf.Observe(res([]int{4}, []uint32{7}, true))
	perf.Observe(res([]int{4}, []uint32{3}, true))
	if v, _ := perf.Value(4); v != 7 {
		t.Errorf("perf keeps %d for function 4, want the maximum 7", v)
	}
}

func TestKPathDomain(t *testing.T) {
	g := jsonGraph(t)
	d := KPaths(g, 2)
	parse := func(s string) *grammar.Tree {
		tr, err := g.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	for i, c := range []struct {
		in    string
		moved bool
	}{{"1", true}, {"2", false}, {"[1]", true}, {"[3]", false}, {`{"a":1}`, true}} {
		if got := d.Observe(&Run{Tree: parse(c.in)}); got != c.moved {
			t.Errorf("%d: %s moved %v, want %v", i, c.in, got, c.moved)
		}
	}
}

func TestNewDomains(t *testing.T) {
	g := jsonGraph(t)
	ds, err := NewDomains(strings.Split("cov,valid,blocks,valid-blocks,counts,perf,kpath", ","), g, 2)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range ds {
		names = append(names, d.Name())
	}
	if !reflect.DeepEqual(names, DomainNames()) {
		t.Errorf("names %v", names)
	}
	for _, bad := range [][]string{nil, {"cov", "cov"}, {"speed"}} {
		if _, err := NewDomains(bad, g, 2); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestSeqRealization checks the sequences: a derivation's recorded
// sequence realizes the same input again, a fresh salt a different one,
// and a mutation that changes one value leaves the other streams'
// decisions as they were.
func TestSeqRealization(t *testing.T) {
	g := jsonGraph(t)
	r := newRealizer(g, Bounds{}, newStreams())
	d := r.realize(&sequence{salt: 42})
	again := r.realize(d.seq)
	if string(again.text) != string(d.text) || !reflect.DeepEqual(again.choices, d.choices) {
		t.Fatalf("the recorded sequence realizes %q, first %q", again.text, d.text)
	}
	if e := r.realize(&sequence{salt: 42}); string(e.text) != string(d.text) {
		t.Fatalf("the same salt realizes %q and %q", e.text, d.text)
	}
	if e := r.realize(&sequence{salt: 43}); string(e.text) == string(d.text) {
		t.Errorf("salts 42 and 43 realize the same %q", d.text)
	}
	// Change the last value of one regex character stream: every other
	// stream reads what it read before.
	target := -1
	for id, vs := range d.seq.streams {
		if synth.PointKind(r.ids.shared.keys[id]>>24&0xff) == synth.RegexChar && len(vs) > 0 {
			target = id
			break
		}
	}
	if target < 0 {
		t.Fatal("no character decision in the input")
	}
	m := &sequence{salt: d.seq.salt, streams: make([][]uint32, len(d.seq.streams))}
	for id, vs := range d.seq.streams {
		m.streams[id] = append([]uint32(nil), vs...)
	}
	m.streams[target][len(m.streams[target])-1]++
	e := r.realize(m)
	if string(e.text) == string(d.text) {
		t.Errorf("changing a character left %q as it was", d.text)
	}
	for id, vs := range d.seq.streams {
		if id != target && !reflect.DeepEqual(e.seq.streams[id], vs) {
			t.Errorf("stream %d read %v, before %v", id, e.seq.streams[id], vs)
		}
	}
	// A mutation copies the streams it changes and shares the others.
	mut := &mutator{r: rand.New(rand.NewPCG(1, 1)), meanSpans: 2, meanLength: 4}
	before := fmt.Sprint(d.seq.streams)
	for range 100 {
		mut.mutate(d.seq, d.slots)
	}
	if fmt.Sprint(d.seq.streams) != before {
		t.Error("mutating a sequence changed it")
	}
}

// rareRunner is a made-up subject with rare functions: "null" in the
// input runs function 1, "[null," runs function 2 too, and function 3
// when a number follows it. Every input runs function 0.
type rareRunner struct{ runs int }

func (*rareRunner) Functions() []string {
	return []string{"all", "null", "open-null", "open-null-number"}
}

func (r *rareRunner) Run(_ context.Context, in []byte) (*coverage.Result, error) {
	r.runs++
	s := string(bytes.Join(bytes.Fields(in), nil))
	res := &coverage.Result{Outcome: coverage.OK, Covered: []int{0}, Counts: []uint32{1}}
	if strings.Contains(s, "null") {
		res.Covered, res.Counts = append(res.Covered, 1), append(res.Counts, 1)
	}
	if i := strings.Index(s, "[null,"); i >= 0 {
		res.Covered, res.Counts = append(res.Covered, 2), append(res.Counts, 1)
		if rest := s[i+6:]; len(rest) > 0 && (rest[0] == '-' || rest[0] >= '0' && rest[0] <= '9') {
			res.Covered, res.Counts = append(res.Covered, 3), append(res.Counts, 1)
		}
	}
	return res, nil
}

// TestFuzzRare checks FairFuzz's search: every execution is counted once
// (mask trials included), the campaign stays deterministic, masks stay
// within their bounds, and mutants made within a mask keep their
// parent's rare part more often than mutants made anywhere.
func TestFuzzRare(t *testing.T) {
	g := jsonGraph(t)
	opts := Options{Seed: 1, Execs: 3000, Rare: true, Bounds: Bounds{MaxDepth: 10}}
	run := func() (*Result, *rareRunner) {
		r := &rareRunner{}
		res, err := Fuzz(context.Background(), g, r, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res, r
	}
	a, ra := run()
	b, _ := run()
	if a.Execs != 3000 || ra.runs != 3000 {
		t.Fatalf("%d executions counted, %d made; want 3000", a.Execs, ra.runs)
	}
	if len(a.Corpus) != len(b.Corpus) || !bytes.Equal(a.Corpus[len(a.Corpus)-1].Input, b.Corpus[len(b.Corpus)-1].Input) {
		t.Error("the same seed gives different campaigns")
	}
	var parents []*Entry
	for i := range a.Corpus {
		e := &a.Corpus[i]
		if e.rare == nil {
			continue
		}
		if e.rare.next > len(e.rare.trials) || len(e.rare.trials) > maxMaskTrials || len(e.rare.locked) != len(e.slots) {
			t.Errorf("mask state %+v", e.rare)
		}
		if !contains(e.units, e.rare.target) {
			t.Errorf("target %d is not among what the input ran, %v", e.rare.target, e.units)
		}
		if e.rare.next == len(e.rare.trials) && len(e.rare.unlocked) < len(e.slots) {
			parents = append(parents, e)
		}
	}
	if len(parents) == 0 {
		t.Fatal("no input got a mask that locks anything")
	}
	keeps := func(parent *Entry, slots []slot) int {
		m := &mutator{r: rand.New(rand.NewPCG(9, 9)), meanSpans: 2, meanLength: 4}
		re := newRealizer(g, opts.Bounds, newStreams())
		kept := 0
		for range 300 {
			r, _ := (&rareRunner{}).Run(context.Background(), re.realize(m.mutate(parent.seq, slots)).text)
			if slices.Contains(r.Covered, parent.rare.target) {
				kept++
			}
		}
		return kept
	}
	masked, anywhere := 0, 0
	for _, p := range parents {
		masked += keeps(p, p.rare.unlocked)
		anywhere += keeps(p, p.slots)
	}
	t.Logf("%d masked inputs; mutants keeping the rare part: %d of %d within the mask, %d anywhere", len(parents), masked, 300*len(parents), anywhere)
	if masked <= anywhere {
		t.Errorf("mutants within the mask keep the rare part %d times, anywhere %d", masked, anywhere)
	}
}

// TestFuzzFresh: with a share of fresh random inputs a campaign's inputs
// are more varied (more distinct 3-byte starts, a rough proxy, compared
// at equal executions with the same seed), it stays deterministic, and a
// share outside [0, 1) is refused.
func TestFuzzFresh(t *testing.T) {
	g := jsonGraph(t)
	for _, bad := range []float64{-0.1, 1, 2} {
		if _, err := Fuzz(context.Background(), g, &prefixRunner{}, Options{Execs: 10, Fresh: bad}); err == nil {
			t.Errorf("Fresh %v accepted", bad)
		}
	}
	run := func(fresh float64) (*Result, int) {
		p := &prefixRunner{}
		res, err := Fuzz(context.Background(), g, p, Options{Seed: 5, Execs: 2000, Fresh: fresh, Bounds: Bounds{MaxDepth: 10}})
		if err != nil {
			t.Fatal(err)
		}
		starts := map[string]bool{}
		for _, in := range p.inputs {
			starts[string(in[:min(3, len(in))])] = true
		}
		return res, len(starts)
	}
	_, zest := run(0)
	fr, fresh := run(0.3)
	if fresh <= zest {
		t.Errorf("with 30%% fresh inputs %d distinct starts, without %d", fresh, zest)
	}
	if again, _ := run(0.3); len(again.Corpus) != len(fr.Corpus) || again.Execs != fr.Execs {
		t.Error("the same seed gives different campaigns")
	}
}
