package synth_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// oldCover is Cover as it was before CoverFunc, kept as the reference the
// streamed set must equal: every input with its tree and choices in one
// slice.
func oldCover(g *grammar.Graph, opts synth.CoverOptions) ([]synth.Input, float64, error) {
	agenda, err := features.All(g, opts.K)
	if err != nil {
		return nil, 0, err
	}
	r := rand.New(rand.NewPCG(opts.Seed, 1))
	r.Shuffle(len(agenda), func(i, j int) { agenda[i], agenda[j] = agenda[j], agenda[i] })
	cov := features.NewCoverage(g, opts.K)
	rec := &synth.Recorder{C: synth.NewRandom(opts.Seed)}
	x := &synth.Generator{G: g, Chooser: rec, Policy: opts.CloseOff, MaxDepth: opts.MaxDepth, MaxRepeat: opts.MaxRepeat}
	var inputs []synth.Input
	for _, p := range agenda {
		if cov.Has(p) {
			continue
		}
		rec.Choices = nil
		t, err := x.Directed(p)
		if err != nil {
			return nil, 0, err
		}
		cov.Add(t)
		inputs = append(inputs, synth.Input{Tree: t, Text: t.String(), Choices: rec.Choices})
	}
	return inputs, cov.Fraction(opts.K), nil
}

// oldForest is Forest as it was before ForestFunc.
func oldForest(g *grammar.Graph, n int, opts synth.CoverOptions) ([]synth.Input, error) {
	all, err := features.All(g, opts.K)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(opts.Seed, 2))
	rec := &synth.Recorder{C: synth.NewRandom(opts.Seed)}
	x := &synth.Generator{G: g, Chooser: rec, Policy: opts.CloseOff, MaxDepth: opts.MaxDepth, MaxRepeat: opts.MaxRepeat}
	var out []synth.Input
	for range n {
		rec.Choices = nil
		t, err := x.Directed(all[r.IntN(len(all))])
		if err != nil {
			return nil, err
		}
		out = append(out, synth.Input{Tree: t, Text: t.String(), Choices: rec.Choices})
	}
	return out, nil
}

// shape is a tree's nodes in preorder, as grammar node ids and terminal
// values: two trees with the same shape are the same derivation.
func shape(t *grammar.Tree) string {
	var b []byte
	var walk func(*grammar.Tree)
	walk = func(t *grammar.Tree) {
		b = fmt.Appendf(b, "%d%q(", t.Node.ID, t.Value)
		for _, c := range t.Children {
			walk(c)
		}
		b = append(b, ')')
	}
	walk(t)
	return string(b)
}

// streamed is what emit saw of one input, copied before emit returned
// (with Reuse, tree and choices are overwritten by the next input).
type streamed struct {
	text, shape string
	choices     []int
}

func collect(got *[]streamed) func(synth.Input) error {
	return func(in synth.Input) error {
		if in.Tree.String() != in.Text {
			return fmt.Errorf("input %d: tree derives %q, text is %q", len(*got), in.Tree.String(), in.Text)
		}
		*got = append(*got, streamed{in.Text, shape(in.Tree), slices.Clone(in.Choices)})
		return nil
	}
}

// compareStreamed checks a streamed sequence against the reference.
func compareStreamed(t *testing.T, name string, got []streamed, want []synth.Input, choices bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d inputs streamed, %d in the reference", name, len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.text != w.Text || g.shape != shape(w.Tree) {
			t.Fatalf("%s: input %d is %q, reference %q", name, i, g.text, w.Text)
		}
		if choices && !slices.Equal(g.choices, w.Choices) {
			t.Fatalf("%s: input %d: choices %v, reference %v", name, i, g.choices, w.Choices)
		}
		if !choices && g.choices != nil {
			t.Fatalf("%s: input %d: choices %v recorded with NoChoices", name, i, g.choices)
		}
	}
}

// compareKept checks Cover's or Forest's inputs against the reference.
func compareKept(t *testing.T, name string, got, want []synth.Input) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d inputs, %d in the reference", name, len(got), len(want))
	}
	for i := range want {
		if got[i].Text != want[i].Text || shape(got[i].Tree) != shape(want[i].Tree) || !slices.Equal(got[i].Choices, want[i].Choices) {
			t.Fatalf("%s: input %d is %q %v, reference %q %v", name, i, got[i].Text, got[i].Choices, want[i].Text, want[i].Choices)
		}
	}
}

