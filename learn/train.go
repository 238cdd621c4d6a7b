package learn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/parallel"
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

// Examples are parsed training inputs with the functions each covered:
// what datasets are built from. Parsing is the costly part of building a
// dataset, so a corpus parsed once can be learned from in several ways.
type Examples struct {
	Functions []string
	Trees     [][]*grammar.Tree // per input: its trees
	Covered   [][]int           // per input: the functions it covered
	Inputs    []string          // per input: its name
	Skipped   map[string]int    // inputs left out, by reason
}

// ParseExamples parses the inputs of recorded coverage: each record whose
// input data is found (by sha256) and parses is an example, with up to
// grammar.DefaultTreeLimit trees of an ambiguous input. Records of
// inputs that panicked or timed out are left out: their coverage is cut
// short, so their labels would be wrong. It is ParseExamplesContext with
// a context that is never done.
func ParseExamples(g *grammar.Graph, cov *coverage.File, data map[string][]byte) *Examples {
	e, _ := ParseExamplesContext(context.Background(), g, cov, data)
	return e
}

// ParseExamplesContext is ParseExamples stopped when ctx is done, between
// inputs and inside a parse (an ambiguous grammar's parse of one input
// can take seconds): it then returns the examples parsed so far and an
// error that wraps ctx.Err().
func ParseExamplesContext(ctx context.Context, g *grammar.Graph, cov *coverage.File, data map[string][]byte) (*Examples, error) {
	e := &Examples{Functions: cov.Functions, Skipped: map[string]int{}}
	opts := grammar.ParseOptions{Trees: grammar.DefaultTreeLimit}
	for i, r := range cov.Records {
		if err := ctx.Err(); err != nil {
			return e, stopped("parsing recorded inputs", i, len(cov.Records), err)
		}
		if r.Outcome == coverage.Panic || r.Outcome == coverage.Timeout {
			e.Skipped[string(r.Outcome)]++
			continue
		}
		in, ok := data[r.SHA256]
		if !ok {
			e.Skipped["input not found"]++
			continue
		}
		trees, err := g.ParseAllContext(ctx, in, opts)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				// Not the input's fault: it is neither skipped nor kept.
				return e, stopped("parsing recorded inputs", i, len(cov.Records), cerr)
			}
			e.Skipped["does not parse"]++
			continue
		}
		e.Trees = append(e.Trees, trees)
		e.Covered = append(e.Covered, r.Covered)
		e.Inputs = append(e.Inputs, r.Input)
	}
	return e, nil
}

// stopped is the error of work on n records stopped by err (a context's)
// before record i.
func stopped(what string, i, n int, err error) error {
	return fmt.Errorf("%s: stopped before record %d of %d: %w", what, i+1, n, err)
}

// Head returns the first n examples (all if there are fewer).
func (e *Examples) Head(n int) *Examples {
	n = min(n, len(e.Trees))
	return &Examples{Functions: e.Functions, Trees: e.Trees[:n], Covered: e.Covered[:n], Inputs: e.Inputs[:n], Skipped: e.Skipped}
}

// NewDataset turns recorded coverage into a dataset: the examples of
// ParseExamples, described as Dataset describes them. For k-paths alone
// (the default) it streams: inputs are parsed and their features read
// off on every core, rows are numbered in record order, and no tree is
// kept, so that memory holds the feature matrix and not the trees (75 to
// 160 bytes per input byte for JSON). Other kinds need every input's
// trees twice (Vocabulary.Fit), and keep them. It is NewDatasetContext
// with a context that is never done.
func NewDataset(g *grammar.Graph, opts features.Options, cov *coverage.File, data map[string][]byte) *Dataset {
	d, _ := NewDatasetContext(context.Background(), g, opts, cov, data)
	return d
}

