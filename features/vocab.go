package features

import (
	"math/bits"
	"slices"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Vocabulary interns the k-paths (k = 1..MaxK) seen in a corpus to dense
// feature ids, in order of first appearance.
type Vocabulary struct {
	g     *grammar.Graph
	maxK  int
	ids   map[string]int
	paths []Path

	// Reused by Add and Features: a per-call stamp per feature id marks
	// the ids already collected, so a tree's ids are deduplicated in O(1).
	stamp []uint32
	gen   uint32
	key   []byte
}

// NewVocabulary returns an empty vocabulary of the k-paths of g for k = 1..maxK.
func NewVocabulary(g *grammar.Graph, maxK int) *Vocabulary {
	return &Vocabulary{g: g, maxK: maxK, ids: map[string]int{}}
}

// Graph is the grammar the vocabulary's paths belong to.
func (v *Vocabulary) Graph() *grammar.Graph { return v.g }

// MaxK is the longest k-path length interned.
func (v *Vocabulary) MaxK() int { return v.maxK }

// Len is the number of features.
func (v *Vocabulary) Len() int { return len(v.paths) }

// Path returns the k-path of feature id.
func (v *Vocabulary) Path(id int) Path { return v.paths[id] }

// ID returns the feature id of a path, if it is in the vocabulary.
func (v *Vocabulary) ID(p Path) (int, bool) {
	id, ok := v.ids[string(p.appendKey(nil))]
	return id, ok
}

// Intern adds one path (if new) and returns its id; a vocabulary read
// from a model is rebuilt this way, in the model's id order.
func (v *Vocabulary) Intern(p Path) int {
	key := string(p.appendKey(nil))
	if id, ok := v.ids[key]; ok {
		return id
	}
	id := len(v.paths)
	v.ids[key] = id
	v.paths = append(v.paths, append(Path(nil), p...))
	v.stamp = append(v.stamp, 0)
	return id
}

// Add interns the k-paths (k = 1..MaxK) of one input and returns its
// feature ids, sorted. An ambiguous input may be given all its trees: its
// features are their union. A Vocabulary is not safe for concurrent use.
func (v *Vocabulary) Add(trees ...*grammar.Tree) []int { return v.collect(trees, true) }

// Features returns the ids of an input's k-paths that are in the
// vocabulary, sorted, without adding new ones (as prediction needs).
func (v *Vocabulary) Features(trees ...*grammar.Tree) []int { return v.collect(trees, false) }

func (v *Vocabulary) collect(trees []*grammar.Tree, add bool) []int {
	v.gen++
	if v.gen == 0 { // wrapped: clear the stamps
		clear(v.stamp)
		v.gen = 1
	}
	var out []int
	for _, t := range trees {
		out = v.collectTree(t, add, out)
	}
	slices.Sort(out)
	return out
}

func (v *Vocabulary) collectTree(t *grammar.Tree, add bool, out []int) []int {
	walkPaths(t, v.maxK, func(stack []int) {
		for k := 1; k <= v.maxK && k <= len(stack); k++ {
			p := Path(stack[len(stack)-k:])
			v.key = p.appendKey(v.key[:0])
			id, ok := v.ids[string(v.key)]
			if !ok {
				if !add {
					continue
				}
				id = len(v.paths)
				v.ids[string(v.key)] = id
				v.paths = append(v.paths, append(Path(nil), p...))
				v.stamp = append(v.stamp, 0)
			}
			if v.stamp[id] != v.gen {
				v.stamp[id] = v.gen
				out = append(out, id)
			}
		}
	})
	return out
}

// Bitset is a set of non-negative integers, one bit each.
type Bitset []uint64

// NewBitset returns a bitset able to hold 0..n-1.
func NewBitset(n int) Bitset { return make(Bitset, (n+63)/64) }

// Set adds i.
func (b Bitset) Set(i int) { b[i>>6] |= 1 << (i & 63) }

// Has reports whether i is in the set.
func (b Bitset) Has(i int) bool { return i>>6 < len(b) && b[i>>6]&(1<<(i&63)) != 0 }

// Count is the number of elements.
func (b Bitset) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// AndCount is the number of elements of b that are also in c.
func (b Bitset) AndCount(c Bitset) int {
	n := 0
	for i := range min(len(b), len(c)) {
		n += bits.OnesCount64(b[i] & c[i])
	}
	return n
}

// Matrix is a corpus as binary features: one row per input, one column per
// feature. Rows are kept sparse (the ids present) while the corpus is
// read; Columns turns them into one bitset per feature over the rows,
// which is what a decision-tree learner counts with popcounts. Memory is
// rows×features/8 bytes for the columns (625 MB for 100,000 inputs ×
// 50,000 features) plus 4 bytes per present feature for the rows; no
// dense row layout is ever built.
type Matrix struct {
	offsets []int   // row r's ids are ids[offsets[r]:offsets[r+1]]
	ids     []int32 // feature ids of all rows
	width   int     // 1 + the largest feature id seen
	columns []Bitset
}

// NewMatrix returns an empty matrix.
func NewMatrix() *Matrix { return &Matrix{offsets: []int{0}} }

// AddRow appends a row with the given feature ids.
func (m *Matrix) AddRow(ids []int) {
	for _, id := range ids {
		m.ids = append(m.ids, int32(id))
		m.width = max(m.width, id+1)
	}
	m.offsets = append(m.offsets, len(m.ids))
	m.columns = nil
}

// Rows is the number of rows.
func (m *Matrix) Rows() int { return len(m.offsets) - 1 }

// Row returns the feature ids of row r.
func (m *Matrix) Row(r int) []int32 { return m.ids[m.offsets[r]:m.offsets[r+1]] }

// Columns returns one bitset over the rows per feature id 0..width-1,
// building them on first use (after AddRow, they are rebuilt).
func (m *Matrix) Columns(width int) []Bitset {
	width = max(width, m.width)
	if len(m.columns) == width {
		return m.columns
	}
	rows := m.Rows()
	words := (rows + 63) / 64
	backing := make([]uint64, width*words)
	cols := make([]Bitset, width)
	for f := range cols {
		cols[f] = backing[f*words : (f+1)*words : (f+1)*words]
	}
	for r := 0; r < rows; r++ {
		for _, id := range m.Row(r) {
			cols[id].Set(r)
		}
	}
	m.columns = cols
	return cols
}
