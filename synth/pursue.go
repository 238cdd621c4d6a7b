package synth

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
)

// Runner runs inputs on the program under test and tells which of its
// functions each ran. A coverage.Session is one (see SessionRunner); a
// test can be another.
type Runner interface {
	// Functions names the functions Result.Covered indexes.
	Functions() []string
	Run(ctx context.Context, input []byte) (*coverage.Result, error)
}

// SessionRunner runs inputs through a recording session.
type SessionRunner struct {
	Session *coverage.Session
	Timeout time.Duration // per input; 0 means 10 seconds
}

// Functions are the session's instrumented functions.
func (r *SessionRunner) Functions() []string { return r.Session.Funcs.Names }

// Run records one input.
func (r *SessionRunner) Run(ctx context.Context, input []byte) (*coverage.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := r.Timeout
	if t <= 0 {
		t = 10 * time.Second
	}
	return r.Session.Record(input, t)
}

// PursueOptions bound and shape one function's targeting loop.
type PursueOptions struct {
	Want   int           // inputs that run the function; 0 means 10
	Budget int           // executions at most; 0 means 10 per wanted input
	Time   time.Duration // wall time at most; 0 means no limit
	// MaxGini is the most gini a leaf may have to make a constraint; 0
	// means learn.EveryLeaf (every leaf with positive rows).
	MaxGini float64
	Batch   int // inputs run per round, between refits; 0 means 10
	Solve   SolveOptions
	Seed    uint64
	// NoLearn keeps the model's tree as it is (no refit) and leaves out
	// the mutation of inputs that ran the function: the loop then only
	// verifies what the first tree proposes.
	NoLearn bool
	// Progress, if set, is called after every round.
	Progress func(*Pursuit)
}

// Pursuit is what a targeting loop did for one function.
type Pursuit struct {
	Function string
	Wanted   int
	// Inputs ran the function (verified), in the order found; at most
	// Wanted.
	Inputs []PursuedInput
	// Executions counts every run of the program the loop made, for
	// whatever purpose; Produced the distinct inputs it generated (some
	// found already run, or not parsing back, were not run again).
	Executions, Produced int
	// FirstHit is the number of executions up to and including the one
	// that first ran the function; 0 if none did.
	FirstHit int
	Rounds   int
	Elapsed  time.Duration
	// Constraints are those of the last tree; Stopped says why the loop
	// ended: "done", "budget", "time", "stalled" or "canceled".
	Constraints int
	Stopped     string
	// Sources counts the executions by where their input came from:
	// "constraint", "mutation", "splice", "random", "closest".
	Sources map[string]int
	// Hits counts, by the same sources, the executions that ran the
	// function.
	Hits map[string]int
	// Tree is the function's tree after the last refit (its positives
	// include what the loop ran).
	Tree learn.FunctionModel
}

// PursuedInput is an input that ran the pursued function.
type PursuedInput struct {
	Text    string
	Choices []int  // its choice sequence, for replay (Mutator.Realize)
	Source  string // how it was made
	Round   int
	// Execution is the loop's execution (1-based) that ran it, or 0 for
	// an input an earlier pursuit of the same Loop had run.
	Execution int
}

// Loop is the targeting loop of Alhazen, on arbor's model: solve a
// function's constraints, run the inputs, add what they covered to the
// training data, refit the function's tree, and solve its new
// constraints, until enough inputs verifiably run the function or the
// budget is spent. Inputs that ran the function are mutated (Zest-style
// span mutation and subtree splicing over choice sequences) as well,
// and when the tree offers nothing the loop mutates the inputs its tree
// rates closest. One Loop keeps what every pursuit learned: rows added
// while pursuing one function refine every later tree, and an input run
// once is never run again. A Loop is not safe for concurrent use.
type Loop struct {
	p      *learn.Predictor
	g      *grammar.Graph
	data   *learn.Dataset
	run    Runner
	opts   learn.TrainOptions
	ids    []int            // runner function id -> dataset function id, or -1
	ran    map[string][]int // input text -> dataset functions it covered (nil: not a row)
	trees  map[int]learn.FunctionModel
	bounds SolveOptions
}

// NewLoop starts a loop on a model (through its predictor) that runs
// inputs with run. Its training data is the model's (Model.Dataset).
func NewLoop(p *learn.Predictor, run Runner) (*Loop, error) {
	d, err := p.Model.Dataset()
	if err != nil {
		return nil, err
	}
	l := &Loop{p: p, g: p.Graph, data: d, run: run, opts: p.Model.TrainOptions(), ran: map[string][]int{}, trees: map[int]learn.FunctionModel{}}
	index := map[string]int{}
	for i, name := range d.Functions {
		index[name] = i
	}
	for _, name := range run.Functions() {
		id, ok := index[name]
		if !ok {
			id = -1
		}
		l.ids = append(l.ids, id)
	}
	return l, nil
}

