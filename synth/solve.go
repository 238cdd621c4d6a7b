package synth

import (
	"container/heap"
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Constraint is a conjunction of k-paths an input must contain (Require)
// and must not contain (Forbid), and of literals over the other feature
// kinds (Checks), as read off a function's decision tree.
type Constraint struct {
	Require []features.Path
	Forbid  []features.Path
	Checks  []FeatureLiteral
}

// Literals is the number of literals of the constraint.
func (c Constraint) Literals() int { return len(c.Require) + len(c.Forbid) + len(c.Checks) }

// SolveOptions bound and shape the search for one constraint.
type SolveOptions struct {
	Seed           uint64
	MaxCompletions int           // inner completions; 0 means 300
	Timeout        time.Duration // 0 means one second
	MaxDepth       int           // depth bound of completions; 0 means DefaultMaxDepth
	// MaxNodes bounds the size of a completion: past it every decision
	// takes the shortest choice; 0 means DefaultSolveMaxNodes.
	MaxNodes int
	// Explore adds seeded noise of this size to the greedy's costs, and
	// as often an extra repetition, so that solving the same constraint
	// again finds other inputs (0 finds the smallest it can).
	Explore float64
}

// Solution is the outcome of solving a constraint.
type Solution struct {
	Tree        *grammar.Tree // the best tree found
	Text        string
	Choices     []int // its decisions, for replay
	Satisfied   bool  // every literal holds (on the generated tree)
	Score       int   // literals that hold
	Completions int
	Elapsed     time.Duration
}

// Solve searches for a tree that satisfies a constraint (docs/algorithms.md).
//
// The inner search completes a partial tree greedily: at each decision it
// takes the option that continues a required k-path whose beginning ends
// the current chain of symbols, or else gets closest (by graph distance)
// to the start of the required k-paths still missing; it never places a
// symbol that would end a forbidden k-path, which is the one place where a
// forbidden path can be judged; everything else closes off with the
// fewest expansions, so inputs stay small.
//
// The outer search is best-first over partial trees, which are prefixes
// of the pre-order decision sequence: a prefix is replayed and completed
// by the inner search, scored by the number of literals the completion
// satisfies, and the best-scoring candidate is expanded next by varying
// one of its decisions. It stops at the first tree that satisfies every
// literal, or when the budget of completions or time is spent.
func Solve(ctx context.Context, g *grammar.Graph, c Constraint, opts SolveOptions) *Solution {
	if opts.MaxCompletions <= 0 {
		opts.MaxCompletions = 300
	}
	if opts.Timeout <= 0 {
		opts.Timeout = time.Second
	}
	if opts.MaxNodes <= 0 {
		opts.MaxNodes = DefaultSolveMaxNodes
	}
	start := time.Now()
	s := &solver{g: g, c: c, opts: opts, r: rand.New(rand.NewPCG(opts.Seed, 3)), check: newChecker(g, c.Checks)}
	s.steer = newSteering(g, c.Checks)
	s.goals = append(slices.Clip(c.Require), s.steer.hints...)
	var best *candidate
	pq := &candidates{}
	try := func(prefix []int) *candidate {
		cand := s.complete(prefix)
		if best == nil || cand.score > best.score || cand.score == best.score && len(cand.text) < len(best.text) {
			best = cand
		}
		heap.Push(pq, cand)
		return cand
	}
	total := c.Literals()
	try(nil)
	for best.score < total && s.completions < opts.MaxCompletions && time.Since(start) < opts.Timeout && ctx.Err() == nil && pq.Len() > 0 {
		cand := heap.Pop(pq).(*candidate)
		// Vary one decision at a time, from the last one back: changing an
		// early decision rebuilds most of the tree.
		for i := len(cand.decisions) - 1; i >= 0 && s.completions < opts.MaxCompletions; i-- {
			d := cand.decisions[i]
			if d.kind != Alternative && d.kind != Repetition {
				continue
			}
			for _, alt := range d.options {
				if alt == cand.choices[i] {
					continue
				}
				prefix := append(slices.Clip(cand.choices[:i]), alt)
				if try(prefix).score == total {
					break
				}
			}
			if best.score == total {
				break
			}
		}
	}
	return &Solution{Tree: best.tree, Text: best.text, Choices: best.choices, Satisfied: best.score == total,
		Score: best.score, Completions: s.completions, Elapsed: time.Since(start)}
}

type solver struct {
	g           *grammar.Graph
	c           Constraint
	opts        SolveOptions
	r           *rand.Rand
	completions int
	check       *checker
	steer       *steering
	goals       []features.Path // the required k-paths, then the steering's hints
}

type decision struct {
	kind    PointKind
	options []int
}

type candidate struct {
	tree      *grammar.Tree
	text      string
	choices   []int
	decisions []decision
	score     int
	order     int
}

// complete replays a prefix of decisions and completes the tree with the
// constraint chooser.
func (s *solver) complete(prefix []int) *candidate {
	s.completions++
	ch := &constraintChooser{s: s, prefix: prefix, satisfied: make([]bool, len(s.goals)), queueNode: -1, charNode: -1}
	// Offer every alternative that fits the depth bound: the chooser prefers
	// short ones itself, through its cost.
	gen := &Generator{G: s.g, Chooser: ch, Policy: RandomPolicy, MaxDepth: s.opts.MaxDepth, MaxNodes: s.opts.MaxNodes}
	gen.Placed = ch.placed
	t := gen.Generate()
	cand := &candidate{tree: t, text: t.String(), choices: ch.choices, decisions: ch.decisions, order: s.completions}
	cand.score = Score(t, s.c)
	if s.check != nil {
		for _, ok := range s.check.holds(t) {
			if ok {
				cand.score++
			}
		}
	}
	return cand
}

// Score counts the k-path literals of a constraint that a tree satisfies
// (Require and Forbid; Checks are counted by the solver, which has the
// grammar they need).
func Score(t *grammar.Tree, c Constraint) int {
	maxK := 0
	for _, p := range append(slices.Clip(c.Require), c.Forbid...) {
		maxK = max(maxK, len(p))
	}
	if maxK == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, ps := range features.Extract(t, maxK) {
		for _, p := range ps {
			have[p.Key()] = true
		}
	}
	score := 0
	for _, p := range c.Require {
		if have[p.Key()] {
			score++
		}
	}
	for _, p := range c.Forbid {
		if !have[p.Key()] {
			score++
		}
	}
	return score
}

// constraintChooser is the inner search's greedy chooser.
type constraintChooser struct {
	s         *solver
	prefix    []int
	choices   []int
	decisions []decision
	satisfied []bool
	extra     int // speculative repetitions made

	drawn     map[int]bool // terminals whose value has been drawn in this completion
	queue     []int        // regex decisions deriving a value, for terminal queueNode
	queueNode int
	charNode  int // terminal whose characters are being drawn, and how many so far
	chars     int
}

func (ch *constraintChooser) missing() int {
	n := 0
	for _, ok := range ch.satisfied {
		if !ok {
			n++
		}
	}
	return n
}

func (ch *constraintChooser) placed(stack []int) {
	id := stack[len(stack)-1]
	if dec, ok := ch.s.steer.values[id]; ok && !ch.drawn[id] {
		if ch.drawn == nil {
			ch.drawn = map[int]bool{} // only constraints with values draw any
		}
		ch.drawn[id] = true
		ch.queue, ch.queueNode = dec, id
	}
	if ch.charNode == id {
		ch.charNode = -1 // a new instance of the terminal
	}
	for i, p := range ch.s.goals {
		if !ch.satisfied[i] && endsWith(stack, p) {
			ch.satisfied[i] = true
		}
	}
}

func endsWith(stack []int, p features.Path) bool {
	if len(p) > len(stack) {
		return false
	}
	return slices.Equal(stack[len(stack)-len(p):], p)
}

func (ch *constraintChooser) Choose(p Point) int {
	n := len(ch.choices)
	var v int
	switch {
	case p.Kind >= RegexAlternative && p.Node.ID == ch.queueNode && len(ch.queue) > 0:
		// Drawing a learned value: its derivation decides (and a replayed
		// prefix recorded the same decisions, since the outer search
		// never varies regex decisions).
		v, ch.queue = ch.queue[0], ch.queue[1:]
		if n < len(ch.prefix) {
			v = ch.prefix[n]
		}
	case n < len(ch.prefix):
		v = ch.prefix[n]
	default:
		v = ch.greedy(p)
	}
	if p.Kind == RegexChar {
		if ch.charNode != p.Node.ID {
			ch.charNode, ch.chars = p.Node.ID, 0
		}
		ch.chars++
	}
	ch.choices = append(ch.choices, v)
	ch.decisions = append(ch.decisions, decision{p.Kind, slices.Clone(p.Options)})
	return v
}

const unreachable = 1000

// greedy picks the option with the lowest cost.
func (ch *constraintChooser) greedy(p Point) int {
	if len(p.Options) == 1 {
		return p.Options[0]
	}
	switch p.Kind {
	case Alternative:
		best, bestCost := p.Options[0], -1.0
		for _, i := range p.Options {
			cost := ch.cost(p.Node.Children[i], p.Stack) + ch.s.r.Float64()*(0.01+ch.s.opts.Explore)
			if bestCost < 0 || cost < bestCost {
				best, bestCost = i, cost
			}
		}
		return best
	case Repetition, RegexRepetition:
		switch ch.s.steer.repetition(ch.s.g, p) {
		case 1:
			return slices.Max(p.Options)
		case -1:
			return slices.Min(p.Options)
		}
		if p.Kind == RegexRepetition {
			return p.Options[0]
		}
		// Repeat once more than the minimum only if the repeated part
		// continues a missing required path or starts one close by (within
		// four edges): in a
		// recursive grammar every path is reachable from everywhere, and
		// repeating at every level would double the tree per level.
		if ch.s.opts.Explore > 0 && ch.s.r.Float64() < ch.s.opts.Explore/(1+ch.s.opts.Explore)/4 {
			return p.Options[ch.s.r.IntN(len(p.Options))]
		}
		if p.Node.Min == 0 && slices.Contains(p.Options, 1) {
			switch d := ch.nearest(p.Node.Children[0], p.Stack); {
			case d <= 4:
				return 1
			case d < unreachable && ch.extra < ch.missing():
				// A farther path may need a repetition of its own (two
				// members of one object); allow as many such repetitions
				// per completion as there are missing paths.
				ch.extra++
				return 1
			}
		}
		return p.Options[0]
	case RegexChar:
		instance := 0
		if ch.charNode == p.Node.ID {
			instance = ch.chars
		}
		if v, ok := ch.s.steer.regexChar(p.Node.ID, p, instance, func(opts []int) int { return opts[ch.s.r.IntN(len(opts))] }); ok {
			return v
		}
		return p.Options[ch.s.r.IntN(len(p.Options))]
	}
	return p.Options[0]
}

// nearest is the smallest distance from c to a missing required path (0
// if c continues one).
func (ch *constraintChooser) nearest(c *grammar.Node, stack []int) int {
	best := unreachable
	for i, p := range ch.s.goals {
		if !ch.satisfied[i] {
			best = min(best, ch.distance(c, stack, p))
		}
	}
	return best
}

// cost of expanding child c under the symbolic ancestors stack: a forbidden
// k-path completed by c costs most; each missing required path adds how
// far c is from it (nothing if c continues it).
func (ch *constraintChooser) cost(c *grammar.Node, stack []int) float64 {
	g := ch.s.g
	cost := 0.0
	if c.Kind.Symbolic() {
		for _, f := range ch.s.c.Forbid {
			if len(f) > 0 && f[len(f)-1] == c.ID && endsWith(stack, f[:len(f)-1]) {
				cost += 100 * unreachable
			}
		}
	}
	for i, p := range ch.s.goals {
		if !ch.satisfied[i] {
			cost += float64(ch.distance(c, stack, p))
		}
	}
	return cost + 0.001*float64(g.Shortest(c))
}

// distance of choosing c from required path p: 0 if the stack ends with
// a beginning of p and c is on the route to its next element inside the
// current right-hand side; else one more than the graph distance from c
// to p's first element; unreachable if there is none.
func (ch *constraintChooser) distance(c *grammar.Node, stack []int, p features.Path) int {
	g := ch.s.g
	for j := min(len(p)-1, len(stack)); j >= 1; j-- {
		if endsWith(stack, p[:j]) {
			if next := g.Node(p[j]); next != nil && onRoute(c, next) {
				return 0
			}
			break
		}
	}
	if dist := g.Distance(c, g.Node(p[0])); dist >= 0 {
		return 1 + dist
	}
	return unreachable
}

// onRoute reports whether symbolic node target is c or lies below c
// through synthetic nodes only.
func onRoute(c, target *grammar.Node) bool {
	for n := target; n != nil; n = n.Parent {
		if n == c {
			return true
		}
	}
	return false
}

// candidates is a max-heap by score, then by size, then by age.
type candidates []*candidate

func (h candidates) Len() int { return len(h) }
func (h candidates) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score
	}
	if len(h[i].text) != len(h[j].text) {
		return len(h[i].text) < len(h[j].text)
	}
	return h[i].order < h[j].order
}
func (h candidates) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candidates) Push(x any)   { *h = append(*h, x.(*candidate)) }
func (h *candidates) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
