package grammar

import "context"

// extractor reads derivation trees off a finished chart.
type extractor struct {
	e     *earley
	a     *arena
	stack []span // derivations being built, outermost first
	depth int    // Refs among them: the nesting of rule expansions
	// m counts the derivations entered against the budget and looks at
	// the context; halt is why the search stopped: errTooDeep, or the
	// meter's error.
	m    meter
	halt error
	// calls counts the calls of build under way. The enumerator passes
	// each finished subtree on to a continuation that builds what follows
	// it, so its calls nest as deep as the tree is large, not as deep as
	// it is nested; past maxEnumerateCalls it stops (cut is set) rather
	// than exhaust the goroutine stack.
	calls int
	cut   bool
	// With countOptions, first sets ambiguous where the chart offered it
	// more than one way to go on: the tree it found may then not be the
	// only one. (Counting costs a parse that wants one tree a third more.)
	countOptions, ambiguous bool
}

// maxEnumerateCalls bounds the calls of build under way, and so the stack
// the enumerator takes: about 800 bytes a call, so 50 MB. An ambiguous
// input whose first tree has more nodes than this gets that tree alone
// (parseGeneral); an unambiguous one is never enumerated.
const maxEnumerateCalls = 1 << 16

// enter starts building a derivation of n over in[i:j]. It refuses one
// that is already being built further up, which would make the tree
// infinite (spans nest, so the derivations over the same span form the
// top of the stack and only they need checking), and one nested more than
// MaxDepth rule expansions deep, which sets halt, as a spent budget and
// a cancelled context do.
func (x *extractor) enter(n *Node, i, j int32) bool {
	if x.m.used++; x.m.used >= x.m.next && x.m.over(len(x.e.in)) {
		x.halt = x.m.err
		return false
	}
	for k := len(x.stack) - 1; k >= 0 && x.stack[k].from == i && x.stack[k].to == j; k-- {
		if x.stack[k].node == int32(n.ID) {
			return false
		}
	}
	if n.Kind == KindRef {
		if x.depth >= MaxDepth {
			x.halt = errTooDeep
			return false
		}
		x.depth++
	}
	x.stack = append(x.stack, span{int32(n.ID), i, j})
	return true
}

// leave ends what enter started.
func (x *extractor) leave(n *Node) {
	if n.Kind == KindRef {
		x.depth--
	}
	x.stack = x.stack[:len(x.stack)-1]
}

// resume undoes leave: the enumerator leaves a derivation while it hands
// the finished tree on, and resumes it to look for its next tree.
func (x *extractor) resume(n *Node, i, j int32) {
	if n.Kind == KindRef {
		x.depth++
	}
	x.stack = append(x.stack, span{int32(n.ID), i, j})
}

// leaf returns the tree of terminal n over in[i:j].
func (x *extractor) leaf(n *Node, i, j int32) *Tree {
	t := x.a.node()
	t.Node = n
	if n.Kind == KindLit {
		t.Value = n.Name
	} else {
		t.Value = x.e.s[i:j]
	}
	return t
}

// build yields every tree of node n deriving in[i:j] until yield returns
// false; it returns false if enumeration was stopped. A derivation that
// would contain itself over the same span is cut, so trees are finite.
func (x *extractor) build(n *Node, i, j int32, yield func(*Tree) bool) bool {
	if x.calls >= maxEnumerateCalls {
		x.cut = true
		return false
	}
	// No defers here: the enumerator's stack is deep, and the runtime
	// adjusts every pending defer each time it grows the stack.
	x.calls++
	var ok bool
	switch {
	case n.Kind == KindLit || n.Kind == KindRegex:
		ok = yield(x.leaf(n, i, j))
	case !x.enter(n, i, j):
		ok = x.halt == nil
	default:
		// A finished tree of n is handed to yield, whose continuation
		// builds what follows n (its siblings and theirs). n is no
		// longer being built then: it must count neither towards the
		// nesting depth (a long list is not deep) nor as a derivation
		// that could contain itself.
		ok = x.expand(n, i, j, func(t *Tree) bool {
			x.leave(n)
			more := yield(t)
			x.resume(n, i, j)
			return more
		})
		x.leave(n)
	}
	x.calls--
	return ok
}

// expand is build for a node that enter has accepted. The kinds are
// read by functions of their own, as first's are.
func (x *extractor) expand(n *Node, i, j int32, yield func(*Tree) bool) bool {
	switch n.Kind {
	case KindRef, KindAlt:
		return x.expandChoice(n, i, j, yield)
	case KindCat:
		return x.expandCat(n, i, j, yield)
	case KindQuant:
		return x.expandQuant(n, i, j, yield)
	}
	return true
}

// expandChoice is expand for a Ref or an Alt: the trees of each child
// that derives in[i:j].
func (x *extractor) expandChoice(n *Node, i, j int32, yield func(*Tree) bool) bool {
	for _, c := range n.Children {
		if !x.e.hasDone(int32(c.ID), i, j) {
			continue
		}
		ok := x.build(c, i, j, func(ct *Tree) bool {
			return yield(x.a.wrap(n, ct))
		})
		if !ok {
			return false
		}
	}
	return true
}

