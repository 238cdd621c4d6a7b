package grammar

import (
	"math/bits"
	"slices"
	"sort"
	"strings"
)

// The general parser is Earley's algorithm over the graph, scannerless:
// literals and regexes are its terminals, and a regex is scanned at every
// length it can match. Items are (node, dot, origin); the grammar needs no
// conversion because every node kind has a fixed way of expecting its
// children. Empty derivations use the Aycock–Horspool check: an item that
// starts to wait for a node that has already derived the empty string at
// this position moves on at once.
//
// Trees are read off the finished chart top-down (extract.go).

type item struct{ node, dot, origin int32 }

// doneDot marks a completion fact (node derived in[origin:pos]); waitDot
// marks, in the current set's table, the head of the chain of items that
// wait for a node. Real items never have a negative dot.
const (
	doneDot = -1
	waitDot = -2
)

type span struct{ node, from, to int32 }

// The chart is built one Earley set at a time. The set being processed
// lives in a small reusable hash table that stays in cache; when it is
// finished it is frozen into sorted arrays, which completion and tree
// extraction search by binary search. Items that terminal scans add to
// later sets wait in a pending chain until their set's turn. (Go maps, or
// one table over the whole chart, made the parser several times slower.)
//
// A frozen set keeps only the items that are ever looked up: those still
// expecting a child (completion advances them, extraction checks them),
// and every Quant item (extraction checks the complete ones too). A
// finished Ref, Alt or Cat item is needed only while its set is built.
// When the node ids, dots and positions fit in 64 bits together, which
// they do for any grammar and input of practical size, frozen items and
// completion facts are packed into one uint64 each (node, dot+1, origin
// from the high bits down), which sorts as (node, dot, origin) does, at
// two thirds of the size and with an inlined comparison; otherwise the
// sets hold items.
type entry struct {
	it   item
	next int32
}

type earley struct {
	g     *Graph
	in    []byte
	s     string // in as a string, for slicing leaf values without copying
	start int32  // the virtual start node: a Ref to the root
	refs  [][]int32

	pendHead []int32 // per position: chain into pend
	pend     []entry // items (and terminal completion facts) for later sets

	cur     table   // the current set's items, facts and wait chains
	work    []item  // the current set's items, in order of addition
	curDone []item  // the current set's completion facts
	waits   []entry // wait chains of the current set
	scans   []scanEntry

	// Wide sets, when the packed keys do not fit.
	items setStore[item] // frozen sets: items sorted by (node, dot, origin)
	done  setStore[item] // frozen sets: completion facts sorted by (node, origin)

	// Packed sets.
	packed    bool
	keys      setStore[uint64] // frozen sets: packed items, sorted
	doneKeys  setStore[uint64] // frozen sets: packed completion facts, sorted
	nodeShift uint             // bits below the node in a packed key
	dotShift  uint             // bits below the dot (the origin's)
	maxDot    int32            // the largest dot of any item of the graph
	nodeBits  uint             // bits for a node id (the start node included)
	dotBits   uint             // bits for dot+1

	far   int    // the last position whose set has items
	nsets int    // sets frozen so far
	buf   []item // decoded items of a packed set

	// m counts the items added (or found already there, or waiting in
	// pend) against the budget, and looks at the context between them;
	// lastPend is the
	// furthest position that an item waits in pend for.
	m        meter
	lastPend int32
}

// setStore holds the frozen sets of the chart, one per input position,
// in blocks that are never moved: one growing array would hold its old
// and its new copy while it grows, and up to twice what it needs after,
// which made the chart of a large input take several times its size.
type setStore[T any] struct {
	sets   [][]T // per position
	blocks [][]T // filled in turn; kept for the next parse
	cur    int   // the block being filled
}

// storeBlock is how many items a block holds at most (768 KB); blocks
// start small and double up to it, for small inputs are the most common.
// A larger set gets a block of its own size.
const storeBlock = 1 << 16

// reset empties the store for an input of n bytes (n+1 sets).
func (s *setStore[T]) reset(n int) {
	s.sets = slices.Grow(s.sets[:0], n+1)
	s.cur = 0
	for i := range s.blocks {
		s.blocks[i] = s.blocks[i][:0]
	}
}