// NewDatasetContext is NewDataset stopped when ctx is done, between
// inputs and inside a parse: it then returns the dataset of the rows
// read so far, which is not one to train on, and an error that wraps
// ctx.Err().
func NewDatasetContext(ctx context.Context, g *grammar.Graph, opts features.Options, cov *coverage.File, data map[string][]byte) (*Dataset, error) {
	if k := opts.Kinds.On(g); k != 0 && k != features.KPaths {
		e, err := ParseExamplesContext(ctx, g, cov, data)
		if err != nil {
			// The rows read so far, counted, without reading their
			// features: that can take as long again as the parse did
			// (checking clauses), after the user asked to stop.
			return &Dataset{Vocab: features.NewVocabulary(g, opts), Functions: e.Functions, Skipped: e.Skipped,
				Inputs: e.Inputs, Rows: len(e.Trees)}, err
		}
		return e.DatasetContext(ctx, g, opts)
	}
	d := &Dataset{Vocab: features.NewVocabulary(g, opts), Functions: cov.Functions, Skipped: map[string]int{}}
	// Columns are filled as rows come, sized for every record: a bit per
	// record and feature takes far less than a list of each row's
	// feature ids (a JSON input has hundreds of k-paths).
	var covered [][]int
	err := parseRecords(ctx, g, opts, cov, data, d.Vocab, d.Skipped, func(r *coverage.Record, ids []int) {
		for _, id := range ids {
			for id >= len(d.Columns) {
				d.Columns = append(d.Columns, features.NewBitset(len(cov.Records)))
			}
			d.Columns[id].Set(d.Rows)
		}
		d.Rows++
		covered = append(covered, r.Covered)
		d.Inputs = append(d.Inputs, r.Input)
	})
	words := len(features.NewBitset(d.Rows))
	for len(d.Columns) < d.Vocab.Len() {
		d.Columns = append(d.Columns, nil)
	}
	for f := range d.Columns {
		if d.Columns[f] == nil {
			d.Columns[f] = features.NewBitset(d.Rows)
		}
		d.Columns[f] = d.Columns[f][:words:words]
	}
	d.Labels = labels(len(d.Functions), d.Rows, covered)
	return d, err
}

// parseRecords parses the inputs of the records ParseExamples would take
// and reads their k-paths off, on every core, and calls use with the
// features (ids in vocab, which it adds to) of each that parses, in
// record order, from one goroutine; it counts those left out in skipped.
// When ctx is done it stops, between inputs and inside a parse, and
// returns an error that wraps ctx.Err(); use has then been called for the
// records before the one it stopped at.
//
// A vocabulary is not safe for concurrent use, so each worker reads its
// inputs' features into one of its own, and they are numbered in vocab
// in record order: a feature that a row is the first to have gets the
// next id, as if vocab had read every row in turn. The ids are the same
// because a worker's rows come to it in record order: the features new
// to vocab in a row are new to the row's worker too (a feature the
// worker met in an earlier row, vocab met there), and the worker
// numbered them in the order its walk met them, which is vocab's.
func parseRecords(ctx context.Context, g *grammar.Graph, opts features.Options, cov *coverage.File, data map[string][]byte, vocab *features.Vocabulary,
	skipped map[string]int, use func(*coverage.Record, []int)) error {
	type row struct {
		ids    []int              // the input's features, in its worker's vocabulary
		fresh  []features.Feature // the features new to that vocabulary, in id order
		worker int
		reason string // why the record is left out, if it is
		err    error  // the context's, if it stopped the parse
	}
	parseOpts := grammar.ParseOptions{Trees: grammar.DefaultTreeLimit}
	workers := runtime.GOMAXPROCS(0)
	local := make([]*features.Vocabulary, workers)
	ids := make([][]int, workers) // per worker: its vocabulary's ids in vocab
	// A worker reads an input's features before it parses the next, so
	// each can record its parses in a reused grammar.Parser, which the
	// features then replay instead of parsing the input a second time.
	parsers := make([]*grammar.Parser, workers)
	for w := range local {
		local[w] = features.NewVocabulary(g, opts)
		parsers[w] = g.NewParser()
	}
	emitted := 0
	err := parallel.Ordered(ctx, len(cov.Records), workers, func(w, i int) row {
		r := &cov.Records[i]
		if r.Outcome == coverage.Panic || r.Outcome == coverage.Timeout {
			return row{reason: string(r.Outcome)}
		}
		in, ok := data[r.SHA256]
		if !ok {
			return row{reason: "input not found"}
		}
		p, err := parsers[w].ParseLazyContext(ctx, in, parseOpts)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return row{err: cerr} // not the input's fault
			}
			return row{reason: "does not parse"}
		}
		v := local[w]
		known := v.Len()
		x := row{ids: v.AddParsed(p), worker: w}
		for id := known; id < v.Len(); id++ {
			x.fresh = append(x.fresh, v.Feature(id))
		}
		return x
	}, func(i int, x row) error {
		if x.err != nil {
			return x.err
		}
		emitted = i + 1
		if x.reason != "" {
			skipped[x.reason]++
			return nil
		}
		m := ids[x.worker]
		for _, f := range x.fresh {
			m = append(m, vocab.Intern(f))
		}
		ids[x.worker] = m
		for j, id := range x.ids {
			x.ids[j] = m[id]
		}
		use(&cov.Records[i], x.ids)
		return nil
	})
	if err != nil {
		return stopped("reading the features of recorded inputs", emitted, len(cov.Records), err)
	}
	return nil
}

