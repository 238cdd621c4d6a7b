package grammar

import (
	"bytes"
	"sort"
)

// The general parser is Earley's algorithm over the graph, scannerless:
// literals and regexes are its terminals, and a regex is scanned at every
// length it can match. Items are (node, dot, origin); the grammar needs no
// conversion because every node kind has a fixed way of expecting its
// children. Empty derivations use the Aycock–Horspool check: an item that
// starts to wait for a node that has already derived the empty string at
// this position moves on at once.
//
// Trees are read off the finished chart top-down (see extract).

type item struct{ node, dot, origin int32 }

type posItem struct {
	pos int32
	it  item
}

type posNode struct{ pos, node int32 }

type span struct{ node, from, to int32 }

type earley struct {
	g     *Graph
	in    []byte
	s     string // in as a string, for slicing leaf values without copying
	start int32  // the virtual start node: a Ref to the root

	sets     [][]item
	seen     map[posItem]struct{}
	waiting  map[posNode][]item  // (pos, node): items of set pos waiting for node
	done     map[posNode][]int32 // (end, node): origins of completed derivations
	doneSeen map[span]struct{}   // (node, origin, end)
	scans    map[posNode][]int   // (start, terminal): match ends
	scratch  []int
}

func newEarley(g *Graph, in []byte) *earley {
	return &earley{
		g: g, in: in, s: string(in), start: int32(len(g.Nodes)),
		sets:     make([][]item, len(in)+1),
		seen:     map[posItem]struct{}{},
		waiting:  map[posNode][]item{},
		done:     map[posNode][]int32{},
		doneSeen: map[span]struct{}{},
		scans:    map[posNode][]int{},
	}
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

// expected calls f for each child the item can take next.
func (e *earley) expected(it item, f func(c *Node)) {
	n := e.node(it.node)
	if n == nil {
		if it.dot == 0 {
			f(e.g.Root)
		}
		return
	}
	switch n.Kind {
	case KindRef:
		if it.dot == 0 {
			f(n.Children[0])
		}
	case KindAlt:
		if it.dot == 0 {
			for _, c := range n.Children {
				f(c)
			}
		}
	case KindCat:
		if int(it.dot) < len(n.Children) {
			f(n.Children[it.dot])
		}
	case KindQuant:
		if n.Max == Unbounded || int(it.dot) < n.Max {
			f(n.Children[0])
		}
	}
}

// advance moves an item over a child that derived in[from:to].
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

func (e *earley) add(pos int32, it item) {
	k := posItem{pos, it}
	if _, ok := e.seen[k]; ok {
		return
	}
	e.seen[k] = struct{}{}
	e.sets[pos] = append(e.sets[pos], it)
}

func (e *earley) hasItem(pos int32, it item) bool {
	_, ok := e.seen[posItem{pos, it}]
	return ok
}

func (e *earley) hasDone(node, from, to int32) bool {
	_, ok := e.doneSeen[span{node, from, to}]
	return ok
}

func (e *earley) recordDone(node, from, to int32) bool {
	k := span{node, from, to}
	if _, ok := e.doneSeen[k]; ok {
		return false
	}
	e.doneSeen[k] = struct{}{}
	pn := posNode{to, node}
	e.done[pn] = append(e.done[pn], from)
	return true
}

// scan returns the ends of the matches of terminal n at pos.
func (e *earley) scan(n *Node, pos int32) []int {
	k := posNode{pos, int32(n.ID)}
	if ends, ok := e.scans[k]; ok {
		return ends
	}
	var ends []int
	if n.Kind == KindLit {
		if bytes.HasPrefix(e.in[pos:], []byte(n.Name)) {
			ends = []int{int(pos) + len(n.Name)}
		}
	} else {
		ends = n.re.ends(e.in, int(pos), nil)
	}
	e.scans[k] = ends
	return ends
}

// run fills the chart and reports whether the whole input derives from the root.
func (e *earley) run() bool {
	e.add(0, item{e.start, 0, 0})
	for i := range e.sets {
		pos := int32(i)
		for k := 0; k < len(e.sets[i]); k++ {
			it := e.sets[i][k]
			if e.complete(it) && e.recordDone(it.node, it.origin, pos) {
				for _, w := range e.waiting[posNode{it.origin, it.node}] {
					if nx, ok := e.advance(w, it.origin == pos); ok {
						e.add(pos, nx)
					}
				}
			}
			e.expected(it, func(c *Node) {
				cid := int32(c.ID)
				if c.Kind == KindLit || c.Kind == KindRegex {
					for _, end := range e.scan(c, pos) {
						e.recordDone(cid, pos, int32(end))
						if nx, ok := e.advance(it, end == i); ok {
							e.add(int32(end), nx)
						}
					}
					return
				}
				e.add(pos, item{cid, 0, pos})
				wk := posNode{pos, cid}
				e.waiting[wk] = append(e.waiting[wk], it)
				if e.hasDone(cid, pos, pos) {
					if nx, ok := e.advance(it, true); ok {
						e.add(pos, nx)
					}
				}
			})
		}
	}
	return e.hasDone(e.start, 0, int32(len(e.in)))
}

// failure describes why the input was rejected: the furthest position any
// item reached and the terminals expected there.
func (e *earley) failure() *ParseError {
	far := 0
	for i := len(e.sets) - 1; i >= 0; i-- {
		if len(e.sets[i]) > 0 {
			far = i
			break
		}
	}
	// A terminal that matched here matched only the empty string (a longer
	// match would have reached further), so it is not what was missing.
	exp := map[string]bool{}
	for _, it := range e.sets[far] {
		e.expected(it, func(c *Node) {
			if (c.Kind == KindLit || c.Kind == KindRegex) && len(e.scan(c, int32(far))) == 0 {
				exp[c.Label()] = true
			}
		})
	}
	if far == len(e.in) && len(exp) == 0 {
		// Everything up to here parsed, but a longer input was needed by
		// some rule whose terminals lie further back: report the end.
		exp["more input"] = true
	}
	list := make([]string, 0, len(exp))
	for s := range exp {
		list = append(list, s)
	}
	sort.Strings(list)
	return newParseError(e.in, far, list)
}

// extractor reads derivation trees off a finished chart.
type extractor struct {
	e       *earley
	a       *arena
	active  map[span]bool
	depth   int
	tooDeep bool
}



// build yields every tree of node n deriving in[i:j] until yield returns
// false; it returns false if enumeration was stopped. A derivation that
// would contain itself over the same span is cut, so trees are finite.
func (x *extractor) build(n *Node, i, j int32, yield func(*Tree) bool) bool {
	e := x.e
	switch n.Kind {
	case KindLit:
		t := x.a.node()
		t.Node, t.Value = n, n.Name
		return yield(t)
	case KindRegex:
		t := x.a.node()
		t.Node, t.Value = n, e.s[i:j]
		return yield(t)
	}
	key := span{int32(n.ID), i, j}
	if x.active[key] {
		return true
	}
	if n.Kind == KindRef {
		if x.depth++; x.depth > MaxDepth {
			x.tooDeep = true
			return false
		}
		defer func() { x.depth-- }()
	}
	x.active[key] = true
	defer delete(x.active, key)
	id := int32(n.ID)

	switch n.Kind {
	case KindRef, KindAlt:
		for _, c := range n.Children {
			if !e.hasDone(int32(c.ID), i, j) {
				continue
			}
			ok := x.build(c, i, j, func(ct *Tree) bool {
				t := x.a.node()
				t.Node, t.Children = n, x.a.children(1)
				t.Children[0] = ct
				return yield(t)
			})
			if !ok {
				return false
			}
		}
		return true

	case KindCat:
		kids := n.Children
		buf := make([]*Tree, len(kids))
		var seq func(k int, end int32) bool
		seq = func(k int, end int32) bool {
			if k == 0 {
				if end != i {
					return true
				}
				t := x.a.node()
				t.Node, t.Children = n, x.a.children(len(buf))
				copy(t.Children, buf)
				return yield(t)
			}
			c := kids[k-1]
			for _, p := range e.done[posNode{end, int32(c.ID)}] {
				if p < i || !e.hasItem(p, item{id, int32(k - 1), i}) {
					continue
				}
				ok := x.build(c, p, end, func(ct *Tree) bool {
					buf[k-1] = ct
					return seq(k-1, p)
				})
				if !ok {
					return false
				}
			}
			return true
		}
		return seq(len(kids), j)

	case KindQuant:
		c := n.Children[0]
		cid := int32(c.ID)
		qcap := quantCap(n)
		var rev []*Tree // children, last first
		var rep func(d, end int32) bool
		rep = func(d, end int32) bool {
			if d == 0 && end == i {
				t := x.a.node()
				t.Node, t.Children = n, x.a.children(len(rev))
				for k, ct := range rev {
					t.Children[len(rev)-1-k] = ct
				}
				return yield(t)
			}
			var preds [2]int32
			np := 0
			if d > 0 {
				preds[np] = d - 1
				np++
			}
			if n.Max == Unbounded && d == qcap {
				preds[np] = d
				np++
			}
			for _, dp := range preds[:np] {
				for _, p := range e.done[posNode{end, cid}] {
					if p < i || p == end && int(dp) >= n.Min || !e.hasItem(p, item{id, dp, i}) {
						continue
					}
					ok := x.build(c, p, end, func(ct *Tree) bool {
						rev = append(rev, ct)
						r := rep(dp, p)
						rev = rev[:len(rev)-1]
						return r
					})
					if !ok {
						return false
					}
				}
			}
			return true
		}
		for d := int32(n.Min); d <= qcap; d++ {
			if e.hasItem(j, item{id, d, i}) && !rep(d, j) {
				return false
			}
		}
		return true
	}
	return true
}

// parseGeneral parses with the Earley parser and returns up to limit trees.
func (g *Graph) parseGeneral(in []byte, limit int) ([]*Tree, error) {
	e := newEarley(g, in)
	if !e.run() {
		return nil, e.failure()
	}
	x := &extractor{e: e, a: newArena(len(in)), active: map[span]bool{}}
	var trees []*Tree
	x.build(g.Root, 0, int32(len(in)), func(t *Tree) bool {
		trees = append(trees, t)
		return len(trees) < limit
	})
	if x.tooDeep {
		return nil, errTooDeep
	}
	if len(trees) == 0 {
		// The chart holds only cyclic derivations of the input, which
		// cannot happen for a productive grammar; say so rather than panic.
		return nil, newParseError(in, len(in), []string{"a finite derivation"})
	}
	return trees, nil
}
