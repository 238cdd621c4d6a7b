package synth

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Input is a generated input with the decisions that produced it: a
// Replay of Choices through a Generator of the same graph yields the same
// tree.
type Input struct {
	Tree    *grammar.Tree
	Text    string
	Choices []int
	// Broken is the number of constraint instances the input breaks,
	// where it was generated to satisfy constraints it could not.
	Broken int
}

// Directed builds a tree that contains the k-path target (ids of the
// generator's graph), closing off everything else with the generator's
// policy. It follows the route to each path element in the order a plain
// expansion visits nodes and records every decision, so the result
// replays. From the root to the first element it takes, at every step, a
// child at the shortest graph distance from it; from one element to the
// next, the only route through synthetic nodes. With x.Reuse the tree is
// built in the previous tree's memory, as by Generate.
func (x *Generator) Directed(target features.Path) (*grammar.Tree, error) {
	g := x.G
	nodes := make([]*grammar.Node, len(target))
	for i, id := range target {
		if nodes[i] = g.Node(id); nodes[i] == nil || !nodes[i].Kind.Symbolic() {
			return nil, fmt.Errorf("node %d of the path is not a symbol of the grammar", id)
		}
		if i > 0 && (nodes[i-1].Kind != grammar.KindRef || !inBody(nodes[i-1].Children[0], nodes[i])) {
			return nil, fmt.Errorf("%s is not a k-path of the grammar", target.Format(g))
		}
	}
	if !g.Reachable(g.Root, nodes[0]) {
		return nil, fmt.Errorf("%s is unreachable from the root", nodes[0])
	}
	if x.Reuse {
		// As in Generate: the previous tree's memory is taken over.
		x.a.reset()
	}
	d := &directed{x: x, path: nodes}
	x.nodes = 0
	return d.toFirst(g.Root, 0), nil
}

// inBody reports whether symbolic node n lies in the right-hand side rooted at body.
func inBody(body, n *grammar.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == body {
			return true
		}
	}
	return false
}

type directed struct {
	x    *Generator
	path []*grammar.Node
}

// toFirst expands n so that it reaches the path's first element.
func (d *directed) toFirst(n *grammar.Node, depth int) *grammar.Tree {
	x, g, target := d.x, d.x.G, d.path[0]
	if n == target {
		return d.along(n, depth, 1)
	}
	// nearest is the first of n's children at the shortest distance
	// from the target, each distance looked up once.
	nearest := func() int {
		best, bestDist := 0, 1<<30
		for i, c := range n.Children {
			if dist := g.Distance(c, target); dist >= 0 && dist < bestDist {
				best, bestDist = i, dist
			}
		}
		return best
	}
	t := x.a.node()
	t.Node = n
	switch n.Kind {
	case grammar.KindRef:
		t.Children = x.a.children(1)
		t.Children[0] = d.toFirst(n.Children[0], depth+1)
	case grammar.KindAlt:
		best := nearest()
		x.force(Point{Node: n, Kind: Alternative, Depth: depth}, best)
		t.Children = x.a.children(1)
		t.Children[0] = d.toFirst(n.Children[best], depth)
	case grammar.KindCat:
		best := nearest()
		t.Children = x.a.children(len(n.Children))
		for i, c := range n.Children {
			if i == best {
				t.Children[i] = d.toFirst(c, depth)
			} else {
				t.Children[i] = x.Expand(c, depth)
			}
		}
	case grammar.KindQuant:
		count := x.force(Point{Node: n, Kind: Repetition, Depth: depth}, max(n.Min, 1))
		t.Children = x.a.children(count)
		t.Children[0] = d.toFirst(n.Children[0], depth)
		for i := 1; i < count; i++ {
			t.Children[i] = x.Expand(n.Children[0], depth)
		}
	default:
		// A terminal that is not the target cannot lead to it; the
		// distances never choose one.
		return x.Expand(n, depth)
	}
	return t
}