// Dataset describes every example by the features opts selects (the
// union over an ambiguous input's trees) and labels it with the functions
// it covered.
func (e *Examples) Dataset(g *grammar.Graph, opts features.Options) *Dataset {
	d, _ := e.DatasetContext(context.Background(), g, opts)
	return d
}

// DatasetContext is Dataset, stopped when ctx is done (with ctx's error
// and a nil Dataset).
func (e *Examples) DatasetContext(ctx context.Context, g *grammar.Graph, opts features.Options) (*Dataset, error) {
	d := &Dataset{Vocab: features.NewVocabulary(g, opts), Functions: e.Functions, Skipped: e.Skipped, Inputs: e.Inputs}
	rows, err := d.Vocab.FitContext(ctx, e.Trees)
	if err != nil {
		return nil, err
	}
	m := features.NewMatrix()
	for _, ids := range rows {
		m.AddRow(ids)
	}
	d.Rows = m.Rows()
	d.Columns = m.Columns(d.Vocab.Len())
	d.Labels = labels(len(e.Functions), d.Rows, e.Covered)
	return d, nil
}

// labels are the label bitsets of functions: per function, the rows
// (examples) that covered it.
func labels(functions, rows int, covered [][]int) []features.Bitset {
	l := make([]features.Bitset, functions)
	for f := range l {
		l[f] = features.NewBitset(rows)
	}
	for r, ids := range covered {
		for _, f := range ids {
			l[f].Set(r)
		}
	}
	return l
}

// DefaultFeatures are the feature kinds arbor learns from unless told:
// k-paths and, for a grammar with where clauses, the clauses an input
// breaks and the rules before its first break (features.Clause). The
// kinds were compared on the whole generalization suite ('arbor eval
// learners', 3,000 grammar-random inputs that ignore the clauses, so
// that some break them; docs/features.md has the tables) by one rule: the
// highest mean of mid-rate precision and recall, among the choices that
// make no subject more than 0.01 worse than the earlier default (k-paths
// alone), in prediction or in targeting. Clause features raise the mean
// from 0.881 / 0.891 to 0.897 / 0.904 (cron 0.906 / 0.863 to 1.000 /
// 1.000, template precision 0.770 to 0.830) and cost no subject more
// than 0.001; on a grammar without clauses they are k-paths alone, and
// where every training input keeps the clauses (arbor's own corpora,
// with constraints on) they say only which rules occur (E4 with them is
// in docs/features.md). All
// relational kinds together score 0.897 / 0.907 but cost url 0.013 of
// recall, and the one-node kinds cost targeting reach, so they are one
// flag away (--features).
const DefaultFeatures = features.KPaths | 1<<features.Clause

// DefaultTrainInputs is how many random inputs arbor learns from when it
// makes its own training corpus (demo, eval E4 and E5): on the suite's
// learning curves, 1,000 to 3,000 inputs still raised mid-rate balanced
// accuracy and 3,000 to 10,000 hardly did. E3 keeps 1,000, the published
// protocol.
const DefaultTrainInputs = 3000

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
	TrainAccuracy float64 `json:"train_accuracy"` // of this tree, on all training inputs
	// CV is the function's cross-validated score, if training measured it
	// (ScoreCV): whether trees fitted as this one was predict inputs they
	// were not fitted on better than always guessing the majority class.
	// It scores trees refitted without one fold each, not this tree: with
	// balancing each is fitted on its own sample of the majority class,
	// so CV can be above TrainAccuracy when this tree's sample was an
	// unlucky one (docs/targeting.md).
	CV *CVScore `json:"cv,omitempty"`
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

// Candidates are the features that vary over the rows, each column
// once: a feature that is constant cannot split anything, and one whose
// rows are exactly those of a feature with a lower id (a value that only
// one k-path ever takes, a sibling pair that only occurs where a k-path
// does) would split the same way, and the lower id wins ties anyway.
func (d *Dataset) Candidates() []int {
	var out []int
	seen := map[uint64][]int{} // column hash -> candidates with it
next:
	for f, c := range d.Columns {
		if n := c.Count(); n == 0 || n == d.Rows {
			continue
		}
		h := columnHash(c)
		for _, g := range seen[h] {
			if slices.Equal(d.Columns[g], c) {
				continue next
			}
		}
		seen[h] = append(seen[h], f)
		out = append(out, f)
	}
	return out
}

