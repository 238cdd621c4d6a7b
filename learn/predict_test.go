package learn_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/testctx"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// fabricatedCorpus generates n distinct inputs of g and labels them for
// a dozen fabricated functions: covered when the input contains one of
// a few substrings taken from the corpus, when it is long, or by a hash
// of the input (noise, which makes deep trees over many features).
func fabricatedCorpus(g *grammar.Graph, n int, seed uint64) (*coverage.File, map[string][]byte, []string) {
	gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
	var inputs []string
	seen := map[string]bool{}
	for i := 0; i < 4*n && len(inputs) < n; i++ {
		in := gen.Generate().String()
		if !seen[in] {
			seen[in] = true
			inputs = append(inputs, in)
		}
	}
	// Substrings of the corpus, two and three bytes long.
	var subs []string
	for i := 0; len(subs) < 16 && i < len(inputs); i += 7 {
		in := inputs[i]
		if len(in) >= 4 {
			k := 2 + i%2
			at := (i * 13) % (len(in) - k + 1)
			subs = append(subs, in[at:at+k])
		}
	}
	names := []string{"long", "noise"}
	for i := range subs {
		names = append(names, fmt.Sprint("has", i))
	}
	cov := &coverage.File{Header: coverage.NewHeader("fabricated", names)}
	data := map[string][]byte{}
	for i, in := range inputs {
		sum := sha256.Sum256([]byte(in))
		var covered []int
		if len(in) > 20 {
			covered = append(covered, 0)
		}
		if sum[1]&1 == 0 {
			covered = append(covered, 1)
		}
		for j, s := range subs {
			if strings.Contains(in, s) != (j%3 == 0 && len(in)%2 == 0) {
				covered = append(covered, 2+j)
			}
		}
		h := hex.EncodeToString(sum[:])
		data[h] = []byte(in)
		cov.Records = append(cov.Records, coverage.Record{Input: fmt.Sprint(i), SHA256: h, Covered: covered, Outcome: coverage.OK})
	}
	return cov, data, inputs
}

// TestPredictRestricted: Predict and PredictTrees, which extract only the
// features the model's trees test, predict exactly what the trees give
// on all of the vocabulary's features (PredictFeatures of Features), with
// reasons and without (the compiled trees), on 2,000 inputs the model
// was not trained on, for k-paths alone and for every feature kind; so
// does AppendPredict into the previous input's predictions.
func TestPredictRestricted(t *testing.T) {
	names := []string{"json", "url", "csv", "xml", "planted"}
	if testing.Short() {
		names = []string{"json", "planted"}
	}
	for _, name := range names {
		for _, kinds := range []features.Kinds{features.KPaths, features.AllKinds} {
			t.Run(fmt.Sprintf("%s/%s", name, kinds), func(t *testing.T) {
				var g *grammar.Graph
				if name == "planted" {
					g = plantedGraph(t)
				} else {
					var err error
					if g, err = datasets.Grammar(name); err != nil {
						t.Fatal(err)
					}
				}
				cov, data, _ := fabricatedCorpus(g, 1500, 1)
				d := learn.NewDataset(g, features.Options{MaxK: 4, Kinds: kinds}, cov, data)
				opts := learn.TrainOptions{Seed: 1, Options: learn.Options{MaxDepth: 8}}
				fns, err := learn.Train(context.Background(), d, opts)
				if err != nil {
					t.Fatal(err)
				}
				m := learn.NewModel("fabricated", name, g, d, fns, opts)
				p, err := learn.NewPredictor(m, g)
				if err != nil {
					t.Fatal(err)
				}
				p.Reasons = true
				tested := 0
				for _, f := range fns {
					for _, n := range f.Tree.Nodes {
						if !n.Leaf() {
							tested++
						}
					}
				}
				_, _, test := fabricatedCorpus(g, 2000, 2)
				if len(test) < 2000 && name != "planted" {
					t.Fatalf("%d test inputs", len(test))
				}
				ambiguous := 0
				var buf []learn.Prediction
				for _, in := range test {
					// With reasons, Predict walks the model's trees;
					// without, the compiled ones.
					for _, reasons := range []bool{true, false} {
						p.Reasons = reasons
						got, err := p.Predict([]byte(in))
						ids, ferr := p.Features([]byte(in))
						if (err != nil) != (ferr != nil) {
							t.Fatalf("%q: Predict error %v, Features error %v", in, err, ferr)
						}
						if err != nil {
							continue
						}
						want := p.PredictFeatures(ids)
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("%q, reasons %v: Predict\n%+v\nall features\n%+v", in, reasons, got, want)
						}
						// Into the storage of the previous input's.
						if buf, err = p.AppendPredict(buf[:0], []byte(in)); err != nil || !reflect.DeepEqual(buf, want) {
							t.Fatalf("%q, reasons %v: AppendPredict\n%+v, %v\nall features\n%+v", in, reasons, buf, err, want)
						}
						trees, err := g.ParseAll([]byte(in), grammar.DefaultTreeLimit)
						if err != nil {
							t.Fatal(err)
						}
						if len(trees) > 1 && reasons {
							ambiguous++
						}
						if got := p.PredictTrees(trees...); !reflect.DeepEqual(got, want) {
							t.Fatalf("%q, reasons %v: PredictTrees\n%+v\nall features\n%+v", in, reasons, got, want)
						}
					}
				}
				t.Logf("%d functions, %d tests in the trees, %d features, %d inputs (%d ambiguous)", len(fns), tested, len(m.Features), len(test), ambiguous)
			})
		}
	}
}