// along expands path element i-1 (node n, reached) so that it contains
// elements i.. of the path.
func (d *directed) along(n *grammar.Node, depth, i int) *grammar.Tree {
	x := d.x
	if i == len(d.path) {
		return x.Expand(n, depth)
	}
	// n is a Ref: descend into its right-hand side along the unique route
	// to the next element.
	t := x.a.node()
	t.Node = n
	t.Children = x.a.children(1)
	t.Children[0] = d.inside(n.Children[0], depth+1, i)
	return t
}

// onRoute reports whether node c lies on the route to path element i:
// whether it is the element or one of its ancestors. The chain of
// ancestors is as short as the element is deep in its right-hand side,
// so walking it is cheaper than building a set of it for every element
// of every tree.
func (d *directed) onRoute(c *grammar.Node, i int) bool {
	for m := d.path[i]; m != nil; m = m.Parent {
		if m == c {
			return true
		}
	}
	return false
}

// inside expands a synthetic node on the route to path element i.
func (d *directed) inside(n *grammar.Node, depth, i int) *grammar.Tree {
	x := d.x
	if n == d.path[i] {
		return d.along(n, depth, i+1)
	}
	t := x.a.node()
	t.Node = n
	switch n.Kind {
	case grammar.KindAlt:
		k := 0
		for j, c := range n.Children {
			if d.onRoute(c, i) {
				k = j
			}
		}
		x.force(Point{Node: n, Kind: Alternative, Depth: depth}, k)
		t.Children = x.a.children(1)
		t.Children[0] = d.inside(n.Children[k], depth, i)
	case grammar.KindCat:
		t.Children = x.a.children(len(n.Children))
		for j, c := range n.Children {
			if d.onRoute(c, i) {
				t.Children[j] = d.inside(c, depth, i)
			} else {
				t.Children[j] = x.Expand(c, depth)
			}
		}
	case grammar.KindQuant:
		count := x.force(Point{Node: n, Kind: Repetition, Depth: depth}, max(n.Min, 1))
		t.Children = x.a.children(count)
		t.Children[0] = d.inside(n.Children[0], depth, i)
		for j := 1; j < count; j++ {
			t.Children[j] = x.Expand(n.Children[0], depth)
		}
	default:
		return x.Expand(n, depth)
	}
	return t
}

// CoverOptions configure k-path covering and forestation.
type CoverOptions struct {
	K         int
	Seed      uint64
	CloseOff  Policy // how the parts off the targeted path are filled
	MaxDepth  int    // for RandomPolicy close-off; 0 means DefaultMaxDepth
	MaxRepeat int    // 0 means DefaultMaxRepeat

	// Reuse, for CoverFunc and ForestFunc, builds each tree in the memory
	// of the previous one (as Generator.Reuse does): an Input handed to
	// emit, its Tree and its Choices, is valid only until emit returns.
	// A caller that writes each input and forgets it then needs one
	// tree's memory however many inputs are made. Cover and Forest keep
	// their inputs and ignore it.
	Reuse bool
	// NoChoices leaves every Input's Choices nil. Recording them costs
	// time and memory that a caller which does not replay or write them
	// need not pay; the inputs are the same either way.
	NoChoices bool
}

// CoverResult is a k-path covering set.
type CoverResult struct {
	Inputs   []Input        // nil from CoverFunc, which hands them to emit instead
	Graph    *grammar.Graph // the graph the trees belong to
	Targets  int            // |paths_k(G)|
	Elapsed  time.Duration
	Coverage float64 // k-path coverage of the set, by features.Coverage
	// Paths holds the k-paths (for k = 1..K) the set's trees cover, of
	// Graph: what a caller would otherwise walk every tree again for.
	Paths *features.Coverage
}

