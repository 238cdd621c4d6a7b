package learn

import (
	"encoding/binary"
	"fmt"

	"github.com/arbor-fuzz/arbor/features"
)

// ModelData is the training data a model was fitted on, as it learned
// it: one bitset over the rows per feature and one per function. A model
// keeps it so that its trees can be refitted with rows learned later (the
// targeting loop runs the inputs it generates and learns from the
// answer) without the training corpus, which may be anywhere or gone.
// Bitsets are stored as little-endian bytes (base64 in JSON).
type ModelData struct {
	Rows    int      `json:"rows"`
	Columns [][]byte `json:"columns"` // per model feature
	Labels  [][]byte `json:"labels"`  // per model function, in Model.Functions order
	// NeverCovered are the recorded functions that no training row ran:
	// nothing to learn from, but something a subject that can be run may
	// still reach.
	NeverCovered []string `json:"never_covered,omitempty"`
	// How the trees were fitted, so that a refit fits the same way.
	MaxDepth       int  `json:"max_depth,omitempty"`
	MinSamplesLeaf int  `json:"min_samples_leaf,omitempty"`
	NoBalance      bool `json:"no_balance,omitempty"`
	BalancedLeaves bool `json:"balanced_leaves,omitempty"`
}

func bitsetBytes(b features.Bitset, rows int) []byte {
	out := make([]byte, 8*len(b))
	for i, w := range b {
		binary.LittleEndian.PutUint64(out[8*i:], w)
	}
	return out[:(rows+7)/8]
}

func bytesBitset(p []byte, rows int) (features.Bitset, error) {
	if len(p) != (rows+7)/8 {
		return nil, fmt.Errorf("a bitset of %d bytes for %d rows", len(p), rows)
	}
	b := features.NewBitset(rows)
	for i, c := range p {
		b[i/8] |= uint64(c) << (8 * (i % 8))
	}
	if rows%64 != 0 && len(b) > 0 && b[len(b)-1]>>(rows%64) != 0 {
		return nil, fmt.Errorf("a bitset with rows beyond %d", rows)
	}
	return b, nil
}

// newModelData keeps the columns of a dataset and the labels of the
// functions that have a tree.
func newModelData(d *Dataset, fns []FunctionModel, opts TrainOptions) *ModelData {
	md := &ModelData{Rows: d.Rows, MaxDepth: opts.MaxDepth, MinSamplesLeaf: opts.MinSamplesLeaf,
		NoBalance: opts.NoBalance, BalancedLeaves: opts.BalancedLeaves}
	for _, c := range d.Columns {
		md.Columns = append(md.Columns, bitsetBytes(c, d.Rows))
	}
	index := map[string]int{}
	for i, name := range d.Functions {
		index[name] = i
	}
	for _, fn := range fns {
		md.Labels = append(md.Labels, bitsetBytes(d.Labels[index[fn.Name]], d.Rows))
	}
	for i, l := range d.Labels {
		if l.Count() == 0 {
			md.NeverCovered = append(md.NeverCovered, d.Functions[i])
		}
	}
	return md
}

// check validates the data against the model it belongs to.
func (md *ModelData) check(m *Model) error {
	_, _, err := md.decode(m)
	return err
}

// decode turns the stored bitsets into columns and labels, checking
// their sizes against the model.
func (md *ModelData) decode(m *Model) (columns, labels []features.Bitset, err error) {
	if md.Rows < 0 {
		return nil, nil, fmt.Errorf("training data has %d rows", md.Rows)
	}
	if len(md.Columns) != len(m.Features) || len(md.Labels) != len(m.Functions) {
		return nil, nil, fmt.Errorf("training data has %d columns and %d labels for %d features and %d functions",
			len(md.Columns), len(md.Labels), len(m.Features), len(m.Functions))
	}
	read := func(stored [][]byte) ([]features.Bitset, error) {
		out := make([]features.Bitset, len(stored))
		for i, p := range stored {
			b, err := bytesBitset(p, md.Rows)
			if err != nil {
				return nil, fmt.Errorf("training data: %w", err)
			}
			out[i] = b
		}
		return out, nil
	}
	if columns, err = read(md.Columns); err != nil {
		return nil, nil, err
	}
	if labels, err = read(md.Labels); err != nil {
		return nil, nil, err
	}
	return columns, labels, nil
}

