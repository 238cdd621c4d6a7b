package learn_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/internal/testctx"
	"github.com/arbor-fuzz/arbor/learn"
)

// TestModelData: a model keeps its training data through its file; the
// dataset it rebuilds equals the one it was trained on, never-covered
// functions included; rows added later refit a tree, and SaveData
// stores them.
func TestModelData(t *testing.T) {
	g := plantedGraph(t)
	cov, data, _ := plantedCorpus(g, 300, 1, func(s string) bool { return strings.Contains(s, "=") })
	cov.Functions = append(cov.Functions, "never")
	d := learn.NewDataset(g, features.Options{MaxK: 3}, cov, data)
	opts := learn.TrainOptions{Seed: 3, Options: learn.Options{MaxDepth: 4}}
	fns, err := learn.Train(context.Background(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := learn.NewModel("planted", "planted", g, d, fns, opts)
	path := filepath.Join(t.TempDir(), "m.json.gz")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := learn.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.TrainOptions(); got.MaxDepth != 4 || got.Seed != 3 {
		t.Errorf("train options %+v", got)
	}
	rd, err := back.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	if rd.Rows != d.Rows || len(rd.Columns) != len(d.Columns) {
		t.Fatalf("rebuilt %d rows and %d columns, want %d and %d", rd.Rows, len(rd.Columns), d.Rows, len(d.Columns))
	}
	for c := range d.Columns {
		if !slices.Equal(rd.Columns[c], d.Columns[c]) {
			t.Fatalf("column %d differs", c)
		}
	}
	// The model's one function, then the never-covered one.
	if want := []string{"F", "never"}; !slices.Equal(rd.Functions, want) {
		t.Fatalf("rebuilt functions %v, want %v", rd.Functions, want)
	}
	if !slices.Equal(rd.Labels[0], d.Labels[0]) || rd.Labels[1].Count() != 0 {
		t.Fatal("labels differ")
	}
	// Refitting on the same rows gives the same tree.
	if re := rd.Refit(0, back.TrainOptions()); !reflect.DeepEqual(re.Tree, back.Functions[0].Tree) {
		t.Error("refit on unchanged rows changed the tree")
	}
	// 130 new rows with feature 0, covering both functions.
	for range 130 {
		rd.AddRow([]int{0}, []int{0, 1})
	}
	last := rd.Rows - 1
	if rd.Rows != d.Rows+130 || !rd.Columns[0].Has(last) || !rd.Labels[1].Has(last) || rd.Columns[1].Has(last) {
		t.Fatalf("AddRow: %d rows, the last row's bits are wrong", rd.Rows)
	}
	re := rd.Refit(0, back.TrainOptions())
	if re.Positives != back.Functions[0].Positives+130 {
		t.Errorf("refit positives %d, want %d", re.Positives, back.Functions[0].Positives+130)
	}
	back.SaveData(rd, map[int]learn.FunctionModel{0: re})
	if back.Data.Rows != rd.Rows || back.Stats.Rows != rd.Rows || back.Functions[0].Positives != re.Positives {
		t.Errorf("SaveData: data rows %d, stats rows %d", back.Data.Rows, back.Stats.Rows)
	}
	// The never-covered function that new rows ran now has a tree.
	if len(back.Functions) != 2 || back.Functions[1].Name != "never" || len(back.Data.NeverCovered) != 0 {
		t.Errorf("after SaveData: %d functions, never covered %v", len(back.Functions), back.Data.NeverCovered)
	}
	if err := back.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := learn.LoadModel(path); err != nil {
		t.Errorf("a model with grown data does not load: %v", err)
	}
	// Data that does not fit the model is refused.
	back.Data.Columns = back.Data.Columns[1:]
	if err := back.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := learn.LoadModel(path); err == nil || !strings.Contains(err.Error(), "training data") {
		t.Errorf("mismatched data: %v", err)
	}
}

// TestNewDatasetStreams: the dataset NewDataset streams for k-paths, on
// every core and without keeping trees, equals the one built from
// ParseExamples' trees: the same rows in record order, features,
// columns, labels and left-out counts, with records that panicked, whose
// input is missing and whose input does not parse among them.
func TestNewDatasetStreams(t *testing.T) {
	g := plantedGraph(t)
	cov, data, _ := plantedCorpus(g, 500, 5, func(s string) bool { return strings.Contains(s, "=") })
	cov.Records[3].Outcome = coverage.Panic
	cov.Records[7].SHA256 = "missing"
	data[cov.Records[11].SHA256] = []byte("\x00 not an input of the grammar")
	for _, opts := range []features.Options{{MaxK: 1}, {MaxK: 3}, {MaxK: 3, Kinds: features.KPaths}} {
		got := learn.NewDataset(g, opts, cov, data)
		want := learn.ParseExamples(g, cov, data).Dataset(g, opts)
		if got.Rows != want.Rows || got.Vocab.Len() != want.Vocab.Len() || !reflect.DeepEqual(got.Skipped, want.Skipped) ||
			!slices.Equal(got.Inputs, want.Inputs) {
			t.Fatalf("%+v: %d rows, %d features, skipped %v; want %d, %d, %v", opts, got.Rows, got.Vocab.Len(), got.Skipped, want.Rows, want.Vocab.Len(), want.Skipped)
		}
		if want.Skipped["panic"] != 1 || want.Skipped["input not found"] != 1 || want.Skipped["does not parse"] != 1 {
			t.Errorf("the reference left out %v", want.Skipped)
		}
		if !reflect.DeepEqual(got.Columns, want.Columns) || !reflect.DeepEqual(got.Labels, want.Labels) {
			t.Errorf("%+v: columns or labels differ", opts)
		}
		for id := range got.Vocab.Len() {
			if !reflect.DeepEqual(got.Vocab.Feature(id), want.Vocab.Feature(id)) {
				t.Fatalf("%+v: feature %d is %+v, want %+v", opts, id, got.Vocab.Feature(id), want.Vocab.Feature(id))
			}
		}
	}
}

// TestDatasetCancelled (issue 29, item 9): a done context stops the
// parsing of recorded inputs, before the first input or part way, with
// an error that wraps the context's, the rows read so far, and no input
// counted as one that does not parse because its parse was stopped.
// Before, NewDataset and ParseExamples took no context and parsed every
// input (train ran to its end after Ctrl-C).
func TestDatasetCancelled(t *testing.T) {
	g := plantedGraph(t)
	cov, data, _ := plantedCorpus(g, 400, 9, func(s string) bool { return strings.Contains(s, "=") })
	n := len(cov.Records)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	build := map[string]func(context.Context) (rows int, skipped map[string]int, err error){
		"NewDatasetContext, k-paths": func(ctx context.Context) (int, map[string]int, error) {
			d, err := learn.NewDatasetContext(ctx, g, features.Options{MaxK: 3}, cov, data)
			return d.Rows, d.Skipped, err
		},
		"NewDatasetContext, all kinds": func(ctx context.Context) (int, map[string]int, error) {
			d, err := learn.NewDatasetContext(ctx, g, features.Options{MaxK: 3, Kinds: features.AllKinds}, cov, data)
			if err != nil && d.Vocab.Len() > 0 {
				// Issue 27: after the stop, reading the features of the
				// rows parsed so far took as long again (checking clauses).
				t.Errorf("stopped, yet the features of %d rows were read: %d", d.Rows, d.Vocab.Len())
			}
			return d.Rows, d.Skipped, err
		},
		"ParseExamplesContext": func(ctx context.Context) (int, map[string]int, error) {
			e, err := learn.ParseExamplesContext(ctx, g, cov, data)
			return len(e.Trees), e.Skipped, err
		},
	}
	for _, name := range slices.Sorted(maps.Keys(build)) {
		for _, tc := range []struct {
			ctx      func() context.Context
			ctxName  string
			someRows bool // the rows read before the stop are kept
		}{
			{func() context.Context { return cancelled }, "cancelled", false},
			{func() context.Context { return testctx.Countdown(60) }, "cancelled part way", true},
		} {
			t.Run(name+", "+tc.ctxName, func(t *testing.T) {
				rows, skipped, err := build[name](tc.ctx())
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v, want one wrapping context.Canceled", err)
				}
				if rows >= n || tc.someRows != (rows > 0) {
					t.Errorf("%d rows of %d records: not stopped, or not where it should", rows, n)
				}
				if len(skipped) != 0 {
					t.Errorf("skipped %v: a stopped parse is not an input's fault", skipped)
				}
			})
		}
	}
	// And a context that is not done reads every row.
	d, err := learn.NewDatasetContext(context.Background(), g, features.Options{MaxK: 3}, cov, data)
	if err != nil || d.Rows != n {
		t.Errorf("%d rows of %d, %v", d.Rows, n, err)
	}
}

// TestTrainModel: the recipe gives the model that Train and NewModel
// give by hand, byte for byte in its file, with the target recorded;
// a done context stops it with the context's error.
func TestTrainModel(t *testing.T) {
	g := plantedGraph(t)
	cov, data, _ := plantedCorpus(g, 200, 2, func(s string) bool { return strings.Contains(s, "=") })
	d := learn.NewDataset(g, features.Options{MaxK: 3}, cov, data)
	opts := learn.TrainOptions{Seed: 5, Options: learn.Options{MaxDepth: 4}}
	fns, err := learn.Train(context.Background(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	target := &coverage.Target{ImportPath: "example.com/p", Func: "Run"}
	byHand := learn.NewModel("planted", "planted", g, d, fns, opts)
	byHand.Target = target
	m, err := learn.TrainModel(context.Background(), g, d, learn.ModelConfig{Subject: "planted", GrammarName: "planted", Train: opts, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	da, db := modelBytes(t, byHand), modelBytes(t, m)
	if !bytes.Equal(da, db) || m.Target != target {
		t.Errorf("TrainModel's model differs from Train and NewModel's (%d and %d bytes)", len(db), len(da))
	}
	if _, err := learn.TrainModel(testctx.Countdown(0), g, d, learn.ModelConfig{Train: opts}); !errors.Is(err, context.Canceled) {
		t.Errorf("a done context: %v", err)
	}
}

// modelBytes is the model file m saves.
func modelBytes(t *testing.T, m *learn.Model) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
