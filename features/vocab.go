package features

import (
	"cmp"
	"context"
	"maps"
	"math/bits"
	"slices"
	"strings"

	"github.com/arbor-fuzz/arbor/constraint"
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
	// Typed indexes of the kinds read most often, whose lookups need no
	// key to be built: siblings by their pair, values and classes by
	// terminal and text.
	siblings map[uint64]int
	texts    map[textKey]int
	// K-paths are found through a trie of the interned paths read from
	// their last node up: trie maps (trie node, graph node id) to the
	// child trie node, and pathID gives a trie node's feature id (-1 if
	// the path it spells is not interned). The k-paths ending at a tree
	// node are then found with up to MaxK integer-keyed lookups, stopping
	// at the first path no interned path extends.
	trie   map[uint64]int32
	pathID []int32
	feats  []Feature
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

	// matchPairs: per rule (symbol index), the rules its "none" Match
	// features are about; checker evaluates the grammar's clauses for
	// Clause features (nil without clauses).
	matchPairs  map[int32][]matchPair
	checker     *constraint.Checker
	clauseTexts map[*constraint.Clause]string
}

// CappedTerminals is the number of regex terminals whose frequent values
// (seen in two or more training inputs) outnumbered Options.MaxValues in
// Fit, so that only the most frequent got a Value feature.
func (v *Vocabulary) CappedTerminals() int { return v.capped }

type textKey struct {
	kind     Kind
	node     int
	at, text string
}

type threshold struct {
	n  float64
	id int
}

// NewVocabulary returns an empty vocabulary of the given features of g.
//
// Clause features need the grammar's where clauses: a grammar whose
// clauses do not compile (which grammar.Build's callers have refused
// already) has none.
func NewVocabulary(g *grammar.Graph, o Options) *Vocabulary {
	v := &Vocabulary{g: g, opts: o, kinds: o.kinds().On(g), ids: map[string]int{}, thresholds: map[string][]threshold{},
		siblings: map[uint64]int{}, texts: map[textKey]int{}, trie: map[uint64]int32{}, pathID: []int32{-1}}
	if v.kinds.Has(Clause) {
		if set, err := constraint.Compile(g); err == nil && set.Len() > 0 {
			v.checker = constraint.NewChecker(set)
		}
	}
	return v
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
	switch {
	case f.Kind == KPath && len(f.Path) > 0:
		node := int32(0)
		for k := 1; k <= len(f.Path); k++ {
			node = v.trieStep(node, f.Path[len(f.Path)-k], true)
		}
		v.pathID[node] = int32(id)
	case f.Kind == Sibling && len(f.Path) == 2:
		v.siblings[pairKey(f.Path[0], f.Path[1])] = id
	case (f.Kind == Value || f.Kind == Class) && len(f.Path) == 1:
		v.texts[textKey{f.Kind, f.Path[0], f.At, f.Text}] = id
	}
	if f.Kind == Match && f.At != MatchSome {
		v.addMatchPair(f.Symbol, f.Text)
	}
	if f.Kind == Length || f.Kind == Occurrences || f.Kind == Number {
		tk := thresholdKey(f.Kind, f.Symbol)
		ts := append(v.thresholds[tk], threshold{f.N, id})
		slices.SortFunc(ts, func(a, b threshold) int { return cmp.Compare(a.n, b.n) })
		v.thresholds[tk] = ts
		v.sc.numbers = nil
	}
	return id
}

func thresholdKey(k Kind, symbol string) string { return string(rune('0'+k)) + symbol }

// Add interns the features of one input that are interned on first
// appearance (k-paths, siblings, classes) and returns all its feature
// ids, sorted. An ambiguous input may be given all its trees: its
// features are their union. A Vocabulary is not safe for concurrent use.
func (v *Vocabulary) Add(trees ...*grammar.Tree) []int {
	return v.collect(nil, forest{trees: trees}, true)
}

// AddParsed is Add for a parsed input, whose features are read off the
// parse without building a tree where it can.
func (v *Vocabulary) AddParsed(p *grammar.Parsed) []int {
	return v.collect(nil, forest{parsed: p}, true)
}

// Features returns the ids of an input's features that are in the
// vocabulary, sorted, without adding new ones (as prediction needs).
func (v *Vocabulary) Features(trees ...*grammar.Tree) []int {
	return v.collect(nil, forest{trees: trees}, false)
}

