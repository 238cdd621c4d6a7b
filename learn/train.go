package learn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Dataset is a training corpus as binary features and labels: one row per
// input, one column bitset per feature, one label bitset per function.
type Dataset struct {
	Vocab     *features.Vocabulary
	Columns   []features.Bitset // per feature: the rows that have it
	Labels    []features.Bitset // per function: the rows that covered it
	Functions []string
	Inputs    []string // per row: the input's name
	Rows      int
	Skipped   map[string]int // inputs left out, by reason
}

// NewDataset turns recorded coverage into a dataset: each record whose
// input data is found (by sha256) and parses becomes a row; its features
// are the k-paths (k = 1..maxK) of its trees (the union over up to
// grammar.DefaultTreeLimit trees of an ambiguous input). Records of
// inputs that panicked or timed out are left out: their coverage is cut
// short, so their labels would be wrong.
func NewDataset(g *grammar.Graph, maxK int, cov *coverage.File, data map[string][]byte) *Dataset {
	d := &Dataset{Vocab: features.NewVocabulary(g, maxK), Functions: cov.Functions, Skipped: map[string]int{}}
	m := features.NewMatrix()
	var covered [][]int
	for _, r := range cov.Records {
		if r.Outcome == coverage.Panic || r.Outcome == coverage.Timeout {
			d.Skipped[string(r.Outcome)]++
			continue
		}
		in, ok := data[r.SHA256]
		if !ok {
			d.Skipped["input not found"]++
			continue
		}
		trees, err := g.ParseAll(in, grammar.DefaultTreeLimit)
		if err != nil {
			d.Skipped["does not parse"]++
			continue
		}
		m.AddRow(d.Vocab.Add(trees...))
		covered = append(covered, r.Covered)
		d.Inputs = append(d.Inputs, r.Input)
	}
	d.Rows = m.Rows()
	d.Columns = m.Columns(d.Vocab.Len())
	d.Labels = make([]features.Bitset, len(cov.Functions))
	for f := range d.Labels {
		d.Labels[f] = features.NewBitset(d.Rows)
	}
	for r, ids := range covered {
		for _, f := range ids {
			d.Labels[f].Set(r)
		}
	}
	return d
}

// TrainOptions configure per-function training.
type TrainOptions struct {
	Options
	Seed      uint64
	Workers   int  // 0 means one per core
	NoBalance bool // fit on all rows instead of balancing the classes
	// BalancedLeaves keeps the class counts of the balanced sample in the
	// nodes. By default the tree's structure is fitted on the balanced
	// sample (so that splits find the minority's pattern) and then every
	// node's counts are taken over all training rows, so that a leaf
	// predicts the class that really dominates there: with balanced
	// counts, leaves over-predict the minority (in E3 on json, url and
	// gjson, precision drops by 0.02 to 0.08).
	BalancedLeaves bool
}

// BalanceFloor is the fewest majority-class rows balancing keeps.
const BalanceFloor = 50

// FunctionModel is one function's tree and training statistics.
type FunctionModel struct {
	Name          string  `json:"name"`
	Tree          *Tree   `json:"tree"`
	Rows          int     `json:"rows"`      // rows the tree was fitted on (after balancing)
	Positives     int     `json:"positives"` // training inputs that covered the function
	Depth         int     `json:"depth"`
	TrainAccuracy float64 `json:"train_accuracy"` // on all training inputs
}

// Trainable reports the functions covered by some but not all rows.
func (d *Dataset) Trainable() []int {
	var out []int
	for f, l := range d.Labels {
		if c := l.Count(); c > 0 && c < d.Rows {
			out = append(out, f)
		}
	}
	return out
}

// Candidates are the features that vary over the rows; the others
// cannot split anything.
func (d *Dataset) Candidates() []int {
	var out []int
	for f, c := range d.Columns {
		if n := c.Count(); n > 0 && n < d.Rows {
			out = append(out, f)
		}
	}
	return out
}

// Train fits one tree per trainable function, in parallel. Each
// function's rows are balanced by sampling its majority class down to its
// minority's size, seeded by (Seed, function index), so results do not
// depend on the number of workers.
func Train(ctx context.Context, d *Dataset, opts TrainOptions) ([]FunctionModel, error) {
	funcs := d.Trainable()
	cands := d.Candidates()
	out := make([]FunctionModel, len(funcs))
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = d.fitFunction(funcs[i], cands, opts)
			}
		}()
	}
	var err error
	for i := range funcs {
		if err = ctx.Err(); err != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out, err
}

func (d *Dataset) fitFunction(f int, cands []int, opts TrainOptions) FunctionModel {
	label := d.Labels[f]
	rows := features.NewBitset(d.Rows)
	pos := label.Count()
	if opts.NoBalance {
		for r := 0; r < d.Rows; r++ {
			rows.Set(r)
		}
	} else {
		r := rand.New(rand.NewPCG(opts.Seed, uint64(f)+1))
		var minority, majority []int
		for i := 0; i < d.Rows; i++ {
			if label.Has(i) == (pos*2 <= d.Rows) {
				minority = append(minority, i)
			} else {
				majority = append(majority, i)
			}
		}
		for _, i := range minority {
			rows.Set(i)
		}
		// A seeded partial shuffle picks len(minority) of the majority, but
		// at least BalanceFloor: balancing one positive against one
		// negative would make any feature of either look decisive.
		keep := max(len(minority), BalanceFloor)
		for k := 0; k < keep && k < len(majority); k++ {
			j := k + r.IntN(len(majority)-k)
			majority[k], majority[j] = majority[j], majority[k]
			rows.Set(majority[k])
		}
	}
	t := Fit(d.Columns, label, rows, cands, opts.Options)
	if !opts.NoBalance && !opts.BalancedLeaves {
		d.recount(t, label)
	}
	correct := 0
	for i := 0; i < d.Rows; i++ {
		leaf := &t.Nodes[t.Leaf(func(c int) bool { return d.Columns[c].Has(i) })]
		if leaf.Covered() == label.Has(i) {
			correct++
		}
	}
	return FunctionModel{Name: d.Functions[f], Tree: t, Rows: rows.Count(), Positives: pos, Depth: t.Depth(),
		TrainAccuracy: float64(correct) / float64(max(1, d.Rows))}
}

// recount sets every node's class counts and gini from all rows.
func (d *Dataset) recount(t *Tree, label features.Bitset) {
	for i := range t.Nodes {
		t.Nodes[i].Neg, t.Nodes[i].Pos = 0, 0
	}
	for r := 0; r < d.Rows; r++ {
		i := 0
		for {
			n := &t.Nodes[i]
			if label.Has(r) {
				n.Pos++
			} else {
				n.Neg++
			}
			if n.Leaf() {
				break
			}
			if d.Columns[n.Feature].Has(r) {
				i = n.Present
			} else {
				i = n.Absent
			}
		}
	}
	for i := range t.Nodes {
		t.Nodes[i].Gini = gini(t.Nodes[i].Neg, t.Nodes[i].Pos)
	}
}

func (d *Dataset) String() string {
	return fmt.Sprintf("%d rows, %d features, %d functions", d.Rows, len(d.Columns), len(d.Functions))
}
