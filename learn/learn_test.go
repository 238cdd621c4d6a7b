package learn

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
)

// synthetic builds rows × width random binary features (density p) and a
// label given by rule.
func synthetic(rows, width int, p float64, seed uint64, rule func(has func(int) bool) bool) (cols []features.Bitset, label, all features.Bitset) {
	r := rand.New(rand.NewPCG(seed, 1))
	cols = make([]features.Bitset, width)
	for f := range cols {
		cols[f] = features.NewBitset(rows)
	}
	label, all = features.NewBitset(rows), features.NewBitset(rows)
	for i := 0; i < rows; i++ {
		all.Set(i)
		for f := range cols {
			if r.Float64() < p {
				cols[f].Set(i)
			}
		}
		if rule(func(f int) bool { return cols[f].Has(i) }) {
			label.Set(i)
		}
	}
	return cols, label, all
}

func candidates(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = i
	}
	return c
}

func accuracy(t *Tree, cols []features.Bitset, label features.Bitset, rows int) float64 {
	ok := 0
	for i := 0; i < rows; i++ {
		if t.Nodes[t.Leaf(func(f int) bool { return cols[f].Has(i) })].Covered() == label.Has(i) {
			ok++
		}
	}
	return float64(ok) / float64(rows)
}

func TestFitLearnsRule(t *testing.T) {
	tests := []struct {
		name string
		rule func(has func(int) bool) bool
	}{
		{"single feature", func(has func(int) bool) bool { return has(7) }},
		{"and not", func(has func(int) bool) bool { return has(3) && !has(5) }},
		{"or", func(has func(int) bool) bool { return has(1) || has(2) }},
		{"three-way", func(has func(int) bool) bool { return has(4) && (has(8) || !has(9)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cols, label, all := synthetic(2000, 30, 0.3, 1, tt.rule)
			tree := Fit(cols, label, all, candidates(30), Options{})
			if acc := accuracy(tree, cols, label, 2000); acc != 1 {
				t.Errorf("training accuracy %.3f, want 1 (tree of %d nodes)", acc, len(tree.Nodes))
			}
			if d := tree.Depth(); d > 5 {
				t.Errorf("depth %d over the default 5", d)
			}
			root := tree.Nodes[0]
			if root.Pos != label.Count() || root.Neg != 2000-label.Count() || root.Gini != gini(root.Neg, root.Pos) {
				t.Errorf("root counts %+v", root)
			}
		})
	}
}

func TestFitOptions(t *testing.T) {
	rule := func(has func(int) bool) bool { return has(0) && has(1) && has(2) && has(3) }
	cols, label, all := synthetic(1000, 10, 0.6, 2, rule)
	if d := Fit(cols, label, all, candidates(10), Options{MaxDepth: 2}).Depth(); d > 2 {
		t.Errorf("MaxDepth 2 gave depth %d", d)
	}
	tree := Fit(cols, label, all, candidates(10), Options{MinSamplesLeaf: 300})
	for _, n := range tree.Nodes {
		if n.Leaf() && n.Pos+n.Neg < 300 {
			t.Errorf("leaf with %d rows under MinSamplesLeaf 300", n.Pos+n.Neg)
		}
	}
	if n := len(Fit(cols, label, all, candidates(10), Options{MinImpurityDec: 0.5}).Nodes); n != 1 {
		t.Errorf("a huge MinImpurityDec still split: %d nodes", n)
	}
	// Ties go to the lowest feature id: feature 9 duplicates feature 4.
	cols2, label2, all2 := synthetic(500, 10, 0.5, 3, func(has func(int) bool) bool { return has(4) })
	copy(cols2[9], cols2[4])
	if f := Fit(cols2, label2, all2, candidates(10), Options{}).Nodes[0].Feature; f != 4 {
		t.Errorf("root tests feature %d, want 4 (the lower of two equal splits)", f)
	}
	// A row mask restricts fitting to its rows.
	half := features.NewBitset(1000)
	for i := 0; i < 500; i++ {
		half.Set(i)
	}
	if root := Fit(cols, label, half, candidates(10), Options{}).Nodes[0]; root.Pos+root.Neg != 500 {
		t.Errorf("masked fit saw %d rows", root.Pos+root.Neg)
	}
}

// dataset builds a Dataset directly from synthetic columns and labels.
func dataset(cols []features.Bitset, labels []features.Bitset, rows int) *Dataset {
	names := make([]string, len(labels))
	for i := range names {
		names[i] = "f" + string(rune('a'+i))
	}
	return &Dataset{Columns: cols, Labels: labels, Functions: names, Rows: rows}
}

func TestTrain(t *testing.T) {
	cols, l1, _ := synthetic(3000, 40, 0.3, 4, func(has func(int) bool) bool { return has(2) && has(6) })
	_, l2, _ := synthetic(3000, 40, 0.3, 4, func(has func(int) bool) bool { return has(11) })
	always := features.NewBitset(3000)
	for i := 0; i < 3000; i++ {
		always.Set(i)
	}
	constant := features.NewBitset(3000)
	cols = append(cols, constant) // a feature no row has: never a candidate
	d := dataset(cols, []features.Bitset{l1, l2, always, features.NewBitset(3000)}, 3000)
	if got := d.Trainable(); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Fatalf("trainable %v, want [0 1] (always and never covered left out)", got)
	}
	if c := d.Candidates(); len(c) != 40 {
		t.Fatalf("%d candidates, want 40 (the constant feature dropped)", len(c))
	}
	// A column equal to another is offered once, under the lower id.
	dup := dataset(append(slices.Clone(cols), slices.Clone(cols[5])), d.Labels, 3000)
	if c := dup.Candidates(); len(c) != 40 || slices.Contains(c, 41) || !slices.Contains(c, 5) {
		t.Errorf("with a duplicate of column 5: candidates %v", c)
	}
	one, err := Train(t.Context(), d, TrainOptions{Seed: 9, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	four, _ := Train(t.Context(), d, TrainOptions{Seed: 9, Workers: 4})
	if !reflect.DeepEqual(one, four) {
		t.Errorf("results depend on the number of workers")
	}
	for _, fm := range one {
		if fm.TrainAccuracy < 0.999 {
			t.Errorf("%s: training accuracy %.3f", fm.Name, fm.TrainAccuracy)
		}
		// Balanced: the rows fitted on are twice the minority class.
		minority := min(fm.Positives, 3000-fm.Positives)
		if fm.Rows != 2*max(minority, 0)+max(0, BalanceFloor-minority)*boolInt(minority < BalanceFloor) {
			t.Errorf("%s: fitted on %d rows, minority %d", fm.Name, fm.Rows, minority)
		}
		// Node counts are over all training rows, not the balanced sample.
		if root := fm.Tree.Nodes[0]; root.Pos+root.Neg != 3000 {
			t.Errorf("%s: root counts %d rows", fm.Name, root.Pos+root.Neg)
		}
	}
	other, _ := Train(t.Context(), d, TrainOptions{Seed: 10})
	if reflect.DeepEqual(one[0].Rows, 0) || other[0].Positives != one[0].Positives {
		t.Errorf("seed changed the data")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestConstraintsAndModel(t *testing.T) {
	m := &Model{Arbor: "model", Version: ModelVersion, Features: []ModelFeature{
		{IDs: []int{1, 2, 3}, Symbols: "A B C", Pattern: "A B C"}, {IDs: []int{2, 3}, Symbols: "B C", Pattern: "B C"}, {IDs: []int{7}, Symbols: "Q", Pattern: "Q"},
	}}
	// root: f0? yes -> (f1? yes -> covered, no -> covered) ; no -> (f2? yes -> covered impure, no -> not)
	fn := FunctionModel{Name: "p.F", Tree: &Tree{Nodes: []Node{
		{Feature: 0, Absent: 1, Present: 4, Neg: 50, Pos: 50},
		{Feature: 2, Absent: 2, Present: 3, Neg: 40, Pos: 10},
		{Feature: -1, Neg: 38, Pos: 2, Gini: gini(38, 2)},
		{Feature: -1, Neg: 1, Pos: 9, Gini: gini(1, 9)},
		{Feature: 1, Absent: 5, Present: 6, Neg: 10, Pos: 40},
		{Feature: -1, Neg: 0, Pos: 5, Gini: 0}, // requires A B C without B C: infeasible
		{Feature: -1, Neg: 1, Pos: 35, Gini: gini(1, 35)},
	}}}
	m.Functions = []FunctionModel{fn}
	// Ranked by smoothed precision: 36/38, then 10/12, then 3/42.
	for _, tt := range []struct {
		maxGini float64
		want    []string
	}{
		{MaxConstraintGini, []string{"has A B C\nhas B C", "not A B C\nhas Q"}},
		{EveryLeaf, []string{"has A B C\nhas B C", "not A B C\nhas Q", "not A B C\nnot Q"}},
		{0.01, nil},
	} {
		var texts []string
		for _, c := range m.Constraints(&m.Functions[0], tt.maxGini) {
			texts = append(texts, m.Text(c, true))
		}
		if !reflect.DeepEqual(texts, tt.want) {
			t.Errorf("max gini %v: constraints %q, want %q", tt.maxGini, texts, tt.want)
		}
	}
	cons := m.Covering(&m.Functions[0])
	if len(cons) == 2 && m.Text(cons[0], false) != "∃ A B C\n∃ B C" {
		t.Errorf("text %q", m.Text(cons[0], false))
	}
	for _, name := range []string{"model.json", "model.json.gz"} {
		path := filepath.Join(t.TempDir(), name)
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Functions, m.Functions) || !reflect.DeepEqual(back.Features, m.Features) {
			t.Errorf("%s: model changed on the way through the file", name)
		}
	}
	if _, err := m.Function("F"); err == nil || !strings.Contains(err.Error(), "did you mean p.F?") {
		t.Errorf("Function(F): %v", err)
	}
}