// grab returns an empty slice, in place in a block, with room for n
// elements; the caller fills it and hands it to commit as the next set.
func (s *setStore[T]) grab(n int) []T {
	for s.cur < len(s.blocks) && cap(s.blocks[s.cur])-len(s.blocks[s.cur]) < n {
		s.cur++
	}
	if s.cur == len(s.blocks) {
		size := 256
		if s.cur > 0 {
			size = min(2*cap(s.blocks[s.cur-1]), storeBlock)
		}
		s.blocks = append(s.blocks, make([]T, 0, max(size, n)))
	}
	b := s.blocks[s.cur]
	return b[len(b):len(b):cap(b)]
}

// commit appends set, filled in the slice grab returned, as the next set.
func (s *setStore[T]) commit(set []T) {
	b := s.blocks[s.cur]
	s.blocks[s.cur] = b[:len(b)+len(set)]
	s.sets = append(s.sets, set[:len(set):len(set)])
}

type scanEntry struct {
	node int32
	ends []int
}

// newEarley returns a parser for one input, reusing the buffers of an
// earlier parse of the same graph when one is free. wide makes it use
// the wide item layout even where packed keys fit (tests compare the two).
func newEarley(g *Graph, in []byte, wide bool) *earley {
	e, _ := g.earleyPool.Get().(*earley)
	if e == nil {
		e = &earley{g: g, start: int32(len(g.Nodes)), refs: g.refs}
		e.cur.init()
		e.maxDot = 1
		for _, n := range g.Nodes {
			switch n.Kind {
			case KindCat:
				e.maxDot = max(e.maxDot, int32(len(n.Children)))
			case KindQuant:
				e.maxDot = max(e.maxDot, quantCap(n))
			}
		}
		e.nodeBits = uint(bits.Len32(uint32(e.start)))
		e.dotBits = uint(bits.Len32(uint32(e.maxDot) + 1))
	}
	n := len(in)
	e.in, e.s = in, string(in)
	e.pendHead = slices.Grow(e.pendHead[:0], n+1)[:n+1]
	for i := range e.pendHead {
		e.pendHead[i] = -1
	}
	e.pend = e.pend[:0]
	e.far, e.nsets, e.lastPend = 0, 0, 0
	e.m = meter{}
	originBits := uint(bits.Len(uint(n)))
	e.packed = !wide && e.nodeBits+e.dotBits+originBits <= 64
	e.dotShift = originBits
	e.nodeShift = originBits + e.dotBits
	if e.packed {
		e.keys.reset(n)
		e.doneKeys.reset(n)
	} else {
		e.items.reset(n)
		e.done.reset(n)
	}
	return e
}

// release returns the parser's buffers to the graph's pool. Trees read off
// the chart do not point into them.
func (e *earley) release() {
	e.in, e.s = nil, ""
	e.m = meter{}
	e.g.earleyPool.Put(e)
}

// refsTo lists, for each right-hand side root, the Refs that lead to it.
func refsTo(nodes []*Node) [][]int32 {
	refs := make([][]int32, len(nodes))
	for _, n := range nodes {
		if n.Kind == KindRef {
			c := n.Children[0].ID
			refs[c] = append(refs[c], int32(n.ID))
		}
	}
	return refs
}

// node returns the graph node of an item's node id (nil for the virtual start).
func (e *earley) node(id int32) *Node {
	if id == e.start {
		return nil
	}
	return e.g.Nodes[id]
}

// quantCap is the largest dot stored for a Quant: its maximum when bounded;
// when unbounded, its minimum, which then stands for "at least the minimum".
func quantCap(n *Node) int32 {
	if n.Max == Unbounded {
		return int32(n.Min)
	}
	return int32(n.Max)
}

func (e *earley) complete(it item) bool {
	n := e.node(it.node)
	if n == nil {
		return it.dot == 1
	}
	switch n.Kind {
	case KindRef, KindAlt:
		return it.dot == 1
	case KindCat:
		return int(it.dot) == len(n.Children)
	case KindQuant:
		return int(it.dot) >= n.Min
	}
	return false
}

