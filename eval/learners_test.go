package eval

import (
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
)

func TestParseLearner(t *testing.T) {
	tests := []struct {
		in   string
		want Learner
		err  string
	}{
		{"kpath", Learner{Name: "kpath", Features: features.KPaths, Train: 1000}, ""},
		{"all/nobalance@3000", Learner{Name: "all/nobalance@3000", Features: features.AllKinds, NoBalance: true, Train: 3000}, ""},
		{"kpath,sibling/norecount/depth=8@10000", Learner{Name: "kpath,sibling/norecount/depth=8@10000",
			Features: features.KPaths.With(features.Sibling), NoRecount: true, MaxDepth: 8, Train: 10000}, ""},
		{"kpath,relation/bag=5@3000", Learner{Name: "kpath,relation/bag=5@3000", Features: features.KPaths.With(features.Relation), Bag: 5, Train: 3000}, ""},
		{"kpath/depth=6/bag=15", Learner{Name: "kpath/depth=6/bag=15", Features: features.KPaths, MaxDepth: 6, Bag: 15, Train: 1000}, ""},
		{"kpath/bag=0", Learner{}, "is not a number of bags"},
		{"kpath/bag=", Learner{}, "is not a number of bags"},
		{"kpath/bag=five", Learner{}, "is not a number of bags"},
		{"kpath/bags=5", Learner{}, `unknown option "bags=5"`},
		{"kpath@0", Learner{}, "is not a training set size"},
		{"kpath@3k", Learner{}, "is not a training set size"},
		{"kpath/depth=0", Learner{}, "is not a tree depth"},
		{"kpath/fast", Learner{}, `unknown option "fast"`},
		{"paths", Learner{}, `unknown feature kind "paths"`},
	}
	for _, tt := range tests {
		got, err := ParseLearner(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseLearner(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseLearner(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, l := range DefaultLearners() {
		if _, err := ParseLearner(l.Name); err != nil {
			t.Errorf("default learner %s: %v", l.Name, err)
		}
	}
}

// TestLearnersShareData: training does not change a dataset, so learners
// run one after another on one dataset score as each would on its own.
func TestLearnersShareData(t *testing.T) {
	g, examples := ensembleCorpus(t)
	ts := &testSet{functions: examples.Functions, trees: examples.Trees, covered: examples.Covered}
	cfg := LearnersConfig{E3Config: E3Config{Subject: "e", GrammarName: "e", Grammar: g, Seed: 2}}
	cfg.setDefaults()
	var ls []Learner
	for _, s := range []string{"kpath@500", "kpath/depth=2@500", "kpath/bag=3@500", "kpath/nobalance@500", "kpath@500"} {
		l, err := ParseLearner(s)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	shared, err := newLearnerData(t.Context(), cfg, ls[0], examples)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range ls {
		a, err := runLearner(t.Context(), cfg, l, shared, ts, true)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := newLearnerData(t.Context(), cfg, l, examples)
		if err != nil {
			t.Fatal(err)
		}
		b, err := runLearner(t.Context(), cfg, l, fresh, ts, true)
		if err != nil {
			t.Fatal(err)
		}
		if a.TrainInputs != 500 || !reflect.DeepEqual(a.PerFunction, b.PerFunction) || !reflect.DeepEqual(a.Blind, b.Blind) {
			t.Errorf("learner %d, %s: on a shared dataset %+v\non its own %+v", i, l.Name, a.PerFunction, b.PerFunction)
		}
		if (l.Bag > 0) != (a.Blind == nil) {
			t.Errorf("learner %s: blind %+v", l.Name, a.Blind)
		}
	}
}
