package eval

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
)

// ensembleCorpus is every input of a small grammar with five functions:
// one that k-paths tell at depth 2, one they cannot see (the parity of a
// number: they see its digits, not which is last), one that a single
// input runs, one that all run, and one of a tenth of the inputs, whose
// trees depend on the sample balancing draws.
func ensembleCorpus(t *testing.T) (*grammar.Graph, *learn.Examples) {
	t.Helper()
	ast, err := grammar.Parse("e.grammar", []byte(`S := A B Num ; A := "x" | "y" ; B := "p" | "q" | "r" ; Num := D D ; D := "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" ;`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	cov := &coverage.File{Header: coverage.NewHeader("e", []string{"xnotr", "even", "rare", "always", "y7"})}
	data := map[string][]byte{}
	for _, a := range "xy" {
		for _, b := range "pqr" {
			for n := range 100 {
				in := fmt.Sprintf("%c%c%02d", a, b, n)
				sum := sha256.Sum256([]byte(in))
				h := string(sum[:])
				data[h] = []byte(in)
				covered := []int{3}
				if a == 'x' && b != 'r' {
					covered = append(covered, 0)
				}
				if n%2 == 0 {
					covered = append(covered, 1)
				}
				if a == 'y' && strings.ContainsRune(in, '7') {
					covered = append(covered, 4)
				}
				if in == "yr77" {
					covered = append(covered, 2)
				}
				cov.Records = append(cov.Records, coverage.Record{Input: in, SHA256: h, Covered: covered, Outcome: coverage.OK})
			}
		}
	}
	return g, learn.ParseExamples(g, cov, data)
}

// TestEnsembleOfOne: one bag fitted on all rows is the single tree: it
// predicts what learn.Train's tree predicts on every input, and scores
// as assess scores that tree; with NoBalance, every bag is that tree, and
// so is their vote.
func TestEnsembleOfOne(t *testing.T) {
	g, examples := ensembleCorpus(t)
	d := examples.Dataset(g, features.Options{MaxK: 3})
	ts := &testSet{functions: examples.Functions, trees: examples.Trees, covered: examples.Covered}
	for _, tc := range []struct {
		bags int
		opts learn.TrainOptions
	}{
		{1, learn.TrainOptions{Seed: 3}},
		{1, learn.TrainOptions{Seed: 4, Options: learn.Options{MaxDepth: 2}}},
		{3, learn.TrainOptions{Seed: 3, NoBalance: true}},
	} {
		model, err := learn.TrainModel(t.Context(), g, d, learn.ModelConfig{Subject: "e", GrammarName: "e", Train: tc.opts})
		if err != nil {
			t.Fatal(err)
		}
		p, err := learn.NewPredictor(model, g)
		if err != nil {
			t.Fatal(err)
		}
		e, err := fitEnsemble(t.Context(), g, d, ensembleConfig{Subject: "e", GrammarName: "e", Train: tc.opts, Bags: tc.bags, NoBootstrap: true})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%d bags, %+v", tc.bags, tc.opts)
		if len(e.functions) != len(model.Functions) || len(e.functions) != 4 {
			t.Fatalf("%s: the ensemble predicts %d functions, the single tree %d; want 4", name, len(e.functions), len(model.Functions))
		}
		for b := range tc.bags {
			for i, fn := range model.Functions {
				if tree := e.model.Functions[b*len(model.Functions)+i].Tree; !reflect.DeepEqual(tree, fn.Tree) {
					t.Errorf("%s: bag %d's tree of %s is not the single tree:\n%+v\n%+v", name, b, fn.Name, tree, fn.Tree)
				}
			}
		}
		for i, trees := range examples.Trees {
			want, got := p.PredictTrees(trees...), e.PredictTrees(trees...)
			for j := range want {
				if got[j].Function != want[j].Function || got[j].Covered != want[j].Covered {
					t.Fatalf("%s: input %s, function %s: ensemble says %+v, single tree %+v", name, examples.Inputs[i], want[j].Function, got[j], want[j])
				}
			}
		}
		single, ens := &E3Result{}, &E3Result{}
		single.assess(model, p.PredictTrees, model.Functions, ts)
		ens.assessEnsemble(e, ts)
		if !reflect.DeepEqual(single.PerFunction, ens.PerFunction) || single.MidRate != ens.MidRate {
			t.Errorf("%s: scores differ:\nsingle   %+v\nensemble %+v", name, single.PerFunction, ens.PerFunction)
		}
	}
}

// TestEnsembleBootstrap: bags are fitted on bootstrap samples, the same
// for a seed; a bag whose sample misses the one input that runs a
// function votes "not covered" without a tree, and one whose sample has
// it has a tree.
func TestEnsembleBootstrap(t *testing.T) {
	g, examples := ensembleCorpus(t)
	d := examples.Dataset(g, features.Options{MaxK: 3})
	cfg := ensembleConfig{Subject: "e", GrammarName: "e", Train: learn.TrainOptions{Seed: 5}, Bags: 15}
	a, err := fitEnsemble(t.Context(), g, d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fitEnsemble(t.Context(), g, d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.model.Functions, b.model.Functions) || !reflect.DeepEqual(a.voters, b.voters) {
		t.Error("two ensembles of one seed differ")
	}
	rare := slices.Index(examples.Inputs, "yr77")
	fn := slices.IndexFunc(a.functions, func(f learn.FunctionModel) bool { return f.Name == "rare" })
	if rare < 0 || fn < 0 {
		t.Fatalf("input yr77 at %d, function rare at %d", rare, fn)
	}
	missed := 0
	for bag, v := range a.voters[fn] {
		rows := bootstrap(d.Rows, cfg.Train.Seed, bag)
		if len(rows) != d.Rows || !slices.IsSorted(rows) || rows[0] < 0 || rows[len(rows)-1] >= d.Rows {
			t.Fatalf("bag %d: a bootstrap sample of %d rows, from %d to %d", bag, len(rows), rows[0], rows[len(rows)-1])
		}
		if _, in := slices.BinarySearch(rows, rare); in != (v.tree >= 0) || v.tree < 0 && v.covered {
			t.Errorf("bag %d: yr77 in the sample: %v; voter %+v", bag, in, v)
		}
		if v.tree < 0 {
			missed++
		}
	}
	// A sample misses a given row with probability (1-1/n)^n, about 0.37.
	if missed == 0 || missed == cfg.Bags {
		t.Errorf("%d of %d bags miss yr77", missed, cfg.Bags)
	}
	if slices.Equal(bootstrap(d.Rows, 5, 0), bootstrap(d.Rows, 5, 1)) || slices.Equal(bootstrap(d.Rows, 5, 0), bootstrap(d.Rows, 6, 0)) {
		t.Error("bags or seeds share a bootstrap sample")
	}
	// Every bag predicts xnotr, which k-paths state, right on every
	// input, and so does the vote.
	for i, trees := range examples.Trees {
		want := slices.Contains(examples.Covered[i], 0)
		if got := a.PredictTrees(trees...)[0]; got.Function != "xnotr" || got.Covered != want || got.Purity != 1 {
			t.Errorf("input %s: %+v; want xnotr covered %v by all bags", examples.Inputs[i], got, want)
		}
	}
}

// TestResample: a resampled dataset's row i is the original's row
// rows[i], for every candidate column and label, and the columns that
// are not candidates are empty.
func TestResample(t *testing.T) {
	g, examples := ensembleCorpus(t)
	d := examples.Dataset(g, features.Options{MaxK: 3})
	cands := d.Candidates()
	rows := []int{0, 0, 5, 17, 17, 17, d.Rows - 1}
	r := resample(d, cands, rows)
	if r.Rows != len(rows) || len(r.Columns) != len(d.Columns) || len(r.Labels) != len(d.Labels) {
		t.Fatalf("resampled: %v", r)
	}
	for c := range d.Columns {
		isCand := slices.Contains(cands, c)
		for i, row := range rows {
			if want := isCand && d.Columns[c].Has(row); r.Columns[c].Has(i) != want {
				t.Errorf("column %d, row %d (was %d): %v, want %v", c, i, row, r.Columns[c].Has(i), want)
			}
		}
	}
	for f := range d.Labels {
		for i, row := range rows {
			if r.Labels[f].Has(i) != d.Labels[f].Has(row) {
				t.Errorf("label %d, row %d (was %d) differs", f, i, row)
			}
		}
	}
	for _, c := range r.Candidates() {
		if !slices.Contains(cands, c) {
			t.Errorf("column %d is a candidate of the sample and not of all rows", c)
		}
	}
}