// columnHash is FNV-1a over a bitset's words: columns are compared by
// hash first, so that finding duplicates allocates nothing per column
// (the targeting loop refits after every round, on a growing dataset).
func columnHash(b features.Bitset) uint64 {
	h := uint64(14695981039346656037)
	for _, w := range b {
		h ^= w
		h *= 1099511628211
	}
	return h
}

// Train fits one tree per trainable function, in parallel. Each
// function's rows are balanced by sampling its majority class down to its
// minority's size, seeded by (Seed, function index), so results do not
// depend on the number of workers.
func Train(ctx context.Context, d *Dataset, opts TrainOptions) ([]FunctionModel, error) {
	funcs := d.Trainable()
	cands := d.Candidates()
	out := make([]FunctionModel, len(funcs))
	err := parallel.ForEach(ctx, len(funcs), opts.Workers, func(i int) {
		out[i] = d.fitFunction(funcs[i], cands, opts)
	})
	return out, err
}

func (d *Dataset) fitFunction(f int, cands []int, opts TrainOptions) FunctionModel {
	t, rows := d.fitTree(f, cands, opts, nil)
	label := d.Labels[f]
	correct := 0
	if !opts.NoBalance && !opts.BalancedLeaves {
		// fitTree counted every node's rows over all rows (recount): a
		// leaf is right about the rows of the class it predicts, and a
		// second walk of every row down the tree is not needed.
		for i := range t.Nodes {
			switch n := &t.Nodes[i]; {
			case !n.Leaf():
			case n.Covered():
				correct += n.Pos
			default:
				correct += n.Neg
			}
		}
	} else {
		for i := 0; i < d.Rows; i++ {
			leaf := &t.Nodes[t.Leaf(func(c int) bool { return d.Columns[c].Has(i) })]
			if leaf.Covered() == label.Has(i) {
				correct++
			}
		}
	}
	return FunctionModel{Name: d.Functions[f], Tree: t, Rows: rows, Positives: label.Count(), Depth: t.Depth(),
		TrainAccuracy: float64(correct) / float64(max(1, d.Rows))}
}

// fitTree fits function f's tree on the rows in within (all rows if nil)
// and returns it with the number of rows it was fitted on.
func (d *Dataset) fitTree(f int, cands []int, opts TrainOptions, within features.Bitset) (*Tree, int) {
	label := d.Labels[f]
	in := func(i int) bool { return within == nil || within.Has(i) }
	n, pos := 0, 0
	for i := 0; i < d.Rows; i++ {
		if in(i) {
			n++
			if label.Has(i) {
				pos++
			}
		}
	}
	rows := features.NewBitset(d.Rows)
	if opts.NoBalance {
		for r := 0; r < d.Rows; r++ {
			if in(r) {
				rows.Set(r)
			}
		}
	} else {
		r := rand.New(rand.NewPCG(opts.Seed, uint64(f)+1))
		// The majority's rows, as int32 and allocated once: every function
		// of a million rows has a list of them (a bitset of more than 2^31
		// rows would take 256 MB a column).
		minorityPos := pos*2 <= n
		minority := pos
		if !minorityPos {
			minority = n - pos
		}
		majority := make([]int32, 0, n-minority)
		for i := 0; i < d.Rows; i++ {
			if !in(i) {
				continue
			}
			if label.Has(i) == minorityPos {
				rows.Set(i)
			} else {
				majority = append(majority, int32(i))
			}
		}
		// A seeded partial shuffle picks as many of the majority as the
		// minority has, but at least BalanceFloor: balancing one positive
		// against one negative would make any feature of either look
		// decisive.
		keep := max(minority, BalanceFloor)
		for k := 0; k < keep && k < len(majority); k++ {
			j := k + r.IntN(len(majority)-k)
			majority[k], majority[j] = majority[j], majority[k]
			rows.Set(int(majority[k]))
		}
	}
	t := Fit(d.Columns, label, rows, cands, opts.Options)
	if !opts.NoBalance && !opts.BalancedLeaves {
		d.recount(t, label, within)
	}
	return t, rows.Count()
}

// recount sets every node's class counts and gini from all rows in within
// (all rows if nil).
func (d *Dataset) recount(t *Tree, label features.Bitset, within features.Bitset) {
	for i := range t.Nodes {
		t.Nodes[i].Neg, t.Nodes[i].Pos = 0, 0
	}
	for r := 0; r < d.Rows; r++ {
		if within != nil && !within.Has(r) {
			continue
		}
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