// expected appends to dst the children item it can take next.
func (e *earley) expected(it item, dst []*Node) []*Node {
	n := e.node(it.node)
	if n == nil {
		if it.dot == 0 {
			dst = append(dst, e.g.Root)
		}
		return dst
	}
	switch n.Kind {
	case KindRef:
		if it.dot == 0 {
			dst = append(dst, n.Children[0])
		}
	case KindAlt:
		if it.dot == 0 {
			dst = append(dst, n.Children...)
		}
	case KindCat:
		if int(it.dot) < len(n.Children) {
			dst = append(dst, n.Children[it.dot])
		}
	case KindQuant:
		if n.Max == Unbounded || int(it.dot) < n.Max {
			dst = append(dst, n.Children[0])
		}
	}
	return dst
}

// advance moves an item over a child; empty says the child derived nothing.
func (e *earley) advance(it item, empty bool) (item, bool) {
	n := e.node(it.node)
	if n == nil {
		return item{it.node, 1, it.origin}, true
	}
	switch n.Kind {
	case KindRef, KindAlt:
		it.dot = 1
	case KindCat:
		it.dot++
	case KindQuant:
		// An empty repetition is only taken to reach the minimum count;
		// beyond it, it would only add trees that derive the same text.
		if empty && int(it.dot) >= n.Min {
			return it, false
		}
		it.dot = min(it.dot+1, quantCap(n))
	}
	return it, true
}

// add adds an item to the current set.
func (e *earley) add(it item) {
	e.m.used++
	if _, ok := e.cur.lookup(it); ok {
		e.work = append(e.work, it)
	}
}

// addLater adds an item (or, with doneDot, a completion fact) to a later
// set. It counts against the budget as an item: a regex that matches at
// every length from every position (/a+/ over a run of a's) adds a
// quadratic number of them before any is an item of a set.
func (e *earley) addLater(pos int32, it item) {
	e.m.used++
	e.pend = append(e.pend, entry{it, e.pendHead[pos]})
	e.pendHead[pos] = int32(len(e.pend) - 1)
	e.lastPend = max(e.lastPend, pos)
}

// recordDone records in the current set that node derived in[origin:pos]
// and reports whether that was new.
func (e *earley) recordDone(node, origin int32) bool {
	f := item{node, doneDot, origin}
	if _, ok := e.cur.lookup(f); !ok {
		return false
	}
	e.curDone = append(e.curDone, f)
	return true
}

// scan returns the ends of the matches of regex terminal n at pos; a
// regex expected by several items is run once per position.
func (e *earley) scan(n *Node, pos int32) []int {
	for _, sc := range e.scans {
		if sc.node == int32(n.ID) {
			return sc.ends
		}
	}
	ends := n.re.ends(e.in, int(pos), nil)
	e.scans = append(e.scans, scanEntry{int32(n.ID), ends})
	return ends
}

// run fills the chart and reports whether the whole input derives from
// the root. It stops early, reporting false with e.m.err set, when the
// budget is spent or the context is done, and as soon as no item is
// left to carry the parse further.
func (e *earley) run() bool {
	e.addLater(0, item{e.start, 0, 0})
	var kids []*Node
	for i := range e.pendHead {
		pos := int32(i)
		e.cur.reset()
		e.work, e.curDone, e.waits, e.scans = e.work[:0], e.curDone[:0], e.waits[:0], e.scans[:0]
		for k := e.pendHead[i]; k >= 0; k = e.pend[k].next {
			if it := e.pend[k].it; it.dot == doneDot {
				e.recordDone(it.node, it.origin)
			} else {
				e.add(it)
			}
		}
		for k := 0; k < len(e.work); k++ {
			// One comparison an item; the meter looks at the budget
			// and the context every few thousand.
			if e.m.used >= e.m.next && e.m.over(i) {
				return false
			}
			it := e.work[k]
			if e.complete(it) && e.recordDone(it.node, it.origin) {
				e.completeAt(it, pos)
			}
			kids = e.expected(it, kids[:0])
			for _, c := range kids {
				cid := int32(c.ID)
				if c.Kind == KindLit || c.Kind == KindRegex {
					var lit [1]int
					ends := lit[:0]
					if c.Kind == KindRegex {
						ends = e.scan(c, pos)
					} else if strings.HasPrefix(e.s[pos:], c.Name) {
						ends = append(ends, i+len(c.Name))
					}
					for _, end := range ends {
						nx, ok := e.advance(it, end == i)
						if end == i {
							e.recordDone(cid, pos)
							if ok {
								e.add(nx)
							}
							continue
						}
						e.addLater(int32(end), item{cid, doneDot, pos})
						if ok {
							e.addLater(int32(end), nx)
						}
					}
					continue
				}
				e.add(item{cid, 0, pos})
				s, _ := e.cur.lookup(item{cid, waitDot, 0})
				e.waits = append(e.waits, entry{it, s.v})
				s.v = int32(len(e.waits) - 1)
				// Aycock–Horspool: c may already have derived the empty
				// string here, before it started waiting.
				if e.cur.find(item{cid, doneDot, pos}) != nil {
					if nx, ok := e.advance(it, true); ok {
						e.add(nx)
					}
				}
			}
		}
		e.freeze()
		if len(e.work) == 0 && e.lastPend <= pos {
			// Nothing reaches past here: the input is rejected, and
			// the empty sets left need not be made.
			return false
		}
	}
	return e.hasDone(e.start, 0, int32(len(e.in)))
}

