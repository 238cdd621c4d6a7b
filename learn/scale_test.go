package learn_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
)

// BenchmarkScaleTrain trains on a folder of n generated json inputs and
// a coverage file the way 'arbor train' does and reports the seconds of
// each stage (issue 17, item 5) beside the total: reading the coverage
// file, listing and reading the corpus, parsing and reading features off
// (the dataset), fitting the trees. Its functions are rules over the
// input's text (writeTrainCorpus), so that no subject need be built:
//
//	go test ./learn -run '^$' -bench ScaleTrain -benchtime 1x
func BenchmarkScaleTrain(b *testing.B) {
	g, err := datasets.Grammar("json")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			inputs, covPath := writeTrainCorpus(b, g, b.TempDir(), n)
			var spent [4]time.Duration
			for b.Loop() {
				start := time.Now()
				lap := func(stage int) {
					spent[stage] += time.Since(start)
					start = time.Now()
				}
				cov, err := coverage.ReadFile(covPath)
				if err != nil {
					b.Fatal(err)
				}
				lap(0)
				files, err := corpus.List(inputs)
				if err != nil {
					b.Fatal(err)
				}
				data, err := corpus.ReadAll(files)
				if err != nil {
					b.Fatal(err)
				}
				lap(1)
				d := learn.NewDataset(g, features.Options{MaxK: 4}, cov, data)
				lap(2)
				if _, err := learn.Train(context.Background(), d, learn.TrainOptions{Seed: 1}); err != nil {
					b.Fatal(err)
				}
				lap(3)
				b.ReportMetric(float64(d.Rows), "rows")
			}
			for i, name := range []string{"coverage", "corpus", "dataset", "fit"} {
				b.ReportMetric(spent[i].Seconds()/float64(b.N), name+"-s/op")
			}
		})
	}
}