// ParsedFeatures is Features for a parsed input, whose features are read
// off the parse without building a tree where it can: the memory it
// takes is then that of the input and its nesting, whatever its size.
func (v *Vocabulary) ParsedFeatures(p *grammar.Parsed) []int {
	return v.collect(nil, forest{parsed: p}, false)
}

// collect appends the ids of the features of f to out (empty).
func (v *Vocabulary) collect(out []int, f forest, add bool) []int {
	v.gen++
	if v.gen == 0 { // wrapped: clear the stamps
		clear(v.stamp)
		v.gen = 1
	}
	if v.kinds == KPaths {
		// The common case, kept to one walk without text or sibling
		// bookkeeping.
		w := &pathWalker{f: func(stack []int) {
			v.stackPaths(stack, add, func(id int) { out = v.mark(id, out) })
		}}
		for i := range f.len() {
			w.stack = w.stack[:0]
			f.visit(i, w)
		}
		slices.Sort(out)
		return out
	}
	if v.kinds.Has(Number) {
		v.sc.init(v.g)
		if v.sc.numbers == nil {
			v.sc.numbers = make([]bool, len(v.sc.labels))
			for i, label := range v.sc.labels {
				v.sc.numbers[i] = len(v.thresholds[thresholdKey(Number, label)]) > 0
			}
		}
	}
	collect := func(id int) { out = v.mark(id, out) }
	v.sc.scanInput(v, f, func(f Feature) {
		id, ok := v.lookup(f)
		if !ok {
			// Values and matches are chosen by Fit from the whole corpus.
			if !add || f.Kind == Value || f.Kind == Match {
				return
			}
			id = v.Intern(f)
		}
		collect(id)
	}, func(stack []int) {
		v.stackPaths(stack, add, collect)
	})
	if v.kinds.Has(Clause) {
		v.clauses(f, func(f Feature) {
			id, ok := v.lookup(f)
			if !ok {
				if !add {
					return
				}
				id = v.Intern(f)
			}
			collect(id)
		})
	}
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
				out = v.mark(t.id, out)
			}
		}
	}
	slices.Sort(out)
	return out
}

// mark appends id to out unless this call has collected it already.
func (v *Vocabulary) mark(id int, out []int) []int {
	if v.stamp[id] != v.gen {
		v.stamp[id] = v.gen
		out = append(out, id)
	}
	return out
}

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// trieStep returns the trie node below node for graph node id, creating
// it if add; -1 if there is none.
func (v *Vocabulary) trieStep(node int32, id int, add bool) int32 {
	key := uint64(uint32(node))<<32 | uint64(uint32(id))
	next, ok := v.trie[key]
	if !ok {
		if !add {
			return -1
		}
		next = int32(len(v.pathID))
		v.trie[key] = next
		v.pathID = append(v.pathID, -1)
	}
	return next
}

// stackPaths calls f with the id of every k-path (k = 1..MaxK) that ends
// at the top of stack and is in the vocabulary, interning the missing
// ones if add.
func (v *Vocabulary) stackPaths(stack []int, add bool, f func(id int)) {
	node := int32(0)
	for k := 1; k <= v.opts.MaxK && k <= len(stack); k++ {
		if node = v.trieStep(node, stack[len(stack)-k], add); node < 0 {
			return // no interned path ends with this one
		}
		id := v.pathID[node]
		if id < 0 {
			if !add {
				continue
			}
			id = int32(v.Intern(Feature{Kind: KPath, Path: stack[len(stack)-k:]}))
		}
		f(int(id))
	}
}

// lookup finds a sibling, value or class feature through the typed
// indexes.
func (v *Vocabulary) lookup(f Feature) (int, bool) {
	switch {
	case f.Kind == Sibling && len(f.Path) == 2:
		id, ok := v.siblings[pairKey(f.Path[0], f.Path[1])]
		return id, ok
	case (f.Kind == Value || f.Kind == Class) && len(f.Path) == 1:
		id, ok := v.texts[textKey{f.Kind, f.Path[0], f.At, f.Text}]
		return id, ok
	}
	v.key = f.appendKey(v.key[:0])
	id, ok := v.ids[string(v.key)]
	return id, ok
}

// Fit interns the features of a training corpus (one entry per input,
// all its trees) and returns every input's feature ids. K-paths get the
// lowest ids, in order of first appearance, so that a tree learner that
// breaks ties by id prefers them; then siblings and classes; then each
// terminal's frequent values and each symbol's thresholds, taken from
// the quartiles (and 10th and 90th percentiles) of its per-input values.
func (v *Vocabulary) Fit(inputs [][]*grammar.Tree) [][]int {
	rows, _ := v.FitContext(context.Background(), inputs)
	return rows
}