// completeAt advances the items that wait for a derivation that just
// completed at pos.
func (e *earley) completeAt(done item, pos int32) {
	if done.origin == pos {
		s := e.cur.find(item{done.node, waitDot, 0})
		if s == nil {
			return
		}
		for k := s.v; k >= 0; k = e.waits[k].next {
			if nx, ok := e.advance(e.waits[k].it, true); ok {
				e.add(nx)
			}
		}
		return
	}
	// The origin set is frozen: its waiting items are those of the node's
	// parent expecting it, or for a right-hand side the Refs to it.
	n := e.node(done.node)
	if n == nil {
		return
	}
	if n.Parent == nil {
		waiters := e.refs[n.ID]
		if n == e.g.Root {
			waiters = append(waiters[:len(waiters):len(waiters)], e.start)
		}
		for _, r := range waiters {
			for _, w := range e.nodeItems(done.origin, r) {
				if w.dot == 0 {
					e.add(item{w.node, 1, w.origin})
				}
			}
		}
		return
	}
	p := n.Parent
	for _, w := range e.nodeItems(done.origin, int32(p.ID)) {
		ok := false
		switch p.Kind {
		case KindAlt:
			ok = w.dot == 0
		case KindCat:
			ok = int(w.dot) == n.Index
		case KindQuant:
			ok = p.Max == Unbounded || int(w.dot) < p.Max
		}
		if ok {
			if nx, ok := e.advance(w, false); ok {
				e.add(nx)
			}
		}
	}
}

// itemsOf returns the items of a sorted set that belong to node.
func itemsOf(set []item, node int32) []item {
	lo := sort.Search(len(set), func(i int) bool { return set[i].node >= node })
	hi := lo
	for hi < len(set) && set[hi].node == node {
		hi++
	}
	return set[lo:hi]
}

func cmpItem(a, b item) int {
	switch {
	case a.node != b.node:
		return int(a.node - b.node)
	case a.dot != b.dot:
		return int(a.dot - b.dot)
	}
	return int(a.origin - b.origin)
}

// kept reports whether a frozen set keeps it (see the chart's comment).
func (e *earley) kept(it item) bool {
	if it.node == e.start {
		return it.dot == 0
	}
	n := e.g.Nodes[it.node]
	switch n.Kind {
	case KindRef, KindAlt:
		return it.dot == 0
	case KindCat:
		return int(it.dot) < len(n.Children)
	}
	return true
}

// key packs an item (or a completion fact) of a packed chart.
func (e *earley) key(it item) uint64 {
	return uint64(it.node)<<e.nodeShift | uint64(it.dot+1)<<e.dotShift | uint64(it.origin)
}

// unkey is the inverse of key.
func (e *earley) unkey(k uint64) item {
	return item{
		node:   int32(k >> e.nodeShift),
		dot:    int32(k>>e.dotShift&(1<<e.dotBits-1)) - 1,
		origin: int32(k & (1<<e.dotShift - 1)),
	}
}

// keysOf returns the keys of a sorted packed set that belong to node.
func (e *earley) keysOf(set []uint64, node int32) []uint64 {
	lo, _ := slices.BinarySearch(set, uint64(node)<<e.nodeShift)
	hi := lo
	for hi < len(set) && int32(set[hi]>>e.nodeShift) == node {
		hi++
	}
	return set[lo:hi]
}