// TestPredictCancelled (issue 29, item 9): a done context stops a
// prediction inside the parse of an input of an ambiguous grammar, whose
// parse would otherwise run until its budget is spent; Features and
// AppendPredict take the same path.
func TestPredictCancelled(t *testing.T) {
	ast, err := grammar.Parse("amb.grammar", []byte(`E := E "+" E | "1" ;`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	cov := &coverage.File{Header: coverage.NewHeader("amb", []string{"long"})}
	data := map[string][]byte{}
	for n := range 12 {
		in := "1" + strings.Repeat("+1", n)
		sum := sha256.Sum256([]byte(in))
		h := hex.EncodeToString(sum[:])
		data[h] = []byte(in)
		var covered []int
		if n > 5 {
			covered = []int{0}
		}
		cov.Records = append(cov.Records, coverage.Record{Input: in, SHA256: h, Covered: covered, Outcome: coverage.OK})
	}
	d := learn.NewDataset(g, features.Options{MaxK: 2}, cov, data)
	fns, err := learn.Train(context.Background(), d, learn.TrainOptions{Seed: 1})
	if err != nil || len(fns) != 1 {
		t.Fatalf("%d functions trained, %v", len(fns), err)
	}
	p, err := learn.NewPredictor(learn.NewModel("amb", "amb", g, d, fns, learn.TrainOptions{Seed: 1}), g)
	if err != nil {
		t.Fatal(err)
	}
	// 800 operators: past the default budget, some seconds of parsing
	// without one.
	long := []byte("1" + strings.Repeat("+1", 800))
	for name, predict := range map[string]func(context.Context) error{
		"PredictContext": func(ctx context.Context) error {
			_, err := p.PredictContext(ctx, long)
			return err
		},
		"AppendPredictContext": func(ctx context.Context) error {
			_, err := p.AppendPredictContext(ctx, nil, long)
			return err
		},
		"FeaturesContext": func(ctx context.Context) error {
			_, err := p.FeaturesContext(ctx, long)
			return err
		},
	} {
		// The parse looks at its context once before it starts and then
		// every few thousand items: a countdown of 3 stops it inside.
		err := predict(testctx.Countdown(3))
		var budget *grammar.BudgetError
		if !errors.Is(err, context.Canceled) || errors.As(err, &budget) || !strings.Contains(err.Error(), "parse stopped at byte") {
			t.Errorf("%s: %v, want the context's error", name, err)
		}
	}
	if preds, err := p.PredictContext(context.Background(), []byte("1+1")); err != nil || len(preds) != 1 {
		t.Errorf("a short input: %v, %v", preds, err)
	}
}