// Functions are the functions the loop can pursue: the model's, then the
// recorded functions no training input ran.
func (l *Loop) Functions() []string { return l.data.Functions }

// Model returns the model with the trees the loop refitted and its
// training data grown by every row the loop ran, ready to save.
func (l *Loop) Model() *learn.Model {
	m := *l.p.Model
	m.Functions = slices.Clone(m.Functions)
	m.SaveData(l.data, l.trees)
	return &m
}

// Pursue runs the loop for one function (by name).
func (l *Loop) Pursue(ctx context.Context, function string, opts PursueOptions) (*Pursuit, error) {
	f := slices.Index(l.data.Functions, function)
	if f < 0 {
		return nil, fmt.Errorf("the model has no function %q", function)
	}
	if opts.Want <= 0 {
		opts.Want = 10
	}
	if opts.Budget <= 0 {
		opts.Budget = 10 * opts.Want
	}
	if opts.Batch <= 0 {
		opts.Batch = 10
	}
	if opts.MaxGini <= 0 {
		opts.MaxGini = learn.EveryLeaf
	}
	ps := &pursuer{l: l, f: f, opts: opts, start: time.Now(),
		res:      &Pursuit{Function: function, Wanted: opts.Want, Sources: map[string]int{}, Hits: map[string]int{}},
		mut:      &Mutator{G: l.g, MaxDepth: opts.Solve.MaxDepth, MaxRepeat: DefaultMaxRepeat, MaxNodes: solveMaxNodes(opts.Solve)},
		attempts: map[string]int{}, dead: map[string]bool{}, seen: map[string]bool{}}
	ps.mut.r = rand.New(rand.NewPCG(opts.Seed, uint64(f)+0x70))
	ps.rnd = rand.New(rand.NewPCG(opts.Seed, uint64(f)+0x71))
	ps.tree = l.tree(f)
	// Inputs an earlier pursuit ran and that ran this function count at once.
	for text, covered := range l.sortedRan() {
		if slices.Contains(covered, f) && len(ps.res.Inputs) < opts.Want {
			ps.res.Inputs = append(ps.res.Inputs, PursuedInput{Text: text, Source: "earlier"})
			ps.seen[text] = true
		}
	}
	err := ps.loop(ctx)
	ps.res.Elapsed = time.Since(ps.start)
	ps.res.Tree = ps.tree
	return ps.res, err
}

func solveMaxNodes(o SolveOptions) int {
	if o.MaxNodes > 0 {
		return o.MaxNodes
	}
	return DefaultSolveMaxNodes
}

// sortedRan yields the inputs run so far in a fixed order, so that a
// pursuit does not depend on map order.
func (l *Loop) sortedRan() func(yield func(string, []int) bool) {
	return func(yield func(string, []int) bool) {
		keys := make([]string, 0, len(l.ran))
		for k := range l.ran {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, l.ran[k]) {
				return
			}
		}
	}
}

// tree is function f's current tree: refitted by the loop, the model's,
// or (for a function without one) fitted on the data as it is.
func (l *Loop) tree(f int) learn.FunctionModel {
	if t, ok := l.trees[f]; ok {
		return t
	}
	if f < len(l.p.Model.Functions) {
		return l.p.Model.Functions[f]
	}
	return l.data.Refit(f, l.opts)
}

type pursuer struct {
	l     *Loop
	f     int
	opts  PursueOptions
	res   *Pursuit
	tree  learn.FunctionModel
	mut   *Mutator
	rnd   *rand.Rand
	start time.Time

	attempts map[string]int  // constraint key -> times solved
	dead     map[string]bool // constraints the solver found no input for
	seen     map[string]bool // texts this pursuit has tried
	hits     []*tried        // inputs that ran the function, with their derivations
	pool     []*tried        // every input this pursuit ran, for the fallback
	rank     int             // round-robin position over the constraints
}

// tried is an input the loop made, ready to run: its text, its choice
// sequence, its features and where it came from.
type tried struct {
	text    string
	choices []int
	feats   []int
	source  string
	closer  float64 // how close the current tree rates it: its leaf's precision
	rarity  float64 // how rare what it covered is
	covered []int   // the dataset functions it ran
	deriv   *Derivation
}

func (ps *pursuer) over() string {
	switch {
	case len(ps.res.Inputs) >= ps.opts.Want:
		return "done"
	case ps.res.Executions >= ps.opts.Budget:
		return "budget"
	case ps.opts.Time > 0 && time.Since(ps.start) >= ps.opts.Time:
		return "time"
	}
	return ""
}