// expandCat is expand for a Cat: its elements' trees are built from the
// last back, each ending where the next one starts.
func (x *extractor) expandCat(n *Node, i, j int32, yield func(*Tree) bool) bool {
	e := x.e
	id := int32(n.ID)
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
		return e.origins(end, int32(c.ID), func(p int32) bool {
			if p < i || !e.hasItem(p, item{id, int32(k - 1), i}) {
				return true
			}
			return x.build(c, p, end, func(ct *Tree) bool {
				buf[k-1] = ct
				return seq(k-1, p)
			})
		})
	}
	return seq(len(kids), j)
}

// expandQuant is expand for a Quant: for each count of repetitions
// that derives in[i:j], its children's trees, built from the last back.
func (x *extractor) expandQuant(n *Node, i, j int32, yield func(*Tree) bool) bool {
	e := x.e
	id := int32(n.ID)
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
		for _, dp := range quantPreds(n, d, qcap) {
			ok := e.origins(end, cid, func(p int32) bool {
				if p < i || p == end && int(dp) >= n.Min || !e.hasItem(p, item{id, dp, i}) {
					return true
				}
				return x.build(c, p, end, func(ct *Tree) bool {
					rev = append(rev, ct)
					r := rep(dp, p)
					rev = rev[:len(rev)-1]
					return r
				})
			})
			if !ok {
				return false
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

// first builds one tree of node n deriving in[i:j] directly, without the
// enumerator's continuations: in a finished chart every split that the
// items allow can be completed, so the first one found is taken. Only
// cutting a cyclic derivation can leave a choice without a tree; first
// then tries the next choice, and returns nil if there is none.
func (x *extractor) first(n *Node, i, j int32) *Tree {
	if n.Kind == KindLit || n.Kind == KindRegex {
		return x.leaf(n, i, j)
	}
	if !x.enter(n, i, j) {
		return nil
	}
	// The kinds are read by functions of their own, so that the frame of
	// first, which every level of a deep tree takes, stays small.
	var t *Tree
	switch n.Kind {
	case KindRef, KindAlt:
		t = x.firstChoice(n, i, j)
	case KindCat:
		t = x.firstCat(n, i, j)
	case KindQuant:
		t = x.firstQuant(n, i, j)
	}
	x.leave(n)
	return t
}

// firstChoice is first for a Ref or an Alt.
func (x *extractor) firstChoice(n *Node, i, j int32) *Tree {
	e := x.e
	if x.countOptions && len(n.Children) > 1 {
		options := 0
		for _, c := range n.Children {
			if e.hasDone(int32(c.ID), i, j) {
				options++
			}
		}
		if options > 1 {
			x.ambiguous = true
		}
	}
	for _, c := range n.Children {
		if !e.hasDone(int32(c.ID), i, j) {
			continue
		}
		if ct := x.first(c, i, j); ct != nil {
			return x.a.wrap(n, ct)
		}
		if x.halt != nil {
			return nil
		}
	}
	return nil
}

// firstCat is first for a Cat.
func (x *extractor) firstCat(n *Node, i, j int32) *Tree {
	e := x.e
	id := int32(n.ID)
	kids := x.a.children(len(n.Children))
	end := j
	for k := len(n.Children); k > 0; k-- {
		c := n.Children[k-1]
		var ct *Tree
		var from int32
		options := 0
		e.origins(end, int32(c.ID), func(p int32) bool {
			if p < i || !e.hasItem(p, item{id, int32(k - 1), i}) {
				return true
			}
			options++
			if ct == nil {
				if ct, from = x.first(c, p, end), p; x.halt != nil {
					return false
				}
			}
			// Once a child is found, go on only to see whether
			// there was a second way to split.
			return ct == nil || options < 2
		})
		if options > 1 {
			x.ambiguous = true
		}
		if ct == nil {
			return nil
		}
		kids[k-1], end = ct, from
	}
	t := x.a.node()
	t.Node, t.Children = n, kids
	return t
}

// firstQuant is first for a Quant.
func (x *extractor) firstQuant(n *Node, i, j int32) *Tree {
	e := x.e
	id := int32(n.ID)
	c := n.Children[0]
	cid := int32(c.ID)
	qcap := quantCap(n)
	if x.countOptions {
		dots := 0
		for d := int32(n.Min); d <= qcap; d++ {
			if e.hasItem(j, item{id, d, i}) {
				dots++
			}
		}
		if dots > 1 {
			x.ambiguous = true
		}
	}
	for d := int32(n.Min); d <= qcap; d++ {
		if !e.hasItem(j, item{id, d, i}) {
			continue
		}
		var rev []*Tree
		end, dot, ok := j, d, true
		for ok && !(dot == 0 && end == i) {
			ok = false
			options := 0
			var nextEnd, nextDot int32
			for _, dp := range quantPreds(n, dot, qcap) {
				e.origins(end, cid, func(p int32) bool {
					if p < i || p == end && int(dp) >= n.Min || !e.hasItem(p, item{id, dp, i}) {
						return true
					}
					options++
					if !ok {
						if ct := x.first(c, p, end); ct != nil {
							rev = append(rev, ct)
							nextEnd, nextDot, ok = p, dp, true
						} else if x.halt != nil {
							return false
						}
					}
					// Once a child is found, go on only to see
					// whether there was a second way to take it.
					return !ok || options < 2
				})
				if ok && options > 1 || x.halt != nil {
					break
				}
			}
			if options > 1 {
				x.ambiguous = true
			}
			end, dot = nextEnd, nextDot
		}
		if !ok {
			continue
		}
		t := x.a.node()
		t.Node, t.Children = n, x.a.children(len(rev))
		for k, ct := range rev {
			t.Children[len(rev)-1-k] = ct
		}
		return t
	}
	return nil
}

// quantPreds returns the dots a Quant item can have had before its last
// child: one less, and for an unbounded Quant at its cap also the cap.
func quantPreds(n *Node, d, qcap int32) []int32 {
	var preds []int32
	if d > 0 {
		preds = append(preds, d-1)
	}
	if n.Max == Unbounded && d == qcap {
		preds = append(preds, d)
	}
	return preds
}

// parseGeneral parses with the Earley parser and returns up to limit
// trees, within the default budget.
func (g *Graph) parseGeneral(in []byte, limit int) ([]*Tree, error) {
	return g.parseEarley(in, limit, false)
}

// parseEarley is parseGeneral with the chart's item layout chosen (see
// newEarley).
func (g *Graph) parseEarley(in []byte, limit int, wide bool) ([]*Tree, error) {
	return g.parseEarleyContext(context.Background(), in, ParseOptions{Trees: limit}, wide)
}

// parseGeneralContext parses with the Earley parser within the options'
// budget until ctx is done.
func (g *Graph) parseGeneralContext(ctx context.Context, in []byte, opts ParseOptions) ([]*Tree, error) {
	return g.parseEarleyContext(ctx, in, opts, false)
}

func (g *Graph) parseEarleyContext(ctx context.Context, in []byte, opts ParseOptions, wide bool) ([]*Tree, error) {
	var w work
	return g.earleyWork(ctx, in, opts, wide, &w)
}

// work is what a general parse did: the chart's items, and the steps of
// reading its trees (measured against the default budget by the tests).
type work struct{ items, steps int }

// earleyWork is parseEarleyContext, telling w the work done.
func (g *Graph) earleyWork(ctx context.Context, in []byte, opts ParseOptions, wide bool, w *work) ([]*Tree, error) {
	limit, budget := opts.trees(), opts.budget(len(in))
	e := newEarley(g, in, wide)
	defer e.release()
	e.m = newMeter(ctx, budget)
	ok := e.run()
	w.items = e.m.used
	if !ok {
		switch {
		case e.m.err == errBudget:
			return nil, e.blame(budget, e.nsets, false)
		case e.m.err != nil:
			return nil, e.m.err
		}
		return nil, e.failure()
	}
	// Reading the trees gets a budget of its own: the chart may have
	// spent nearly all of its.
	x := &extractor{e: e, a: newArena(len(in)), countOptions: limit > 1, m: newMeter(ctx, budget)}
	defer func() { w.steps = x.m.used }()
	t := x.first(g.Root, 0, int32(len(in)))
	if x.halt != nil {
		return nil, x.stopped(budget)
	}
	if t != nil && (limit == 1 || !x.ambiguous) {
		// first met no choice on its way, so the tree is the only one.
		return []*Tree{t}, nil
	}
	// More trees are wanted, or only cycles stood in the way of the
	// first: the enumerator backtracks further, on what is left of the
	// budget.
	x = &extractor{e: e, a: x.a, m: x.m}
	var trees []*Tree
	x.build(g.Root, 0, int32(len(in)), func(t *Tree) bool {
		trees = append(trees, t)
		return len(trees) < limit
	})
	if x.halt != nil && (x.halt != errBudget || len(trees) == 0 && t == nil) {
		return nil, x.stopped(budget)
	}
	if len(trees) == 0 && t != nil {
		// The tree was too large to enumerate (x.cut), or the budget
		// ran out before the search found it again: it stands alone.
		return []*Tree{t}, nil
	}
	if len(trees) == 0 {
		// The chart holds only cyclic derivations of the input, which
		// cannot happen for a productive grammar; say so rather than panic.
		return nil, newParseError(in, len(in), []string{"a finite derivation"})
	}
	// A spent budget leaves the trees found so far, which are as many
	// as an ambiguous input may give (at most limit).
	return trees, nil
}

// stopped is the error of a search for trees that halted.
func (x *extractor) stopped(budget int) error {
	if x.halt == errBudget {
		return x.e.blame(budget, len(x.e.in), true)
	}
	return x.halt
}
