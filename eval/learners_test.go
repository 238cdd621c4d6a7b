package eval

import (
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