// TrainOptions are the options the model's trees were fitted with
// (defaults for a model without training data).
func (m *Model) TrainOptions() TrainOptions {
	o := TrainOptions{Seed: m.Stats.Seed}
	if md := m.Data; md != nil {
		o.MaxDepth, o.MinSamplesLeaf, o.NoBalance, o.BalancedLeaves = md.MaxDepth, md.MinSamplesLeaf, md.NoBalance, md.BalancedLeaves
	}
	return o
}

// Dataset rebuilds the training data the model keeps, with one function
// per model function (in the same order) and then one per never-covered
// function; rows learned later can be added to it (AddRow) and a
// function's tree refitted (Refit). The feature vocabulary is the
// model's. A model without training data (made before models kept it)
// gives an empty dataset.
func (m *Model) Dataset() (*Dataset, error) {
	d := &Dataset{Skipped: map[string]int{}}
	for _, fn := range m.Functions {
		d.Functions = append(d.Functions, fn.Name)
	}
	md := m.Data
	if md == nil {
		d.Columns = make([]features.Bitset, len(m.Features))
		d.Labels = make([]features.Bitset, len(m.Functions))
		return d, nil
	}
	var err error
	if d.Columns, d.Labels, err = md.decode(m); err != nil {
		return nil, err
	}
	d.Rows = md.Rows
	for _, name := range md.NeverCovered {
		d.Functions = append(d.Functions, name)
		d.Labels = append(d.Labels, features.NewBitset(d.Rows))
	}
	return d, nil
}

// AddRow appends a row: the ids of the features it has and of the
// functions it covered (ids out of range are ignored).
func (d *Dataset) AddRow(feats, covered []int) {
	r := d.Rows
	d.Rows++
	words := (d.Rows + 63) / 64
	grow := func(b features.Bitset) features.Bitset {
		for len(b) < words {
			b = append(b, 0)
		}
		return b
	}
	for i := range d.Columns {
		d.Columns[i] = grow(d.Columns[i])
	}
	for i := range d.Labels {
		d.Labels[i] = grow(d.Labels[i])
	}
	for _, f := range feats {
		if f >= 0 && f < len(d.Columns) {
			d.Columns[f].Set(r)
		}
	}
	for _, f := range covered {
		if f >= 0 && f < len(d.Labels) {
			d.Labels[f].Set(r)
		}
	}
	d.Inputs = append(d.Inputs, "")
}

// Refit fits function f's tree again on all rows, the way Train does
// (balanced by the same seeded sampling, counts taken over all rows).
// A function no row covered gets a single leaf.
func (d *Dataset) Refit(f int, opts TrainOptions) FunctionModel {
	return d.fitFunction(f, d.Candidates(), opts)
}

// SaveData replaces the model's training data with a dataset made from
// it (by Model.Dataset) that has grown since, and the trees of the
// functions with refitted ones.
func (m *Model) SaveData(d *Dataset, refitted map[int]FunctionModel) {
	opts := m.TrainOptions()
	for i, fn := range refitted {
		if i >= 0 && i < len(m.Functions) {
			fn.CV = nil // the score was of the old tree
			m.Functions[i] = fn
		}
	}
	// A never-covered function that later rows ran gets a tree of its own.
	for f := len(m.Functions); f < len(d.Functions); f++ {
		if c := d.Labels[f].Count(); c > 0 && c < d.Rows {
			m.Functions = append(m.Functions, d.Refit(f, opts))
		}
	}
	m.Data = newModelData(d, m.Functions, opts)
	m.Stats.Rows = d.Rows
	m.Stats.Trainable = len(m.Functions)
}
