package features

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// scanner walks an input's trees once and reports what every feature
// kind is read from: k-paths, adjacent symbolic siblings, the text of
// regex terminals, and per-symbol counts, lengths and numbers. Its
// buffers are reused from input to input.
type scanner struct {
	g       *grammar.Graph
	stack   []int     // symbolic ids from the root down
	kids    []int     // symbolic children of the open symbolic nodes, flattened
	spans   []kidSpan // where each of kids is in the text
	classes []string
	pair    [2]int // the Path of the feature being reported
	// symbols: per grammar node id, its symbol's index (-1 for synthetic
	// nodes); labels: per index, the symbol's label.
	symbols []int
	labels  []string
	index   map[string]int // label -> symbol index
	stats   []symStat      // per symbol index
	// numbers, when not nil, tells per symbol index whether its text is
	// read as a number (only symbols with Number features need it).
	numbers []bool
	touched []*symStat
	gen     int

	// Relational kinds: the texts of comparisons made so far; the rule
	// occurrences of the tree, its groups of equal texts, the pairs of
	// rules found in a group; the class of the last terminal's last
	// character ("" for space, or at the start).
	relationText map[relationKey]string
	occs         []refOcc
	groups       [][2]int
	pairSeen     [][2]int32
	lastLeaf     string

	// The input being scanned.
	kinds               Kinds
	needText, needStats bool
	onFeature           func(Feature)
	onStack             func([]int)
	text                string       // what the tree derives, if needText
	pos                 int          // bytes of text before the node
	open                []openSymbol // per symbolic node on the path
}

// openSymbol is where a symbolic node on the scanner's path started: its
// text's offset and its first child's place in kids.
type openSymbol struct {
	start, mark int
}

// init indexes the grammar's symbols by label, once.
func (sc *scanner) init(g *grammar.Graph) {
	if sc.symbols != nil {
		return
	}
	sc.g = g
	index := map[string]int{}
	sc.index = index
	sc.symbols = make([]int, len(g.Nodes))
	for id, n := range g.Nodes {
		sc.symbols[id] = -1
		if n == nil || !n.Kind.Symbolic() {
			continue
		}
		label := n.Label()
		i, ok := index[label]
		if !ok {
			i = len(sc.labels)
			index[label] = i
			sc.labels = append(sc.labels, label)
		}
		sc.symbols[id] = i
	}
	sc.stats = make([]symStat, len(sc.labels))
}

// symStat is what threshold features read of one symbol in one input:
// over its trees, the most occurrences, the longest text and the largest
// number.
type symStat struct {
	symbol    string
	gen       int
	count     int // in the input: the most over its trees
	treeCount int
	maxLen    int
	num       float64
	hasNum    bool
}

func (st *symStat) value(k Kind) (float64, bool) {
	switch k {
	case Occurrences:
		return float64(st.count), st.count > 0
	case Length:
		return float64(st.maxLen), st.maxLen > 0
	case Number:
		return st.num, st.hasNum
	}
	return 0, false
}

// scanInput scans every tree of one input. onStack gets, at every
// symbolic node, the ids of the symbolic nodes from the root down to it
// (only valid during the call): the k-paths ending there are its
// suffixes; onFeature gets the Sibling, Value and Class features of the
// kinds v extracts, repeated as often as they occur. Afterwards touched
// holds the symbols' statistics.
func (sc *scanner) scanInput(v *Vocabulary, f forest, onFeature func(Feature), onStack func([]int)) {
	sc.init(v.g)
	sc.gen++
	sc.touched = sc.touched[:0]
	sc.kinds, sc.onFeature, sc.onStack = v.kinds, onFeature, onStack
	relational := sc.kinds.Has(Relation) || sc.kinds.Has(Match) || sc.kinds.Has(Adjacent)
	sc.needText = sc.kinds.Has(Value) || sc.kinds.Has(Class) || sc.kinds.Has(Number) || relational
	sc.needStats = sc.kinds.Has(Length) || sc.kinds.Has(Occurrences) || sc.kinds.Has(Number)
	for i := range f.len() {
		if f.parsed == nil && f.trees[i] == nil {
			continue
		}
		for _, st := range sc.touched {
			st.treeCount = 0
		}
		sc.text = ""
		if sc.needText {
			sc.text = f.text(i)
		}
		sc.pos = 0
		sc.stack, sc.kids, sc.spans, sc.open = sc.stack[:0], sc.kids[:0], sc.spans[:0], sc.open[:0]
		sc.occs, sc.lastLeaf = sc.occs[:0], ""
		f.visit(i, sc)
		if sc.kinds.Has(Match) {
			sc.matches(v)
		}
		// Symbols directly under the root (when the tree's root is a
		// right-hand side rather than a symbol) are siblings too.
		sc.siblings(sc.kids)
		for _, st := range sc.touched {
			st.count = max(st.count, st.treeCount)
		}
	}
	sc.onFeature, sc.onStack, sc.text = nil, nil, ""
}

