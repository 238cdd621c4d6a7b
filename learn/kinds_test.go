package learn_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

const plantedGrammar = `
List := Item ("," Item)* ;
Item := Name ("=" Num)? ;
Name := /[a-c][a-c-]{0,3}/ ;
Num := /[0-9]{1,3}/ ;
`

// plantedGraph builds plantedGrammar.
func plantedGraph(t testing.TB) *grammar.Graph {
	t.Helper()
	ast, err := grammar.Parse("planted.grammar", []byte(plantedGrammar))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// planted generates random inputs of plantedGrammar, labels them by a
// rule and returns the recorded-coverage stand-in and the inputs.
func planted(t *testing.T, g *grammar.Graph, n int, seed uint64, rule func(string) bool) (*coverage.File, map[string][]byte, []string) {
	t.Helper()
	return plantedCorpus(g, n, seed, rule)
}

func plantedCorpus(g *grammar.Graph, n int, seed uint64, rule func(string) bool) (*coverage.File, map[string][]byte, []string) {
	gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
	cov := &coverage.File{Header: coverage.NewHeader("planted", []string{"F", "always"})}
	data := map[string][]byte{}
	var inputs []string
	for i := 0; i < n; i++ {
		in := gen.Generate().String()
		sum := sha256.Sum256([]byte(in))
		h := hex.EncodeToString(sum[:])
		if _, dup := data[h]; dup {
			continue
		}
		data[h] = []byte(in)
		inputs = append(inputs, in)
		covered := []int{1}
		if rule(in) {
			covered = []int{0, 1}
		}
		cov.Records = append(cov.Records, coverage.Record{Input: fmt.Sprint(i), SHA256: h, Covered: covered, Outcome: coverage.OK})
	}
	return cov, data, inputs
}

// TestPlantedRules: a tree over k-paths plus one feature kind recovers a
// rule only that kind can state, on inputs it was not trained on, and
// its tree tests a feature of that kind.
func TestPlantedRules(t *testing.T) {
	g := plantedGraph(t)
	items := func(s string) []string { return strings.Split(s, ",") }
	tests := []struct {
		name string
		kind features.Kind
		rule func(string) bool
	}{
		// Some item has no value, while others may: presence of the
		// path Item→"=" cannot say it, a sibling "Name comes last" can.
		{"sibling: an item without value", features.Sibling, func(s string) bool {
			for _, it := range items(s) {
				if !strings.Contains(it, "=") {
					return true
				}
			}
			return false
		}},
		{"class: a name holds a dash", features.Class, func(s string) bool {
			return regexp.MustCompile(`(^|,)[a-c-]*-`).MatchString(s)
		}},
		{"count: at least three items", features.Occurrences, func(s string) bool { return len(items(s)) >= 3 }},
		{"value: some name is exactly a", features.Value, func(s string) bool {
			return regexp.MustCompile(`(^|,)a(=|,|$)`).MatchString(s)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cov, data, _ := planted(t, g, 3000, 1, tt.rule)
			accuracy := func(kinds features.Kinds) (float64, *learn.Model) {
				d := learn.NewDataset(g, features.Options{MaxK: 3, Kinds: kinds}, cov, data)
				opts := learn.TrainOptions{Seed: 1, NoBalance: true, Options: learn.Options{MaxDepth: 8}}
				fns, err := learn.Train(context.Background(), d, opts)
				if err != nil || len(fns) != 1 {
					t.Fatalf("train: %v, %d functions", err, len(fns))
				}
				m := learn.NewModel("planted", "planted", g, d, fns, opts)
				p, err := learn.NewPredictor(m, g)
				if err != nil {
					t.Fatal(err)
				}
				testCov, testData, _ := planted(t, g, 1000, 2, tt.rule)
				ok, n := 0, 0
				for _, r := range testCov.Records {
					preds, err := p.Predict(testData[r.SHA256])
					if err != nil {
						t.Fatal(err)
					}
					n++
					if preds[0].Covered == (len(r.Covered) == 2) {
						ok++
					}
				}
				return float64(ok) / float64(n), m
			}
			with, m := accuracy(features.KPaths.With(tt.kind))
			without, _ := accuracy(features.KPaths)
			if with < 0.99 {
				t.Errorf("with %s features: held-out accuracy %.3f, want ≥ 0.99 (k-paths alone: %.3f)", tt.kind, with, without)
			}
			uses := false
			for _, n := range m.Functions[0].Tree.Nodes {
				if !n.Leaf() && m.Features[n.Feature].Kind == tt.kind.String() {
					uses = true
				}
			}
			if !uses {
				t.Errorf("the tree tests no %s feature", tt.kind)
			}
			t.Logf("held-out accuracy: %.3f with %s features, %.3f with k-paths alone", with, tt.kind, without)
		})
	}
}
