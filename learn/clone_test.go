package learn_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
)

// TestPredictorClone: a clone predicts what its original does, with
// reasons when the original gives them.
func TestPredictorClone(t *testing.T) {
	g := plantedGraph(t)
	cov, data, inputs := plantedCorpus(g, 100, 3, func(s string) bool { return strings.Contains(s, "=") })
	m, _, err := learn.TrainRecorded(context.Background(), g, cov, data, learn.RecordedConfig{Features: features.Options{MaxK: 2}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := learn.NewPredictor(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Reasons = true
	q, err := p.Clone()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs[:10] {
		a, errA := p.Predict([]byte(in))
		b, errB := q.Predict([]byte(in))
		if errA != nil || errB != nil || !reflect.DeepEqual(a, b) || a[0].Why == nil {
			t.Errorf("%q: %v, %v; clone %v, %v", in, a, errA, b, errB)
		}
	}
}
