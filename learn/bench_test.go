package learn_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// BenchmarkFit fits one depth-5 tree on 5,000 rows × 2,000 binary features.
func BenchmarkFit(b *testing.B) {
	const rows, width = 5000, 2000
	r := rand.New(rand.NewPCG(1, 1))
	cols := make([]features.Bitset, width)
	for f := range cols {
		cols[f] = features.NewBitset(rows)
		density := 0.02 + 0.3*r.Float64()
		for i := 0; i < rows; i++ {
			if r.Float64() < density {
				cols[f].Set(i)
			}
		}
	}
	label, all := features.NewBitset(rows), features.NewBitset(rows)
	for i := 0; i < rows; i++ {
		all.Set(i)
		if cols[3].Has(i) && !cols[17].Has(i) || cols[42].Has(i) && cols[99].Has(i) || r.Float64() < 0.05 {
			label.Set(i)
		}
	}
	cands := make([]int, width)
	for i := range cands {
		cands[i] = i
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := learn.Fit(cols, label, all, cands, learn.Options{MaxDepth: 5})
		if t.Depth() != 5 {
			b.Fatalf("depth %d", t.Depth())
		}
	}
}

// jsonCorpus generates, records and loads n random json inputs.
func jsonCorpus(b *testing.B, n int) (*learn.Dataset, [][]byte) {
	g, err := datasets.Grammar("json")
	if err != nil {
		b.Fatal(err)
	}
	s, _ := datasets.LookupSubject("json")
	target, err := s.Target()
	if err != nil {
		b.Fatal(err)
	}
	bin, err := coverage.Build(context.Background(), target, coverage.DefaultCacheDir())
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
	data := map[string][]byte{}
	var files []string
	var inputs [][]byte
	for i := 0; i < n; i++ {
		in := []byte(gen.Generate().String())
		p := filepath.Join(dir, fmt.Sprintf("%05d", i))
		os.WriteFile(p, in, 0o644)
		files = append(files, p)
		inputs = append(inputs, in)
		sum := sha256.Sum256(in)
		data[hex.EncodeToString(sum[:])] = in
	}
	out := filepath.Join(dir, "cov.jsonl")
	if _, err := coverage.RecordInputs(context.Background(), bin, files, out, coverage.Options{Subject: "json"}); err != nil {
		b.Fatal(err)
	}
	cov, err := coverage.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	return learn.NewDataset(g, features.Options{MaxK: 4}, cov, data), inputs
}

// BenchmarkTrainJSON fits every trainable function of encoding/json on
// 10,000 recorded inputs (features k = 1..4).
func BenchmarkTrainJSON(b *testing.B) {
	d, _ := jsonCorpus(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fns, err := learn.Train(context.Background(), d, learn.TrainOptions{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(fns)), "functions")
		b.ReportMetric(float64(d.Rows), "rows")
		b.ReportMetric(float64(len(d.Columns)), "features")
	}
}

// BenchmarkPredictJSON predicts the coverage of 2,000 json inputs (parse,
// features, all trees) and, in the same run, runs encoding/json on them.
func BenchmarkPredictJSON(b *testing.B) {
	d, inputs := jsonCorpus(b, 2000)
	g, _ := datasets.Grammar("json")
	fns, err := learn.Train(context.Background(), d, learn.TrainOptions{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	p, err := learn.NewPredictor(learn.NewModel("json", "json", g, d, fns, learn.TrainOptions{Seed: 1}), g)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("arbor-predict", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, in := range inputs {
				if _, err := p.Predict(in); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N*len(inputs))/b.Elapsed().Seconds(), "inputs/s")
	})
	b.Run("encoding-json-unmarshal", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, in := range inputs {
				var v any
				json.Unmarshal(in, &v)
			}
		}
		b.ReportMetric(float64(b.N*len(inputs))/b.Elapsed().Seconds(), "inputs/s")
	})
}