// Enter and Leave make the scanner the grammar.Visitor of scanInput's
// trees: it keeps the path to the node, not the tree.
func (sc *scanner) Enter(n *grammar.Node, text string) {
	if n == nil || !n.Kind.Symbolic() {
		return
	}
	sc.open = append(sc.open, openSymbol{start: sc.pos, mark: len(sc.kids)})
	sc.stack = append(sc.stack, n.ID)
	if sc.kinds.Has(KPath) {
		sc.onStack(sc.stack)
	}
	if n.Kind == grammar.KindLit || n.Kind == grammar.KindRegex {
		sc.pos += len(text)
	}
}

func (sc *scanner) Leave(node *grammar.Node) {
	if node == nil || !node.Kind.Symbolic() {
		return
	}
	o := sc.open[len(sc.open)-1]
	sc.open = sc.open[:len(sc.open)-1]
	start, pos := o.start, sc.pos
	sc.stack = sc.stack[:len(sc.stack)-1]
	sc.siblings(sc.kids[o.mark:])
	if node.Kind == grammar.KindRef {
		if sc.kinds.Has(Relation) {
			sc.relations(node, sc.kids[o.mark:], sc.spans[o.mark:])
		}
		if sc.kinds.Has(Match) {
			sc.occurrence(node, start, pos)
		}
	} else if sc.kinds.Has(Adjacent) {
		sc.leaf(sc.text[start:pos])
	}
	sc.kids = append(sc.kids[:o.mark], node.ID)
	sc.spans = append(sc.spans[:o.mark], kidSpan{start, pos})
	if node.Kind == grammar.KindRegex && sc.needText {
		s := sc.text[start:pos]
		sc.pair[0] = node.ID
		p := Path(sc.pair[:1])
		if sc.kinds.Has(Value) {
			sc.onFeature(Feature{Kind: Value, Path: p, Text: s})
		}
		if sc.kinds.Has(Class) && s != "" {
			sc.classes = classesOf(s, sc.classes[:0])
			for _, c := range sc.classes {
				sc.onFeature(Feature{Kind: Class, Path: p, Text: c})
			}
			first, _ := utf8.DecodeRuneInString(s)
			last, _ := utf8.DecodeLastRuneInString(s)
			sc.onFeature(Feature{Kind: Class, Path: p, Text: ClassOf(first), At: "first"})
			sc.onFeature(Feature{Kind: Class, Path: p, Text: ClassOf(last), At: "last"})
		}
	}
	if sc.needStats {
		sc.count(node, sc.text, start, pos)
	}
}

// siblings reports the Sibling features of one parent's symbolic children.
func (sc *scanner) siblings(kids []int) {
	if !sc.kinds.Has(Sibling) || len(kids) == 0 {
		return
	}
	pair := func(a, b int) {
		sc.pair = [2]int{a, b}
		sc.onFeature(Feature{Kind: Sibling, Path: sc.pair[:]})
	}
	pair(Edge, kids[0])
	for i := 0; i+1 < len(kids); i++ {
		pair(kids[i], kids[i+1])
	}
	pair(kids[len(kids)-1], Edge)
}

func (sc *scanner) count(node *grammar.Node, text string, start, end int) {
	i := sc.symbols[node.ID]
	if i < 0 {
		return
	}
	st := &sc.stats[i]
	if st.gen != sc.gen {
		*st = symStat{symbol: sc.labels[i], gen: sc.gen}
		sc.touched = append(sc.touched, st)
	}
	st.treeCount++
	if node.Kind == grammar.KindLit {
		return // a literal's length and number never vary
	}
	st.maxLen = max(st.maxLen, end-start)
	if text != "" && end-start <= 24 && end > start && (sc.numbers == nil || sc.numbers[i]) {
		if c := text[start]; c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
			if x, err := strconv.ParseFloat(text[start:end], 64); err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
				if !st.hasNum || x > st.num {
					st.num, st.hasNum = x, true
				}
			}
		}
	}
}