func (ps *pursuer) loop(ctx context.Context) error {
	idle := 0
	for {
		if why := ps.over(); why != "" {
			ps.res.Stopped = why
			return nil
		}
		if ctx.Err() != nil {
			ps.res.Stopped = "canceled"
			return ctx.Err()
		}
		if idle >= 3 {
			ps.res.Stopped = "stalled"
			return nil
		}
		ps.res.Rounds++
		batch := ps.propose(ctx, min(ps.opts.Batch, ps.opts.Budget-ps.res.Executions))
		if len(batch) == 0 {
			idle++
			continue
		}
		idle = 0
		learned := false
		for _, t := range batch {
			if ps.over() != "" {
				break
			}
			added, err := ps.execute(ctx, t)
			if err != nil {
				return err
			}
			learned = learned || added
		}
		if learned && !ps.opts.NoLearn {
			ps.tree = ps.l.data.Refit(ps.f, ps.l.opts)
			ps.l.trees[ps.f] = ps.tree
		}
		if ps.opts.Progress != nil {
			ps.opts.Progress(ps.res)
		}
	}
}

// execute runs one input, adds its row to the training data, and keeps it
// if it ran the function. It reports whether a row was added.
func (ps *pursuer) execute(ctx context.Context, t *tried) (bool, error) {
	res, err := ps.l.run.Run(ctx, []byte(t.text))
	if err != nil {
		return false, fmt.Errorf("running a targeted input: %w", err)
	}
	ps.res.Executions++
	ps.res.Sources[t.source]++
	var covered []int
	for _, id := range res.Covered {
		if id >= 0 && id < len(ps.l.ids) && ps.l.ids[id] >= 0 {
			covered = append(covered, ps.l.ids[id])
		}
	}
	slices.Sort(covered)
	// Runs cut short by a crash or a timeout are not learned from, as in
	// training: their coverage is incomplete.
	row := res.Outcome != coverage.Panic && res.Outcome != coverage.Timeout
	if row {
		ps.l.data.AddRow(t.feats, covered)
		ps.l.ran[t.text] = covered
	} else {
		ps.l.ran[t.text] = nil
	}
	t.covered = covered
	ps.pool = append(ps.pool, t)
	if slices.Contains(covered, ps.f) {
		ps.res.Hits[t.source]++
		if ps.res.FirstHit == 0 {
			ps.res.FirstHit = ps.res.Executions
		}
		ps.hits = append(ps.hits, t)
		ps.res.Inputs = append(ps.res.Inputs, PursuedInput{Text: t.text, Choices: t.choices, Source: t.source, Round: ps.res.Rounds, Execution: ps.res.Executions})
	}
	return row, nil
}

// propose makes up to n new inputs: mutants of the inputs that ran the
// function (half, once there are any), solutions of the tree's
// constraints, best ranked first, and, where those run dry, mutants of
// the inputs the tree rates closest.
func (ps *pursuer) propose(ctx context.Context, n int) []*tried {
	var out []*tried
	add := func(t *tried) bool {
		if t == nil || ps.seen[t.text] {
			return false
		}
		ps.seen[t.text] = true
		ps.res.Produced++
		if covered, ok := ps.l.ran[t.text]; ok {
			// Run by an earlier pursuit: no need to run it again.
			if slices.Contains(covered, ps.f) && len(ps.res.Inputs) < ps.opts.Want {
				ps.res.Inputs = append(ps.res.Inputs, PursuedInput{Text: t.text, Choices: t.choices, Source: t.source, Round: ps.res.Rounds})
			}
			return false
		}
		out = append(out, t)
		return true
	}
	if len(ps.hits) > 0 && !ps.opts.NoLearn {
		for tries := 0; len(out) < n/2 && tries < 4*n; tries++ {
			add(ps.mutant(ps.hits))
		}
	}
	cons := ps.l.p.Model.Constraints(&ps.tree, ps.opts.MaxGini)
	ps.res.Constraints = len(cons)
	live := 0
	for _, c := range cons {
		if !ps.dead[ps.key(c)] {
			live++
		}
	}
	for tries := 0; len(out) < n && live > 0 && tries < 2*n && ctx.Err() == nil; tries++ {
		// Round-robin over the live constraints, best ranked first.
		var c learn.Constraint
		for {
			c = cons[ps.rank%len(cons)]
			ps.rank++
			if !ps.dead[ps.key(c)] {
				break
			}
		}
		t := ps.solve(ctx, c)
		if t == nil {
			if ps.dead[ps.key(c)] {
				live--
			}
			continue
		}
		add(t)
	}
	if len(out) < n && !ps.opts.NoLearn || len(out) == 0 && len(ps.pool) == 0 {
		// The tree offers nothing more: mutate what it rates closest, or,
		// with nothing run yet, start from random inputs.
		var closest []*tried
		for tries := 0; len(out) < n && tries < 4*n; tries++ {
			if len(ps.pool) == 0 || ps.rnd.IntN(4) == 0 {
				add(ps.random())
				continue
			}
			if closest == nil {
				closest = ps.closest()
			}
			add(ps.mutant(closest))
		}
	}
	return out
}

