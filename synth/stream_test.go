package synth_test

import (
	"context"
	"errors"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestGenerateFunc: GenerateFunc emits the inputs a generator that keeps
// its trees makes, with and without choices, which replay them; and it
// stops with the context's error when the context is done.
func TestGenerateFunc(t *testing.T) {
	g := fixture.Grammar(t, "json")
	for _, tt := range []struct {
		name    string
		policy  synth.Policy
		choices bool
	}{{"random", synth.RandomPolicy, false}, {"random choices", synth.RandomPolicy, true}, {"shortest choices", synth.ShortestPolicy, true}} {
		t.Run(tt.name, func(t *testing.T) {
			opts := synth.GenerateOptions{Policy: tt.policy, Seed: 7, MaxDepth: 12, MaxRepeat: 3, Choices: tt.choices}
			var got []streamed
			if err := synth.GenerateFunc(context.Background(), g, 40, opts, collect(&got)); err != nil {
				t.Fatal(err)
			}
			rec := &synth.Recorder{C: synth.NewRandom(7)}
			x := &synth.Generator{G: g, Chooser: rec, Policy: tt.policy, MaxDepth: 12, MaxRepeat: 3}
			var want []synth.Input
			for range 40 {
				rec.Choices = nil
				tree := x.Generate()
				want = append(want, synth.Input{Tree: tree, Text: tree.String(), Choices: rec.Choices})
			}
			compareStreamed(t, tt.name, got, want, tt.choices)
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := synth.GenerateFunc(ctx, g, 100, synth.GenerateOptions{Seed: 1}, func(synth.Input) error {
		if n++; n == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 5 {
		t.Errorf("after a cancel: %v, %d inputs", err, n)
	}
}

// TestGenerateSet: GenerateSet emits CoverFunc's or ForestFunc's inputs,
// counts them, and measures their k-paths in g, of the inputs parsed
// back with g when they come from a rewriting of it.
func TestGenerateSet(t *testing.T) {
	g := fixture.Grammar(t, "json")
	absent, err := synth.WithAbsence(g.Source)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		opts synth.SetOptions
	}{
		{"kpath", synth.SetOptions{CoverOptions: synth.CoverOptions{K: 2, Seed: 3}}},
		{"forest", synth.SetOptions{CoverOptions: synth.CoverOptions{K: 2, Seed: 4, CloseOff: synth.ShortestPolicy}, Forest: true, N: 60}},
		{"kpath absence", synth.SetOptions{CoverOptions: synth.CoverOptions{K: 2, Seed: 5, NoChoices: true}, From: absent}},
		{"forest absence", synth.SetOptions{CoverOptions: synth.CoverOptions{K: 1, Seed: 6}, Forest: true, N: 30, From: absent}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			from := g
			if tt.opts.From != nil {
				from = tt.opts.From
			}
			var want []synth.Input
			if tt.opts.Forest {
				want, err = synth.Forest(ctx, from, tt.opts.N, tt.opts.CoverOptions)
			} else {
				var res *synth.CoverResult
				res, err = synth.Cover(ctx, from, tt.opts.CoverOptions)
				if res != nil {
					want = res.Inputs
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []streamed
			st, err := synth.GenerateSet(ctx, g, tt.opts, collect(&got))
			if err != nil {
				t.Fatal(err)
			}
			compareStreamed(t, tt.name, got, want, !tt.opts.NoChoices)
			cov, size := features.NewCoverage(g, tt.opts.K), 0
			for _, in := range want {
				size += len(in.Text)
				cov.Add(mustParse(t, g, in.Text)...)
			}
			if st.Inputs != len(want) || st.Bytes != size || st.Paths.Covered(tt.opts.K) != cov.Covered(tt.opts.K) {
				t.Errorf("stats %d inputs, %d bytes, %d k-paths; want %d, %d, %d", st.Inputs, st.Bytes, st.Paths.Covered(tt.opts.K),
					len(want), size, cov.Covered(tt.opts.K))
			}
		})
	}
	stop := errors.New("stop")
	st, err := synth.GenerateSet(ctx, g, synth.SetOptions{CoverOptions: synth.CoverOptions{K: 2}, Forest: true, N: 10}, func(synth.Input) error { return stop })
	if err != stop || st.Inputs != 0 || st.Paths != nil {
		t.Errorf("emit's error: %v, %+v", err, st)
	}
}
