package learn_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
)

// TestHostileModels: model files whose trees are not trees, or whose
// features name nodes the grammar does not have, are refused with an
// error when loaded, instead of hanging prediction, overflowing the
// stack of explanations or panicking in the solver.
func TestHostileModels(t *testing.T) {
	g := plantedGraph(t)
	cov, data, _ := plantedCorpus(g, 200, 1, func(s string) bool { return strings.Contains(s, "=") })
	d := learn.NewDataset(g, features.Options{MaxK: 2}, cov, data)
	opts := learn.TrainOptions{Seed: 1}
	fns, err := learn.Train(t.Context(), d, opts)
	if err != nil || len(fns) == 0 || len(fns[0].Tree.Nodes) < 3 {
		t.Fatalf("train: %v, %d functions", err, len(fns))
	}
	good := learn.NewModel("planted", "planted", g, d, fns, opts)
	tests := []struct {
		name   string
		change func(m *learn.Model)
		want   string
	}{
		{"cycle to the root", func(m *learn.Model) { m.Functions[0].Tree.Nodes[0].Present = 0 }, "malformed"},
		{"a node twice", func(m *learn.Model) {
			n := &m.Functions[0].Tree.Nodes[0]
			n.Present = n.Absent
		}, "malformed"},
		{"negative counts", func(m *learn.Model) { m.Functions[0].Tree.Nodes[1].Pos = -3 }, "malformed"},
		{"feature below -1", func(m *learn.Model) { m.Functions[0].Tree.Nodes[1].Feature = -7 }, "malformed"},
		{"k-path node beyond the grammar", func(m *learn.Model) { m.Features[0].IDs = []int{0, 99999} }, "node 99999"},
		{"k-path node below zero", func(m *learn.Model) { m.Features[0].IDs = []int{-2} }, "node -2"},
		{"empty k-path", func(m *learn.Model) { m.Features[0].IDs = nil }, "no nodes"},
		// Fields that were accepted as they were (issue 29, item 11).
		{"k of -1", func(m *learn.Model) { m.K = -1 }, "k is -1; models are trained on k-paths of 1 to 16 symbols"},
		{"k of a million", func(m *learn.Model) { m.K = 1_000_000 }, "k is 1000000"},
		{"k-path longer than k", func(m *learn.Model) { m.Features[0].IDs = []int{0, 1, 2} }, "feature 0 is a k-path of 3 symbols, longer than the model's k of 2"},
		{"tree deeper than 1024", func(m *learn.Model) { m.Functions[0].Tree = chainTree(1100) }, "is 1100 deep; trees of at most 1024 levels are read"},
		{"refit depth -1", func(m *learn.Model) { m.Data.MaxDepth = -1 }, "tree depth -1"},
		{"refit depth a million", func(m *learn.Model) { m.Data.MaxDepth = 1_000_000 }, "tree depth 1000000"},
		{"negative rows in a leaf", func(m *learn.Model) { m.Data.MinSamplesLeaf = -4 }, "-4 rows at least in a leaf"},
		{"2^40 rows of no feature", func(m *learn.Model) {
			// Nothing stored pins the row count without features, and
			// Dataset made a bitset of it for every never-covered function.
			m.Features, m.Functions = nil, nil
			m.Data = &learn.ModelData{Rows: 1 << 40, NeverCovered: []string{"a", "b"}}
		}, "1099511627776 rows for 2 functions that no row ran"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m learn.Model
			b, _ := json.Marshal(good)
			json.Unmarshal(b, &m) // a deep copy
			tt.change(&m)
			path := filepath.Join(t.TempDir(), "m.json")
			b, _ = json.Marshal(&m)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				back, err := learn.LoadModel(path)
				if err == nil {
					_, err = learn.NewPredictor(back, nil)
				}
				if err == nil {
					_, err = back.Dataset()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("loading: %v, want an error with %q", err, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("loading hangs")
			}
		})
	}
}

// chainTree is a tree of depth levels over feature 0: every inner node's
// absent child a leaf, its present child the next level.
func chainTree(depth int) *learn.Tree {
	t := &learn.Tree{}
	for i := 0; i < depth; i++ {
		inner := len(t.Nodes)
		t.Nodes = append(t.Nodes, learn.Node{Feature: 0, Absent: inner + 1, Present: inner + 2, Neg: 1, Pos: 1},
			learn.Node{Feature: -1, Neg: 1})
	}
	t.Nodes = append(t.Nodes, learn.Node{Feature: -1, Pos: 1})
	return t
}
