package learn_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/internal/testctx"
	"github.com/arbor-fuzz/arbor/learn"
)

// TestTrainRecorded: the recipe makes the model that its steps make by
// hand, with the coverage file's subject and target and the trees'
// scores; recorded coverage with nothing to learn is refused with the
// error that says why.
func TestTrainRecorded(t *testing.T) {
	g := plantedGraph(t)
	rule := func(s string) bool { return strings.Contains(s, "=") }
	cov, data, _ := plantedCorpus(g, 200, 2, rule)
	cov.Target = &coverage.Target{ImportPath: "example.com/p", Func: "Run"}
	opts := learn.TrainOptions{Seed: 5, Options: learn.Options{MaxDepth: 4}}
	fo := features.Options{MaxK: 3}
	m, d, err := learn.TrainRecorded(context.Background(), g, cov, data, learn.RecordedConfig{
		Features: fo, Model: learn.ModelConfig{GrammarName: "planted", Train: opts}, Folds: 3})
	if err != nil {
		t.Fatal(err)
	}
	dh := learn.NewDataset(g, fo, cov, data)
	byHand, err := learn.TrainModel(context.Background(), g, dh, learn.ModelConfig{Subject: "planted", GrammarName: "planted", Train: opts, Target: cov.Target})
	if err != nil {
		t.Fatal(err)
	}
	if err := learn.ScoreCV(context.Background(), dh, byHand.Functions, opts, 3); err != nil {
		t.Fatal(err)
	}
	da, db := modelBytes(t, byHand), modelBytes(t, m)
	if !bytes.Equal(da, db) || d.Rows != dh.Rows || m.Functions[0].CV == nil {
		t.Errorf("TrainRecorded's model differs from its steps' (%d and %d bytes)", len(db), len(da))
	}

	cfg := learn.RecordedConfig{Features: fo, Model: learn.ModelConfig{Train: opts}}
	if _, _, err := learn.TrainRecorded(context.Background(), g, cov, nil, cfg); !errors.Is(err, learn.ErrNoRows) {
		t.Errorf("no inputs: %v", err)
	}
	garbled := map[string][]byte{}
	for i, r := range cov.Records {
		garbled[r.SHA256] = data[r.SHA256]
		if i%3 != 0 {
			garbled[r.SHA256] = []byte("((")
		}
	}
	if _, d, err := learn.TrainRecorded(context.Background(), g, cov, garbled, cfg); !errors.Is(err, learn.ErrUnparsed) || d.Skipped["does not parse"] <= d.Rows {
		t.Errorf("most inputs do not parse: %v", err)
	}
	always, _, _ := plantedCorpus(g, 50, 2, func(string) bool { return true })
	if m, _, err := learn.TrainRecorded(context.Background(), g, always, data, cfg); !errors.Is(err, learn.ErrNoTrainable) || len(m.Stats.AlwaysCovered) != 2 {
		t.Errorf("every function always: %v", err)
	}
	if _, _, err := learn.TrainRecorded(testctx.Countdown(0), g, cov, data, cfg); !errors.Is(err, context.Canceled) {
		t.Errorf("a done context: %v", err)
	}
}