// nodeItems returns the kept items of node in the frozen set at pos; with
// packed sets, in a buffer that the next call reuses.
func (e *earley) nodeItems(pos, node int32) []item {
	if !e.packed {
		return itemsOf(e.items.sets[pos], node)
	}
	e.buf = e.buf[:0]
	for _, k := range e.keysOf(e.keys.sets[pos], node) {
		e.buf = append(e.buf, e.unkey(k))
	}
	return e.buf
}

// freeze appends the current set, sorted, to the frozen sets.
func (e *earley) freeze() {
	if len(e.work) > 0 {
		e.far = e.nsets
	}
	e.nsets++
	if e.packed {
		set := e.keys.grab(len(e.work))
		for _, it := range e.work {
			if e.kept(it) {
				set = append(set, e.key(it))
			}
		}
		slices.Sort(set)
		e.keys.commit(set)
		done := e.doneKeys.grab(len(e.curDone))
		for _, it := range e.curDone {
			done = append(done, e.key(it))
		}
		slices.Sort(done)
		e.doneKeys.commit(done)
		return
	}
	set := e.items.grab(len(e.work))
	for _, it := range e.work {
		if e.kept(it) {
			set = append(set, it)
		}
	}
	slices.SortFunc(set, cmpItem)
	e.items.commit(set)
	done := append(e.done.grab(len(e.curDone)), e.curDone...)
	slices.SortFunc(done, cmpItem)
	e.done.commit(done)
}

// hasItem reports whether the set at pos has it, which must be an item
// that frozen sets keep.
func (e *earley) hasItem(pos int32, it item) bool {
	if e.packed {
		if it.dot < 0 || it.dot > e.maxDot {
			return false
		}
		_, ok := slices.BinarySearch(e.keys.sets[pos], e.key(it))
		return ok
	}
	_, ok := slices.BinarySearchFunc(e.items.sets[pos], it, cmpItem)
	return ok
}

func (e *earley) hasDone(node, from, to int32) bool {
	if e.packed {
		_, ok := slices.BinarySearch(e.doneKeys.sets[to], e.key(item{node, doneDot, from}))
		return ok
	}
	_, ok := slices.BinarySearchFunc(e.done.sets[to], item{node, doneDot, from}, cmpItem)
	return ok
}

// origins calls f with the origin of each completed derivation of node
// that ends at end, in increasing order, until f returns false.
func (e *earley) origins(end, node int32, f func(origin int32) bool) bool {
	if e.packed {
		mask := uint64(1)<<e.dotShift - 1
		for _, k := range e.keysOf(e.doneKeys.sets[end], node) {
			if !f(int32(k & mask)) {
				return false
			}
		}
		return true
	}
	for _, d := range itemsOf(e.done.sets[end], node) {
		if !f(d.origin) {
			return false
		}
	}
	return true
}

// eachDone calls f with each completion fact of the frozen set at end:
// node derived in[origin:end].
func (e *earley) eachDone(end int32, f func(node, origin int32)) {
	if !e.packed {
		for _, d := range e.done.sets[end] {
			f(d.node, d.origin)
		}
		return
	}
	for _, k := range e.doneKeys.sets[end] {
		d := e.unkey(k)
		f(d.node, d.origin)
	}
}

// failure describes why the input was rejected: the furthest position any
// item reached and the terminals expected there.
func (e *earley) failure() *ParseError {
	far := e.far
	set := e.nodeItemsAll(int32(far))
	// A terminal that matched here matched only the empty string (a longer
	// match would have reached further), so it is not what was missing.
	exp := map[string]bool{}
	var kids []*Node
	for _, it := range set {
		for _, c := range e.expected(it, kids[:0]) {
			if (c.Kind == KindLit || c.Kind == KindRegex) && len(c.matchEnds(e.in, far)) == 0 {
				exp[c.Label()] = true
			}
		}
	}
	if far == len(e.in) && len(exp) == 0 {
		exp["more input"] = true
	}
	list := make([]string, 0, len(exp))
	for s := range exp {
		list = append(list, s)
	}
	sort.Strings(list)
	return newParseError(e.in, far, list)
}

// nodeItemsAll returns the kept items of the frozen set at pos.
func (e *earley) nodeItemsAll(pos int32) []item {
	if !e.packed {
		return e.items.sets[pos]
	}
	e.buf = e.buf[:0]
	for _, k := range e.keys.sets[pos] {
		e.buf = append(e.buf, e.unkey(k))
	}
	return e.buf
}