// key identifies a constraint by its literals, across refits.
func (ps *pursuer) key(c learn.Constraint) string {
	var b strings.Builder
	for _, l := range c.Literals {
		fmt.Fprintf(&b, "%d%v,", l.Feature, l.Present)
	}
	return b.String()
}

// solve solves a constraint once more (a new seed, more exploration each
// time) and checks the solution on its features.
func (ps *pursuer) solve(ctx context.Context, c learn.Constraint) *tried {
	k := ps.key(c)
	a := ps.attempts[k]
	ps.attempts[k]++
	o := ps.opts.Solve
	o.Seed = ps.opts.Seed + uint64(a)*7919 + uint64(len(k))
	if a > 0 {
		o.Explore = float64(min(a, 4))
	}
	sol := Solve(ctx, ps.l.g, FromModel(ps.l.p.Model, c), o)
	if !sol.Satisfied {
		if a == 0 {
			ps.dead[k] = true // no input at all: spend no more on it
		}
		return nil
	}
	t := ps.prepare(sol.Text, sol.Choices, "constraint")
	if t == nil || !holds(c, t.feats) {
		return nil
	}
	return t
}

// holds reports whether an input with these (sorted) features satisfies c.
func holds(c learn.Constraint, feats []int) bool {
	for _, l := range c.Literals {
		if _, ok := slices.BinarySearch(feats, l.Feature); ok != l.Present {
			return false
		}
	}
	return true
}

// prepare parses a generated input back (what the model will see) and
// reads its features; nil if it does not parse.
func (ps *pursuer) prepare(text string, choices []int, source string) *tried {
	if ps.seen[text] {
		return nil
	}
	feats, err := ps.l.p.Features([]byte(text))
	if err != nil {
		return nil
	}
	slices.Sort(feats)
	return &tried{text: text, choices: choices, feats: feats, source: source}
}

// mutant mutates or splices one of the given inputs.
func (ps *pursuer) mutant(from []*tried) *tried {
	if len(from) == 0 {
		return nil
	}
	a := from[ps.rnd.IntN(len(from))]
	source := "mutation"
	var choices []int
	if len(from) > 1 && ps.rnd.IntN(3) == 0 {
		b := from[ps.rnd.IntN(len(from))]
		choices = ps.mut.Splice(ps.derivation(a), ps.derivation(b))
		source = "splice"
	} else {
		choices = ps.mut.Mutate(a.choices)
	}
	if len(ps.hits) == 0 {
		source = "closest"
	}
	d := ps.mut.Realize(choices)
	t := ps.prepare(d.Text, d.Choices, source)
	if t != nil {
		t.deriv = d
	}
	return t
}

func (ps *pursuer) derivation(t *tried) *Derivation {
	if t.deriv == nil {
		t.deriv = ps.mut.Realize(t.choices)
	}
	return t.deriv
}

// random generates a grammar-random input within the solver's bounds.
func (ps *pursuer) random() *tried {
	d := ps.mut.Realize(nil)
	t := ps.prepare(d.Text, d.Choices, "random")
	if t != nil {
		t.deriv = d
	}
	return t
}

// closest returns the inputs run so far that the current tree rates
// most likely to run the function (the precision of the leaf they
// reach), at most eight. Where the tree cannot tell them apart (a
// function no row ran has a tree of one leaf), those that ran the
// rarest functions come first, as in FairFuzz: code few inputs reach
// lies nearest to code none has reached.
func (ps *pursuer) closest() []*tried {
	nodes := ps.tree.Tree.Nodes
	counts := make([]int, len(ps.l.data.Labels))
	for f, l := range ps.l.data.Labels {
		counts[f] = l.Count()
	}
	for _, t := range ps.pool {
		leaf := &nodes[ps.tree.Tree.Leaf(func(f int) bool { _, ok := slices.BinarySearch(t.feats, f); return ok })]
		t.closer = float64(leaf.Pos+1) / float64(leaf.Pos+leaf.Neg+2)
		t.rarity = 0
		for _, f := range t.covered {
			t.rarity += 1 / float64(1+counts[f])
		}
	}
	best := slices.Clone(ps.pool)
	slices.SortStableFunc(best, func(a, b *tried) int {
		switch {
		case a.closer != b.closer:
			return cmp.Compare(b.closer, a.closer)
		case a.rarity != b.rarity:
			return cmp.Compare(b.rarity, a.rarity)
		}
		return len(a.text) - len(b.text)
	})
	return best[:min(8, len(best))]
}