// Cover generates a k-path covering set (docs/algorithms.md, after Tribble): the
// agenda holds every k-path in seeded random order; for each one not yet
// covered, a tree is grown to contain it and closed off, and every k-path
// of the finished tree leaves the agenda.
func Cover(ctx context.Context, g *grammar.Graph, opts CoverOptions) (*CoverResult, error) {
	opts.Reuse = false // the inputs are kept
	var inputs []Input
	res, err := CoverFunc(ctx, g, opts, func(in Input) error {
		inputs = append(inputs, in)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Inputs = inputs
	return res, nil
}

// CoverFunc generates the k-path covering set Cover does, in the same
// order, but hands each input to emit as soon as it is made instead of
// keeping it: what it holds is the agenda and the k-paths covered so far,
// not the inputs. An error from emit stops the generation and is returned
// as it is. The result's Inputs is nil; Elapsed includes the time spent
// in emit.
func CoverFunc(ctx context.Context, g *grammar.Graph, opts CoverOptions, emit func(Input) error) (*CoverResult, error) {
	start := time.Now()
	agenda, err := features.All(g, opts.K)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(opts.Seed, 1))
	r.Shuffle(len(agenda), func(i, j int) { agenda[i], agenda[j] = agenda[j], agenda[i] })
	cov := features.NewCoverage(g, opts.K)
	res := &CoverResult{Graph: g, Targets: len(agenda), Paths: cov}
	x, rec := opts.generator(g)
	for _, p := range agenda {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if cov.Has(p) {
			continue
		}
		in, err := x.directedInput(p, rec, opts.Reuse)
		if err != nil {
			return nil, err
		}
		// The tree's k-paths are taken before emit, which may be the
		// last to see the tree.
		cov.Add(in.Tree)
		if err := emit(in); err != nil {
			return nil, err
		}
	}
	res.Coverage = cov.Fraction(opts.K)
	res.Elapsed = time.Since(start)
	return res, nil
}

// Forest generates n inputs for correlation studies: each is grown towards
// one k-path drawn uniformly from paths_k(G) and closed off with the
// generator's policy. The prefixes of the sequence span the range of
// k-path coverage, from one input's worth to nearly full.
func Forest(ctx context.Context, g *grammar.Graph, n int, opts CoverOptions) ([]Input, error) {
	opts.Reuse = false // the inputs are kept
	out := make([]Input, 0, max(n, 0))
	err := ForestFunc(ctx, g, n, opts, func(in Input) error {
		out = append(out, in)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ForestFunc generates the n inputs Forest does, in the same order, but
// hands each to emit as soon as it is made instead of keeping it: with
// opts.Reuse its memory does not grow with n. An error from emit stops
// the generation and is returned as it is.
func ForestFunc(ctx context.Context, g *grammar.Graph, n int, opts CoverOptions, emit func(Input) error) error {
	all, err := features.All(g, opts.K)
	if err != nil {
		return err
	}
	if len(all) == 0 && n > 0 {
		return fmt.Errorf("the grammar has no %d-paths to grow inputs towards: use a smaller k", opts.K)
	}
	r := rand.New(rand.NewPCG(opts.Seed, 2))
	x, rec := opts.generator(g)
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		in, err := x.directedInput(all[r.IntN(len(all))], rec, opts.Reuse)
		if err != nil {
			return err
		}
		if err := emit(in); err != nil {
			return err
		}
	}
	return nil
}

// generator returns the generator covering and forestation grow their
// trees with, and the recorder of its choices (nil with NoChoices). The
// recorder passes every decision on unchanged, so the trees do not depend
// on whether there is one.
func (opts CoverOptions) generator(g *grammar.Graph) (*Generator, *Recorder) {
	var c Chooser = NewRandom(opts.Seed)
	var rec *Recorder
	if !opts.NoChoices {
		rec = &Recorder{C: c}
		c = rec
	}
	x := &Generator{G: g, Chooser: c, Policy: opts.CloseOff, MaxDepth: opts.MaxDepth, MaxRepeat: opts.MaxRepeat, Reuse: opts.Reuse}
	return x, rec
}

// directedInput grows the input that contains target. With reuse the
// recorder's slice is reused too: the input is valid until the next one.
func (x *Generator) directedInput(target features.Path, rec *Recorder, reuse bool) (Input, error) {
	if rec != nil {
		if reuse {
			rec.Choices = rec.Choices[:0]
		} else {
			rec.Choices = nil
		}
	}
	t, err := x.Directed(target)
	if err != nil {
		return Input{}, err
	}
	in := Input{Tree: t, Text: t.String()}
	if rec != nil {
		in.Choices = rec.Choices
	}
	return in, nil
}
