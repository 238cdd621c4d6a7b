package features

import (
	"cmp"
	"maps"
	"math/bits"
	"slices"
	"strings"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Options select the features a Vocabulary extracts.
type Options struct {
	MaxK  int   // k-paths of length 1..MaxK
	Kinds Kinds // the kinds; 0 means k-paths only
	// MaxValues caps the Value features of one terminal: its most
	// frequent texts, each seen in at least two training inputs; 0 means
	// DefaultMaxValues.
	MaxValues int
}

// DefaultMaxValues is the default cap on Value features per terminal.
const DefaultMaxValues = 16

func (o Options) kinds() Kinds {
	if o.Kinds == 0 {
		return KPaths
	}
	return o.Kinds
}

// Vocabulary interns the features of a corpus to dense ids. K-paths,
// siblings and classes are interned in order of first appearance (Add);
// values and thresholds need the whole training corpus (Fit).
type Vocabulary struct {
	g     *grammar.Graph
	opts  Options
	kinds Kinds
	ids   map[string]int
	feats []Feature
	// thresholds per (kind, symbol): the ids of its threshold features,
	// by ascending N.
	thresholds map[string][]threshold

	// Reused by Add and Features: a per-call stamp per feature id marks
	// the ids already collected, so a tree's ids are deduplicated in O(1).
	stamp []uint32
	gen   uint32
	key   []byte
	sc    scanner

	capped int // terminals that had more frequent values than MaxValues
}

// CappedTerminals is the number of regex terminals whose frequent values
// (seen in two or more training inputs) outnumbered Options.MaxValues in
// Fit, so that only the most frequent got a Value feature.
func (v *Vocabulary) CappedTerminals() int { return v.capped }

type threshold struct {
	n  float64
	id int
}

// NewVocabulary returns an empty vocabulary of the given features of g.
func NewVocabulary(g *grammar.Graph, o Options) *Vocabulary {
	return &Vocabulary{g: g, opts: o, kinds: o.kinds(), ids: map[string]int{}, thresholds: map[string][]threshold{}}
}

// Graph is the grammar the vocabulary's features belong to.
func (v *Vocabulary) Graph() *grammar.Graph { return v.g }

// MaxK is the longest k-path length interned.
func (v *Vocabulary) MaxK() int { return v.opts.MaxK }

// Kinds are the kinds of features extracted.
func (v *Vocabulary) Kinds() Kinds { return v.kinds }

// Len is the number of features.
func (v *Vocabulary) Len() int { return len(v.feats) }

// Feature returns feature id.
func (v *Vocabulary) Feature(id int) Feature { return v.feats[id] }

// ID returns the id of a feature, if it is in the vocabulary.
func (v *Vocabulary) ID(f Feature) (int, bool) {
	id, ok := v.ids[f.Key()]
	return id, ok
}

// Intern adds one feature (if new) and returns its id; a vocabulary read
// from a model is rebuilt this way, in the model's id order.
func (v *Vocabulary) Intern(f Feature) int {
	key := f.Key()
	if id, ok := v.ids[key]; ok {
		return id
	}
	id := len(v.feats)
	v.ids[key] = id
	f.Path = append(Path(nil), f.Path...)
	v.feats = append(v.feats, f)
	v.stamp = append(v.stamp, 0)
	if f.Kind == Length || f.Kind == Occurrences || f.Kind == Number {
		tk := thresholdKey(f.Kind, f.Symbol)
		ts := append(v.thresholds[tk], threshold{f.N, id})
		slices.SortFunc(ts, func(a, b threshold) int { return cmp.Compare(a.n, b.n) })
		v.thresholds[tk] = ts
	}
	return id
}

func thresholdKey(k Kind, symbol string) string { return string(rune('0'+k)) + symbol }

// Add interns the features of one input that are interned on first
// appearance (k-paths, siblings, classes) and returns all its feature
// ids, sorted. An ambiguous input may be given all its trees: its
// features are their union. A Vocabulary is not safe for concurrent use.
func (v *Vocabulary) Add(trees ...*grammar.Tree) []int { return v.collect(trees, true) }

// Features returns the ids of an input's features that are in the
// vocabulary, sorted, without adding new ones (as prediction needs).
func (v *Vocabulary) Features(trees ...*grammar.Tree) []int { return v.collect(trees, false) }

func (v *Vocabulary) collect(trees []*grammar.Tree, add bool) []int {
	v.gen++
	if v.gen == 0 { // wrapped: clear the stamps
		clear(v.stamp)
		v.gen = 1
	}
	var out []int
	if v.kinds == KPaths {
		// The common case, kept to one walk without text or sibling
		// bookkeeping.
		for _, t := range trees {
			out = v.collectPaths(t, add, out)
		}
		slices.Sort(out)
		return out
	}
	v.sc.scanInput(v, trees, func(f Feature) {
		v.key = f.appendKey(v.key[:0])
		id, ok := v.ids[string(v.key)]
		if !ok {
			// Values are chosen by Fit from the whole corpus.
			if !add || f.Kind == Value {
				return
			}
			id = v.Intern(f)
		}
		if v.stamp[id] != v.gen {
			v.stamp[id] = v.gen
			out = append(out, id)
		}
	}, func(path Path) {
		v.key = append(v.key[:0], byte(KPath))
		v.key = path.appendKey(v.key)
		id, ok := v.ids[string(v.key)]
		if !ok {
			if !add {
				return
			}
			id = v.Intern(Feature{Kind: KPath, Path: path})
		}
		if v.stamp[id] != v.gen {
			v.stamp[id] = v.gen
			out = append(out, id)
		}
	})
	for _, st := range v.sc.touched {
		for _, k := range [...]Kind{Length, Occurrences, Number} {
			if !v.kinds.Has(k) {
				continue
			}
			x, ok := st.value(k)
			if !ok {
				continue
			}
			for _, t := range v.thresholds[thresholdKey(k, st.symbol)] {
				if t.n > x {
					break
				}
				if v.stamp[t.id] != v.gen {
					v.stamp[t.id] = v.gen
					out = append(out, t.id)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func (v *Vocabulary) collectPaths(t *grammar.Tree, add bool, out []int) []int {
	walkPaths(t, v.opts.MaxK, func(stack []int) {
		for k := 1; k <= v.opts.MaxK && k <= len(stack); k++ {
			p := Path(stack[len(stack)-k:])
			v.key = append(v.key[:0], byte(KPath))
			v.key = p.appendKey(v.key)
			id, ok := v.ids[string(v.key)]
			if !ok {
				if !add {
					continue
				}
				id = v.Intern(Feature{Kind: KPath, Path: p})
			}
			if v.stamp[id] != v.gen {
				v.stamp[id] = v.gen
				out = append(out, id)
			}
		}
	})
	return out
}

// Fit interns the features of a training corpus (one entry per input,
// all its trees) and returns every input's feature ids. K-paths get the
// lowest ids, in order of first appearance, so that a tree learner that
// breaks ties by id prefers them; then siblings and classes; then each
// terminal's frequent values and each symbol's thresholds, taken from
// the quartiles (and 10th and 90th percentiles) of its per-input values.
func (v *Vocabulary) Fit(inputs [][]*grammar.Tree) [][]int {
	rows := make([][]int, len(inputs))
	if v.kinds == KPaths {
		for i, trees := range inputs {
			rows[i] = v.Add(trees...)
		}
		return rows
	}
	// Pass 1: k-paths first, then the other kinds interned on appearance.
	var later []Feature
	seen := map[string]bool{}
	type valueKey struct {
		node int
		text string
	}
	values := map[valueKey]int{}       // terminal's text -> inputs
	perInput := map[string][]float64{} // threshold key -> per-input values
	inputValues := map[valueKey]bool{}
	for _, trees := range inputs {
		clear(inputValues)
		v.sc.scanInput(v, trees, func(f Feature) {
			if f.Kind == Value {
				k := valueKey{f.Path[0], f.Text}
				if !inputValues[k] {
					inputValues[k] = true
					values[k]++
				}
				return
			}
			v.key = f.appendKey(v.key[:0])
			if !seen[string(v.key)] {
				seen[string(v.key)] = true
				f.Path = append(Path(nil), f.Path...)
				later = append(later, f)
			}
		}, func(path Path) {
			v.key = append(v.key[:0], byte(KPath))
			v.key = path.appendKey(v.key)
			if _, ok := v.ids[string(v.key)]; !ok {
				v.Intern(Feature{Kind: KPath, Path: path})
			}
		})
		for _, st := range v.sc.touched {
			for _, k := range [...]Kind{Length, Occurrences, Number} {
				if x, ok := st.value(k); ok && v.kinds.Has(k) {
					tk := thresholdKey(k, st.symbol)
					perInput[tk] = append(perInput[tk], x)
				}
			}
		}
	}
	for _, f := range later {
		v.Intern(f)
	}
	// Values: a terminal's most frequent texts.
	maxValues := v.opts.MaxValues
	if maxValues <= 0 {
		maxValues = DefaultMaxValues
	}
	type tc struct {
		text string
		n    int
	}
	byTerminal := map[int][]tc{}
	for k, n := range values {
		if n >= 2 {
			byTerminal[k.node] = append(byTerminal[k.node], tc{k.text, n})
		}
	}
	for _, node := range slices.Sorted(maps.Keys(byTerminal)) {
		list := byTerminal[node]
		slices.SortFunc(list, func(a, b tc) int {
			if a.n != b.n {
				return b.n - a.n
			}
			return strings.Compare(a.text, b.text)
		})
		if len(list) > maxValues {
			v.capped++
		}
		for _, x := range list[:min(len(list), maxValues)] {
			v.Intern(Feature{Kind: Value, Path: Path{node}, Text: x.text})
		}
	}
	// Thresholds: distinct quantiles above the minimum (at the minimum,
	// the feature is the symbol's presence, which a 1-path already is).
	for _, tk := range slices.Sorted(maps.Keys(perInput)) {
		xs := perInput[tk]
		slices.Sort(xs)
		kind, symbol := Kind(tk[0]-'0'), tk[1:]
		last := xs[0]
		for _, q := range [...]float64{0.1, 0.25, 0.5, 0.75, 0.9} {
			x := xs[min(len(xs)-1, int(q*float64(len(xs))))]
			if x > last {
				v.Intern(Feature{Kind: kind, Symbol: symbol, N: x})
				last = x
			}
		}
	}
	for i, trees := range inputs {
		rows[i] = v.Features(trees...)
	}
	return rows
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