// TestCoverForestStream (issue 17, item 1): CoverFunc and ForestFunc emit
// the inputs the in-memory generators made before they streamed, in the
// same order, with and without Reuse and choices; Cover and Forest, now
// built on them, return the same inputs with trees and choices as
// before.
func TestCoverForestStream(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"json", "url", "csv", "xml", "expr", "ini"} {
		plain := fixture.Grammar(t, name)
		absent, err := synth.WithAbsence(plain.Source)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			k        int
			seed     uint64
			policy   synth.Policy
			absence  bool
			maxDepth int
		}{
			{1, 1, synth.RandomPolicy, false, 0},
			{2, 2, synth.RandomPolicy, false, 0},
			{3, 3, synth.ShortestPolicy, false, 0},
			{2, 4, synth.ShortestPolicy, true, 0},
			{3, 5, synth.RandomPolicy, true, 8},
		} {
			g := plain
			if c.absence {
				g = absent
			}
			opts := synth.CoverOptions{K: c.k, Seed: c.seed, CloseOff: c.policy, MaxDepth: c.maxDepth}
			label := fmt.Sprintf("%s k=%d seed=%d policy=%d absence=%v max-depth=%d", name, c.k, c.seed, c.policy, c.absence, c.maxDepth)

			want, fraction, err := oldCover(g, opts)
			if err != nil {
				t.Fatal(err)
			}
			res, err := synth.Cover(ctx, g, opts)
			if err != nil {
				t.Fatal(err)
			}
			compareKept(t, "Cover "+label, res.Inputs, want)
			if res.Coverage != fraction {
				t.Errorf("Cover %s: coverage %v, reference %v", label, res.Coverage, fraction)
			}
			for _, reuse := range []bool{false, true} {
				for _, choices := range []bool{false, true} {
					o := opts
					o.Reuse, o.NoChoices = reuse, !choices
					var got []streamed
					sres, err := synth.CoverFunc(ctx, g, o, collect(&got))
					if err != nil {
						t.Fatal(err)
					}
					compareStreamed(t, fmt.Sprintf("CoverFunc %s reuse=%v choices=%v", label, reuse, choices), got, want, choices)
					if sres.Inputs != nil || sres.Coverage != fraction || sres.Targets != res.Targets {
						t.Errorf("CoverFunc %s: result %d inputs, coverage %v of %d; Cover: coverage %v of %d",
							label, len(sres.Inputs), sres.Coverage, sres.Targets, res.Coverage, res.Targets)
					}
				}
			}

			const n = 40
			wantForest, err := oldForest(g, n, opts)
			if err != nil {
				t.Fatal(err)
			}
			forest, err := synth.Forest(ctx, g, n, opts)
			if err != nil {
				t.Fatal(err)
			}
			compareKept(t, "Forest "+label, forest, wantForest)
			for _, reuse := range []bool{false, true} {
				for _, choices := range []bool{false, true} {
					o := opts
					o.Reuse, o.NoChoices = reuse, !choices
					var got []streamed
					if err := synth.ForestFunc(ctx, g, n, o, collect(&got)); err != nil {
						t.Fatal(err)
					}
					compareStreamed(t, fmt.Sprintf("ForestFunc %s reuse=%v choices=%v", label, reuse, choices), got, wantForest, choices)
				}
			}
		}
	}
}

// TestCoverForestStreamStops: an error from emit, or a cancelled context,
// stops the generation and is returned.
func TestCoverForestStreamStops(t *testing.T) {
	g := fixture.Grammar(t, "json")
	stop := errors.New("stop")
	calls := 0
	emit := func(synth.Input) error {
		if calls++; calls == 3 {
			return stop
		}
		return nil
	}
	opts := synth.CoverOptions{K: 2, Seed: 1, Reuse: true}
	if _, err := synth.CoverFunc(context.Background(), g, opts, emit); !errors.Is(err, stop) || calls != 3 {
		t.Errorf("CoverFunc: %v after %d inputs, want %v after 3", err, calls, stop)
	}
	calls = 0
	if err := synth.ForestFunc(context.Background(), g, 100, opts, emit); !errors.Is(err, stop) || calls != 3 {
		t.Errorf("ForestFunc: %v after %d inputs, want %v after 3", err, calls, stop)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	cancelling := func(synth.Input) error {
		if calls++; calls == 2 {
			cancel()
		}
		return nil
	}
	if err := synth.ForestFunc(ctx, g, 100, opts, cancelling); !errors.Is(err, context.Canceled) || calls != 2 {
		t.Errorf("ForestFunc: %v after %d inputs, want %v after 2", err, calls, context.Canceled)
	}
	calls = 0
	if _, err := synth.CoverFunc(ctx, g, opts, cancelling); !errors.Is(err, context.Canceled) || calls != 0 {
		t.Errorf("CoverFunc on a cancelled context: %v after %d inputs", err, calls)
	}
}

// TestForestFuncReuse: with Reuse and without choices, forestation
// allocates far less per input than Forest, which keeps every tree: its
// memory does not grow with n.
func TestForestFuncReuse(t *testing.T) {
	g := fixture.Grammar(t, "json")
	const n = 2000
	allocated := func(stream bool) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		opts := synth.CoverOptions{K: 2, Seed: 7}
		if stream {
			opts.Reuse, opts.NoChoices = true, true
			if err := synth.ForestFunc(context.Background(), g, n, opts, func(synth.Input) error { return nil }); err != nil {
				t.Fatal(err)
			}
		} else if _, err := synth.Forest(context.Background(), g, n, opts); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / n
	}
	streamed, kept := allocated(true), allocated(false)
	t.Logf("bytes allocated per json forest input: %d streamed with Reuse, %d kept", streamed, kept)
	if streamed > kept/4 {
		t.Errorf("bytes allocated per input: %d streamed with Reuse, %d kept; want far fewer", streamed, kept)
	}
}