// FitContext is Fit, stopped when ctx is done (it returns ctx's error
// and no rows): reading the relational kinds off large inputs, and
// checking their clauses, can take minutes on a large corpus.
func (v *Vocabulary) FitContext(ctx context.Context, inputs [][]*grammar.Tree) ([][]int, error) {
	rows := make([][]int, len(inputs))
	if v.kinds == KPaths {
		for i, trees := range inputs {
			if i%64 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			rows[i] = v.Add(trees...)
		}
		return rows, nil
	}
	s, err := v.survey(ctx, inputs)
	if err != nil {
		return nil, err
	}
	for _, f := range s.pending.feats {
		v.Intern(f)
	}
	v.internValues(s.values)
	v.internMatches(s.matches)
	v.internThresholds(s.perInput)
	for i, trees := range inputs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rows[i] = v.Features(trees...)
	}
	return rows, nil
}

// valueKey is a terminal's text.
type valueKey struct {
	node int
	text string
}

// corpusSurvey is what Fit's first pass over the corpus finds besides
// the k-paths it interns.
type corpusSurvey struct {
	pending  *Vocabulary          // the kinds interned after the k-paths, in order of appearance
	values   map[valueKey]int     // terminal's text -> inputs
	perInput map[string][]float64 // threshold key -> per-input values
	matches  map[[2]string]int    // pair of rules seen matching -> inputs
}

// survey is Fit's first pass: it interns the corpus's k-paths and
// gathers the other kinds' features, the inputs each value appears in,
// and each threshold kind's per-input values.
func (v *Vocabulary) survey(ctx context.Context, inputs [][]*grammar.Tree) (corpusSurvey, error) {
	s := corpusSurvey{
		// pending only interns and looks up: it needs no clause checker
		// of its own (compiling the grammar's clauses again).
		pending:  NewVocabulary(v.g, Options{MaxK: v.opts.MaxK, Kinds: v.kinds &^ (1 << Clause), MaxValues: v.opts.MaxValues}),
		values:   map[valueKey]int{},
		perInput: map[string][]float64{},
		matches:  map[[2]string]int{},
	}
	inputValues := map[valueKey]bool{}
	inputMatches := map[[2]string]bool{}
	for _, trees := range inputs {
		if ctx.Err() != nil {
			return s, ctx.Err()
		}
		clear(inputValues)
		clear(inputMatches)
		v.sc.numbers = nil // every symbol's numbers, to find the thresholds
		v.sc.scanInput(v, forest{trees: trees}, func(f Feature) {
			if f.Kind == Value {
				k := valueKey{f.Path[0], f.Text}
				if !inputValues[k] {
					inputValues[k] = true
					s.values[k]++
				}
				return
			}
			if f.Kind == Match {
				k := [2]string{f.Symbol, f.Text}
				if !inputMatches[k] {
					inputMatches[k] = true
					s.matches[k]++
				}
				return
			}
			if _, ok := s.pending.lookup(f); !ok {
				s.pending.Intern(f) // copies the path
			}
		}, func(stack []int) {
			v.stackPaths(stack, true, func(int) {})
		})
		if v.kinds.Has(Clause) {
			v.clauses(forest{trees: trees}, func(f Feature) {
				if _, ok := s.pending.lookup(f); !ok {
					s.pending.Intern(f)
				}
			})
		}
		for _, st := range v.sc.touched {
			for _, k := range [...]Kind{Length, Occurrences, Number} {
				if x, ok := st.value(k); ok && v.kinds.Has(k) {
					tk := thresholdKey(k, st.symbol)
					s.perInput[tk] = append(s.perInput[tk], x)
				}
			}
		}
	}
	return s, nil
}

// internValues interns each terminal's most frequent texts, seen in two
// inputs or more (values counts the inputs), up to MaxValues a terminal.
func (v *Vocabulary) internValues(values map[valueKey]int) {
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
}

// internThresholds interns the thresholds of each threshold key's
// per-input values: their distinct quantiles above the minimum (at the
// minimum, the feature is the symbol's presence, which a 1-path already
// is).
func (v *Vocabulary) internThresholds(perInput map[string][]float64) {
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
