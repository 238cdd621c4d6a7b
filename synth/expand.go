package synth

import (
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Defaults of the random generator (docs/algorithms.md).
const (
	DefaultMaxDepth  = 30 // rule expansions, as in Grammarinator
	DefaultMaxRepeat = 5  // repetitions of an unbounded quantifier
	// DefaultMaxNodes bounds a tree's size: past it the generator closes
	// off with the shortest choices. A depth bound alone does not bound
	// size where repetitions nest (an argument list inside a call inside
	// an argument list ...) or a rule branches (e op e). A terminal
	// counts as many nodes as it has characters (terminalSize), so that
	// the bound is one on the input's length too.
	DefaultMaxNodes = 10000
	// DefaultSolveMaxNodes bounds the trees the targeting solver builds:
	// past it every decision takes the shortest choice, so that targeted
	// inputs on deep grammars stay small (docs/targeting.md says how it
	// was chosen).
	DefaultSolveMaxNodes = 200
)

// Policy is how an expander fills a node without a target.
type Policy uint8

const (
	// RandomPolicy chooses among the alternatives whose minimum depth fits
	// in the depth bound, and repetition counts up to the bound.
	RandomPolicy Policy = iota
	// ShortestPolicy chooses among the alternatives with the fewest
	// expansions, and the minimum repetition count.
	ShortestPolicy
)

// Generator expands grammar nodes into derivation trees, making every
// decision through its Chooser. A Generator is not safe for concurrent
// use; it reuses its buffers from one tree to the next.
type Generator struct {
	G         *grammar.Graph
	Chooser   Chooser
	Policy    Policy
	MaxDepth  int // 0 means DefaultMaxDepth
	MaxRepeat int // 0 means DefaultMaxRepeat
	MaxNodes  int // 0 means DefaultMaxNodes
	// MaxDistinct, if positive, bounds the distinct values each regex
	// terminal takes in one tree, as Bonsai fuzzing bounds a program's
	// identifiers: once a terminal has values in the tree, a RegexReuse
	// decision takes one of them again or, below the bound, draws a new
	// one. Small bounds make inputs whose names and numbers repeat, which
	// is what makes a declaration and its use meet. 0 means no bound and
	// no RegexReuse decisions.
	MaxDistinct int

	// Placed, if set, is called whenever a symbolic node is added to the
	// tree, with the ids of the symbolic nodes from the root down to it.
	Placed func(stack []int)
	// Finished, if set, is called when the expansion of a symbolic node
	// ends, with the number of symbolic nodes above it: with Placed, it
	// tells which decisions a symbol's subtree made.
	Finished func(depth int)
	// Reuse makes each Generate build its tree in the memory of the
	// previous one, which is then no longer valid: for callers that are
	// done with a tree before asking for the next (streaming generation),
	// memory stays that of one tree, however many are generated.
	Reuse bool

	nodes   int   // nodes of the tree being built
	stack   []int // symbolic ancestors of the node being expanded
	opts    []int
	regexes map[int]*regexGen
	drawn   map[int][]string // MaxDistinct: each regex terminal's values in this tree
	a       arena
}

// NewGenerator returns a generator of g that decides with c.
func NewGenerator(g *grammar.Graph, c Chooser, p Policy) *Generator {
	return &Generator{G: g, Chooser: c, Policy: p}
}

// Generate expands the grammar's root.
func (x *Generator) Generate() *grammar.Tree {
	if x.Reuse {
		x.a.reset()
	} else {
		x.a.detach()
	}
	x.nodes = 0
	x.stack = x.stack[:0]
	for id, vs := range x.drawn {
		x.drawn[id] = vs[:0]
	}
	return x.Expand(x.G.Root, 0)
}

// Expand expands node n at the given depth (rule expansions above it).
func (x *Generator) Expand(n *grammar.Node, depth int) *grammar.Tree {
	t := x.a.node()
	x.nodes++
	t.Node = n
	if n.Kind.Symbolic() {
		x.stack = append(x.stack, n.ID)
		if x.Placed != nil {
			x.Placed(x.stack)
		}
		defer func() {
			x.stack = x.stack[:len(x.stack)-1]
			if x.Finished != nil {
				x.Finished(len(x.stack))
			}
		}()
	}
	switch n.Kind {
	case grammar.KindLit:
		t.Value = n.Name
		x.nodes += terminalSize(t.Value) - 1
	case grammar.KindRegex:
		t.Value = x.regex(n, depth)
		x.nodes += terminalSize(t.Value) - 1
	case grammar.KindRef:
		t.Children = x.a.children(1)
		t.Children[0] = x.Expand(n.Children[0], depth+1)
	case grammar.KindAlt:
		i := x.choose(Point{Node: n, Kind: Alternative, Depth: depth, Options: x.altOptions(n, depth)})
		t.Children = x.a.children(1)
		t.Children[0] = x.Expand(n.Children[i], depth)
	case grammar.KindCat:
		t.Children = x.a.children(len(n.Children))
		for i, c := range n.Children {
			t.Children[i] = x.Expand(c, depth)
		}
	case grammar.KindQuant:
		count := x.repetitions(n, depth)
		t.Children = x.a.children(count)
		for i := range t.Children {
			t.Children[i] = x.Expand(n.Children[0], depth)
		}
	}
	return t
}

// terminalSize is what a terminal's value counts towards MaxNodes: its
// characters, at least 1. Counted as one node, a regular expression that
// draws a run of runs (an imported grammar's hidden-material gap,
// (?:[ \t\r\n]+)*, up to 25 characters a gap, and one after every
// token) made inputs several times longer than their node count, as
// long in bytes as the budget is in nodes.
func terminalSize(v string) int { return max(1, utf8.RuneCountInString(v)) }

func (x *Generator) choose(p Point) int {
	p.Stack = x.stack
	return x.Chooser.Choose(p)
}

// force records a decision made to reach a target, for replay.
func (x *Generator) force(p Point, v int) int {
	if f, ok := x.Chooser.(forcer); ok {
		f.Forced(p, v)
	}
	return v
}

func (x *Generator) maxDepth() int {
	if x.MaxDepth > 0 {
		return x.MaxDepth
	}
	return DefaultMaxDepth
}

// shortest reports whether decisions should take the shortest choice:
// under ShortestPolicy, or once the tree has outgrown its size budget.
func (x *Generator) shortest() bool {
	limit := x.MaxNodes
	if limit <= 0 {
		limit = DefaultMaxNodes
	}
	if x.Policy == ShortestPolicy || x.nodes > limit {
		return true
	}
	c, ok := x.Chooser.(closer)
	return ok && c.closing()
}

// A closer is a chooser that can ask for the shortest completion: while
// closing reports true, every decision is offered only its shortest
// choices (ByteGenerator's chooser, once its bytes have run out).
type closer interface{ closing() bool }

func (x *Generator) maxRepeat() int {
	if x.MaxRepeat > 0 {
		return x.MaxRepeat
	}
	return DefaultMaxRepeat
}

// altOptions lists the children an Alt may take: under RandomPolicy those
// that fit in the depth bound (or, if none does, the shallowest); under
// ShortestPolicy those with the fewest expansions.
func (x *Generator) altOptions(n *grammar.Node, depth int) []int {
	x.opts = x.opts[:0]
	g := x.G
	if x.shortest() {
		best := -1
		for i, c := range n.Children {
			switch s := g.Shortest(c); {
			case best < 0 || s < best:
				best = s
				x.opts = append(x.opts[:0], i)
			case s == best:
				x.opts = append(x.opts, i)
			}
		}
		return x.opts
	}
	shallowest := -1
	for i, c := range n.Children {
		d := g.MinDepth(c)
		if depth+d <= x.maxDepth() {
			x.opts = append(x.opts, i)
		}
		if shallowest < 0 || d < g.MinDepth(n.Children[shallowest]) {
			shallowest = i
		}
	}
	if len(x.opts) == 0 {
		x.opts = append(x.opts, shallowest)
	}
	return x.opts
}

// repetitions decides a Quant's count.
func (x *Generator) repetitions(n *grammar.Node, depth int) int {
	lo, hi := n.Min, n.Max
	if hi == grammar.Unbounded {
		hi = max(lo, x.maxRepeat())
	}
	if x.shortest() || depth+x.G.MinDepth(n.Children[0]) > x.maxDepth() {
		hi = lo
	}
	x.opts = x.opts[:0]
	for c := lo; c <= hi; c++ {
		x.opts = append(x.opts, c)
	}
	return x.choose(Point{Node: n, Kind: Repetition, Depth: depth, Options: x.opts})
}

// Text returns the input a tree derives.
func Text(t *grammar.Tree) string { return t.String() }

// arena allocates tree nodes in blocks: generation builds many small trees.
// It keeps its blocks, so that after reset the next trees are built in
// the same memory, however many blocks a tree took.
type arena struct {
	nodes []grammar.Tree // the block being filled
	kids  []*grammar.Tree
	// With keep, the blocks used, and which of them to take next after
	// a reset; without, a block is forgotten when full, so that the trees
	// handed out hold the only references to their memory.
	keep           bool
	blocks         [][]grammar.Tree
	ptrBlocks      [][]*grammar.Tree
	next, nextKids int
}

const arenaBlock = 1024

func (a *arena) node() *grammar.Tree {
	if len(a.nodes) == cap(a.nodes) {
		if a.next < len(a.blocks) {
			a.nodes = a.blocks[a.next][:0]
		} else {
			a.nodes = make([]grammar.Tree, 0, arenaBlock)
			if a.keep {
				a.blocks = append(a.blocks, a.nodes)
			}
		}
		if a.keep {
			a.next++
		}
	}
	a.nodes = a.nodes[:len(a.nodes)+1]
	return &a.nodes[len(a.nodes)-1]
}

// detach starts the next tree in blocks of its own, unless the arena
// keeps its blocks (then reset rewinds them). Trees that share a block
// keep each other alive: the collector scans a block whole, so a tree
// still in use would hold the tree before it through the pointers of
// its nodes in the shared block, that one the one before it, and so
// on back to the first; a campaign of ten minutes held 24 GB so.
func (a *arena) detach() {
	if !a.keep {
		a.nodes, a.kids = nil, nil
	}
}

// reset makes the arena's memory free for the next tree, which
// overwrites the trees allocated so far; from then on it keeps its blocks.
func (a *arena) reset() {
	if !a.keep {
		// The current blocks were not kept: start keeping from here.
		a.keep = true
		a.nodes, a.kids = nil, nil
		return
	}
	for i := range a.next {
		clear(a.blocks[i][:cap(a.blocks[i])])
	}
	for i := range a.nextKids {
		clear(a.ptrBlocks[i][:cap(a.ptrBlocks[i])])
	}
	a.nodes, a.kids = nil, nil
	a.next, a.nextKids = 0, 0
}

func (a *arena) children(n int) []*grammar.Tree {
	if n == 0 {
		return nil
	}
	if n > arenaBlock/8 {
		return make([]*grammar.Tree, n)
	}
	if len(a.kids)+n > cap(a.kids) {
		if a.nextKids < len(a.ptrBlocks) {
			a.kids = a.ptrBlocks[a.nextKids][:0]
		} else {
			a.kids = make([]*grammar.Tree, 0, arenaBlock)
			if a.keep {
				a.ptrBlocks = append(a.ptrBlocks, a.kids)
			}
		}
		if a.keep {
			a.nextKids++
		}
	}
	s := a.kids[len(a.kids) : len(a.kids)+n : len(a.kids)+n]
	a.kids = a.kids[:len(a.kids)+n]
	return s
}
