package targeting

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// PursueOptions bound and shape one function's targeting loop.
type PursueOptions struct {
	Want   int           // inputs that run the function; 0 means 10
	Budget int           // executions at most; 0 means 10 per wanted input
	Time   time.Duration // wall time at most; 0 means no limit
	// MaxGini is the most gini a leaf may have to make a constraint; 0
	// means learn.EveryLeaf (every leaf with positive rows).
	MaxGini float64
	Batch   int // inputs run per round, between refits; 0 means 10
	Solve   synth.SolveOptions
	Seed    uint64
	// NoLearn keeps the model's tree as it is (no refit) and leaves out
	// the mutation of inputs that ran the function: the loop then only
	// verifies what the first tree proposes.
	NoLearn bool
	// Progress, if set, is called after every round.
	Progress func(*Pursuit)
	// Constraints, if set, are constraints every input the loop runs
	// must satisfy (the grammar's where clauses): an input that breaks
	// one is repaired by a synth.Satisfier before it runs, or dropped
	// (Pursuit.Repaired, Dropped).
	Constraints *constraint.Set
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
	// With PursueOptions.Constraints: the inputs repaired before they
	// ran, dropped unrun, and run although they break a constraint
	// (after synth.MaxDrops drops in a row).
	Repaired, Dropped, BrokenRuns int
}

// PursuedInput is an input that ran the pursued function.
type PursuedInput struct {
	Text    string
	Choices []int  // its choice sequence, for replay (synth.Mutator.Realize)
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
	p     *learn.Predictor
	g     *grammar.Graph
	data  *learn.Dataset
	run   coverage.Runner
	opts  learn.TrainOptions
	ids   []int            // runner function id -> dataset function id, or -1
	ran   map[string][]int // input text -> dataset functions it covered (nil: not a row)
	trees map[int]learn.FunctionModel
}

// NewLoop starts a loop on a model (through its predictor) that runs
// inputs with run. Its training data is the model's (Model.Dataset).
func NewLoop(p *learn.Predictor, run coverage.Runner) (*Loop, error) {
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
	// Every random stream is seeded by (seed, function): functions
	// pursued with one seed draw differently.
	ladder := sizeLadder(opts.Solve)
	ps := &pursuer{l: l, f: f, opts: opts, start: time.Now(), tree: l.tree(f), ladder: ladder,
		res: &Pursuit{Function: function, Wanted: opts.Want, Sources: map[string]int{}, Hits: map[string]int{}},
		mut: &synth.Mutator{G: l.g, MaxDepth: opts.Solve.MaxDepth, MaxNodes: ladder[0], Rand: rand.New(rand.NewPCG(opts.Seed, uint64(f)+0x70))},
		rnd: rand.New(rand.NewPCG(opts.Seed, uint64(f)+0x71)), src: rand.NewPCG(opts.Seed, uint64(f)+0x72),
		stats: map[string]armStats{}, families: map[string]armStats{}, sizes: map[string]sizeStats{},
		attempts: map[string]int{}, dead: map[string]bool{}, seen: map[string]bool{}}
	if opts.Constraints.Len() > 0 {
		ps.cons = synth.NewAdmitter(opts.Constraints, opts.Seed+uint64(f)<<20, nil)
	}
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
	mut   *synth.Mutator
	rnd   *rand.Rand // picks parents and mutations
	start time.Time

	ladder        []int                // size bounds of random inputs and mutants
	level, misses int                  // the bound in use; random misses in a row at it
	stats         map[string]armStats  // per constraint
	families      map[string]armStats  // per family of arms, discounted
	sizes         map[string]sizeStats // per family of arms
	src           *rand.PCG            // for the bandit's samples
	attempts      map[string]int       // constraint key -> times solved
	dead          map[string]bool      // constraints the solver found no input for
	seen          map[string]bool      // texts this pursuit has tried
	hits          []*tried             // inputs that ran the function, with their derivations
	pool          []*tried             // every input this pursuit ran, for the fallback
	rank          int                  // round-robin position over the constraints
	cons          *synth.Admitter      // with PursueOptions.Constraints
	// relational: per constraint key, the Admitter of the inputs solved
	// for a constraint with relational literals (nil: ps.cons serves).
	relational map[string]*synth.Admitter
}

// tried is an input the loop made, ready to run: its text, its choice
// sequence, its features and where it came from.
type tried struct {
	text    string
	choices []int
	feats   []int
	source  string
	family  string  // the bandit's family of arms that made it
	arm     string  // and the constraint, for the constraint family
	closer  float64 // how close the current tree rates it: its leaf's precision
	cooccur float64 // how often what it covered ran with the function
	rarity  float64 // how rare what it covered is
	covered []int   // the dataset functions it ran
	deriv   *synth.Derivation
	// repaired is set for an input the constraints' search changed: its
	// generator's derivation no longer describes it.
	repaired bool
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
	st, fam := ps.stats[t.arm], ps.families[t.family]
	st.runs++
	fam.runs++
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
	hit := slices.Contains(covered, ps.f)
	if t.family == armRandom {
		if hit {
			ps.misses = 0
		} else if ps.misses++; ps.misses >= climbAfter && ps.level+1 < len(ps.ladder) {
			ps.level++
			ps.misses = 0
			ps.mut.MaxNodes = ps.ladder[ps.level]
		}
	}
	if hit {
		st.hits++
		fam.hits++
	}
	if t.arm != "" {
		ps.stats[t.arm] = st
	}
	ps.families[t.family] = fam
	if hit {
		ps.res.Hits[t.source]++
		if ps.res.FirstHit == 0 {
			ps.res.FirstHit = ps.res.Executions
		}
		ps.hits = append(ps.hits, t)
		ps.res.Inputs = append(ps.res.Inputs, PursuedInput{Text: t.text, Choices: t.choices, Source: t.source, Round: ps.res.Rounds, Execution: ps.res.Executions})
	}
	return row, nil
}

// armStats are the runs an arm's inputs made and how many ran the
// function (discounted, for the families of arms).
type armStats struct{ runs, hits float64 }

func (st armStats) sample(a, b float64, src rand.Source) float64 {
	return distuv.Beta{Alpha: a + st.hits, Beta: b + st.runs - st.hits, Src: src}.Rand()
}

// The ways of making inputs: the families of the bandit's arms.
const (
	armConstraint = "constraint" // solve a constraint of the current tree
	armMutation   = "mutation"   // mutate or splice inputs that ran the function
	armClosest    = "closest"    // mutate the inputs the tree rates closest
	armRandom     = "random"     // generate at random
)

// Prior strengths, on top of Jeffreys' Beta(½, ½): a constraint's leaf
// speaks of training inputs, not of the small inputs the solver makes,
// so it counts as a few runs only; the function's base rate was measured
// on random inputs, which is what the random arm makes, so it counts as
// many.
const (
	leafRuns = 4
	baseRuns = 50
	// discount is how much of a family's evidence survives a round: the
	// tree is refitted every round, so what its constraints did rounds
	// ago says less about what they do now.
	discount = 0.8
)

func prior(p, runs float64) (a, b float64) { return 0.5 + p*runs, 0.5 + (1-p)*runs }

// propose makes up to n new inputs. Which way each is made is decided by
// Thompson sampling, in two levels: first a family (the tree's
// constraints, mutating inputs that ran the function, mutating the
// inputs the tree rates closest, random generation), each with a Beta
// posterior of its chance to make an input that runs the function; then,
// for the constraints, one constraint, by its own posterior. Priors come
// from what the tree knows (a leaf's precision; the function's share of
// training rows for random and closest inputs; an even prior for
// mutating inputs that ran it), evidence from the loop's own runs. So the
// loop keeps using what works and turns away from constraints whose
// inputs do not run the function though their leaves say they should:
// a tree's features may not see what matters (whitespace, an input the
// program rejects), and random inputs or mutants then do better. Without
// learning (NoLearn) only the first tree's constraints are used,
// round-robin.
func (ps *pursuer) propose(ctx context.Context, n int) []*tried {
	b := &batch{ps: ps}
	cons := ps.liveConstraints()
	if ps.opts.NoLearn {
		return ps.proposeRoundRobin(ctx, n, cons, b)
	}
	for k, st := range ps.families {
		ps.families[k] = armStats{st.runs * discount, st.hits * discount}
	}
	fams := ps.familyPriors(cons)
	failed := map[string]int{}
	var closest []*tried
	for tries := 0; len(b.out) < n && tries < 8*n && ctx.Err() == nil; tries++ {
		best := ps.chooseFamily(fams, failed)
		if best < 0 {
			break
		}
		var t *tried
		var key string
		switch name := fams[best].name; name {
		case armRandom:
			t = ps.random(ctx)
		case armClosest:
			if closest == nil {
				closest = ps.closest()
			}
			t = ps.mutant(ctx, closest, armClosest)
		case armMutation:
			t = ps.mutant(ctx, ps.hits, "")
		case armConstraint:
			c := ps.pick(cons, failed)
			if c == nil {
				failed[name] = 3
				continue
			}
			key = c.key
			if t = ps.solve(ctx, c); t == nil || ps.seen[t.text] {
				failed[key]++
			}
		}
		if t != nil {
			t.family, t.arm = fams[best].name, key
			sz := ps.sizes[t.family]
			sz.n++
			sz.bytes += len(t.text)
			ps.sizes[t.family] = sz
		}
		// A family that makes nothing new three times is done for the
		// round; the constraints are once each has failed solveTries
		// times: solving costs no execution, so a promising constraint
		// is worth a few tries for an input not made yet.
		if !b.add(t) && fams[best].name != armConstraint {
			failed[fams[best].name]++
		}
	}
	return b.out
}

// batch is the inputs one round proposes.
type batch struct {
	ps  *pursuer
	out []*tried
}

// add keeps t unless it was made before. An input an earlier pursuit
// ran is not run again: it counts at once if it ran the function.
func (b *batch) add(t *tried) bool {
	ps := b.ps
	if t == nil || ps.seen[t.text] {
		return false
	}
	ps.seen[t.text] = true
	ps.res.Produced++
	if covered, ok := ps.l.ran[t.text]; ok {
		if slices.Contains(covered, ps.f) && len(ps.res.Inputs) < ps.opts.Want {
			ps.res.Inputs = append(ps.res.Inputs, PursuedInput{Text: t.text, Choices: t.choices, Source: t.source, Round: ps.res.Rounds})
		}
		return false
	}
	b.out = append(b.out, t)
	return true
}

// liveConstraints is the function's constraints under the current tree,
// without those given up on.
func (ps *pursuer) liveConstraints() []liveConstraint {
	all := ps.l.p.Model.Constraints(&ps.tree, ps.opts.MaxGini)
	ps.res.Constraints = len(all)
	var cons []liveConstraint
	for i := range all {
		if k := constraintKey(all[i]); !ps.dead[k] {
			cons = append(cons, liveConstraint{&all[i], k})
		}
	}
	return cons
}

// proposeRoundRobin is the round without learning: the first tree's
// constraints in turn, and random inputs when there are none.
func (ps *pursuer) proposeRoundRobin(ctx context.Context, n int, cons []liveConstraint, b *batch) []*tried {
	for tries := 0; len(b.out) < n && len(cons) > 0 && tries < 2*n && ctx.Err() == nil; tries++ {
		c := &cons[ps.rank%len(cons)]
		ps.rank++
		b.add(ps.solve(ctx, c))
	}
	if len(b.out) == 0 && len(ps.pool) == 0 {
		for tries := 0; len(b.out) < n && tries < 4*n; tries++ {
			b.add(ps.random(ctx))
		}
	}
	return b.out
}

// family is a way of making inputs with the Beta prior of its chance to
// make one that runs the function.
type family struct {
	name string
	a, b float64
}

// familyPriors lists the families that can make an input this round, in
// the order that wins a tie of sizes (before a family has made
// anything): the solver's inputs are the smallest by construction.
func (ps *pursuer) familyPriors(cons []liveConstraint) []family {
	base := ps.baseRate()
	ra, rb := prior(base, min(baseRuns, float64(ps.l.data.Rows)))
	var fams []family
	if len(cons) > 0 {
		best := 0.0
		for _, c := range cons {
			best = max(best, c.Precision())
		}
		a, b := prior(best, leafRuns)
		fams = append(fams, family{armConstraint, a, b})
	}
	if len(ps.hits) > 0 {
		fams = append(fams, family{armMutation, 0.5, 0.5})
	}
	if len(ps.pool) > 0 {
		a, b := prior(base, leafRuns)
		fams = append(fams, family{armClosest, a, b})
	}
	return append(fams, family{armRandom, ra, rb})
}

// chooseFamily samples each family's chance (Thompson sampling) and
// returns, among those whose sample is close to the best one's, the one
// that makes the smallest inputs: a user reads them, and the solver's
// are small. It returns -1 when every family is done for the round.
func (ps *pursuer) chooseFamily(fams []family, failed map[string]int) int {
	samples := make([]float64, len(fams))
	top := -1.0
	for i, fm := range fams {
		samples[i] = -1
		if failed[fm.name] >= 3 {
			continue // made nothing new this round
		}
		samples[i] = ps.families[fm.name].sample(fm.a, fm.b, ps.src)
		top = max(top, samples[i])
	}
	best := -1
	for i, fm := range fams {
		if samples[i] >= 0 && samples[i] >= nearTop*top && (best < 0 || ps.sizes[fm.name].mean() < ps.sizes[fams[best].name].mean()) {
			best = i
		}
	}
	return best
}

// solveTries is how often per round a constraint may fail to give a new
// input before the round gives up on it.
const solveTries = 5

// nearTop is how close to the best sampled chance a family's must be for
// its smaller inputs to win.
const nearTop = 0.9

// sizeStats are the sizes of the inputs a family made.
type sizeStats struct{ n, bytes int }

// mean is the mean size, 0 before the family made anything (so that
// every family gets tried).
func (s sizeStats) mean() float64 { return float64(s.bytes) / float64(max(1, s.n)) }

// pick chooses one of the live constraints by Thompson sampling on its
// own runs, with its leaf as a weak prior.
func (ps *pursuer) pick(cons []liveConstraint, failed map[string]int) *liveConstraint {
	var best *liveConstraint
	bestV := -1.0
	for i := range cons {
		c := &cons[i]
		if ps.dead[c.key] || failed[c.key] >= solveTries {
			continue
		}
		a, b := prior(c.Precision(), leafRuns)
		if v := ps.stats[c.key].sample(a, b, ps.src); v > bestV {
			best, bestV = c, v
		}
	}
	return best
}

// liveConstraint is a constraint of the current tree with its key.
type liveConstraint struct {
	*learn.Constraint
	key string
}

// baseRate is the pursued function's share of the training data's rows.
func (ps *pursuer) baseRate() float64 {
	if ps.l.data.Rows == 0 {
		return 0
	}
	return float64(ps.l.data.Labels[ps.f].Count()) / float64(ps.l.data.Rows)
}

// constraintKey identifies a constraint by its literals, across refits.
func constraintKey(c learn.Constraint) string {
	var b strings.Builder
	for _, l := range c.Literals {
		fmt.Fprintf(&b, "%d%v,", l.Feature, l.Present)
	}
	return b.String()
}

// solve solves a constraint once more (a new seed, more exploration each
// time) and checks the solution on its features.
func (ps *pursuer) solve(ctx context.Context, c *liveConstraint) *tried {
	k := c.key
	a := ps.attempts[k]
	ps.attempts[k]++
	sc := FromModel(ps.l.p.Model, *c.Constraint)
	adm := ps.admitterFor(c)
	if adm != ps.cons {
		// The relations are the Admitter's to satisfy: the solver cannot
		// steer them, and would count a draw that lacks one a failure.
		sc.Checks = slices.DeleteFunc(sc.Checks, func(l synth.FeatureLiteral) bool { return relationalKind(l.Feature.Kind) })
	}
	sol := synth.Solve(ctx, ps.l.g, sc, solveAgain(ps.opts.Solve, ps.opts.Seed, a, uint64(len(k))))
	if !sol.Satisfied {
		if a == 0 {
			ps.dead[k] = true // no input at all: spend no more on it
		}
		return nil
	}
	t := ps.prepareWith(ctx, adm, sol.Tree, sol.Text, sol.Choices, "constraint")
	if t == nil || !holds(*c.Constraint, t.feats) {
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
// reads its features; nil if it does not parse. tree is the derivation
// the generator made of text, which the grammar's constraints judge
// (and a repair changes).
func (ps *pursuer) prepare(ctx context.Context, tree *grammar.Tree, text string, choices []int, source string) *tried {
	return ps.prepareWith(ctx, ps.cons, tree, text, choices, source)
}

// prepareWith is prepare with the Admitter cons (nil: none).
func (ps *pursuer) prepareWith(ctx context.Context, cons *synth.Admitter, tree *grammar.Tree, text string, choices []int, source string) *tried {
	if ps.seen[text] {
		return nil
	}
	repaired := false
	if cons != nil {
		var ok bool
		if text, choices, repaired, ok = ps.admit(ctx, cons, tree, text, choices); !ok || ps.seen[text] {
			return nil
		}
	}
	feats, err := ps.l.p.Features([]byte(text))
	if err != nil {
		return nil
	}
	slices.Sort(feats)
	return &tried{text: text, choices: choices, feats: feats, source: source, repaired: repaired}
}

// mutant mutates or splices one of the given inputs; source, if set,
// names the result's source instead of "mutation" or "splice".
func (ps *pursuer) mutant(ctx context.Context, from []*tried, source string) *tried {
	if len(from) == 0 {
		return nil
	}
	a := from[ps.rnd.IntN(len(from))]
	var choices []int
	if len(from) > 1 && ps.rnd.IntN(3) == 0 {
		b := from[ps.rnd.IntN(len(from))]
		choices = ps.mut.Splice(ps.derivation(a), ps.derivation(b))
		if source == "" {
			source = "splice"
		}
	} else {
		choices = ps.mut.Mutate(a.choices)
		if source == "" {
			source = "mutation"
		}
	}
	d := ps.mut.Realize(choices)
	t := ps.prepare(ctx, d.Tree, d.Text, d.Choices, source)
	if t != nil && !t.repaired {
		t.deriv = d // else its derivation is made when needed
	}
	return t
}

func (ps *pursuer) derivation(t *tried) *synth.Derivation {
	if t.deriv == nil {
		t.deriv = ps.mut.Realize(t.choices)
	}
	return t.deriv
}

// sizeLadder are the size bounds (tree nodes) random inputs and mutants
// are made with, smallest first: a quarter of the solver's bound, the
// solver's bound, five times that, and the generator's default, with
// which the training corpus was made. As in Bonsai, small inputs are
// tried first, and the bound grows only when they keep missing: a
// function that needs large inputs (an error deep in a long stylesheet)
// gets them, the others get small ones. (A solver input mutated under a
// smaller bound than its own may come out shorter than it was: the
// bound closes it off.)
func sizeLadder(o synth.SolveOptions) []int {
	solver := o.MaxNodes
	if solver <= 0 {
		solver = synth.DefaultSolveMaxNodes
	}
	return []int{max(1, solver/4), solver, 5 * solver, max(synth.DefaultMaxNodes, 25*solver)}
}

// climbAfter is how many random inputs in a row must miss before the size
// bound grows.
const climbAfter = 4

// random generates a grammar-random input within the current size bound.
func (ps *pursuer) random(ctx context.Context) *tried {
	d := ps.mut.Realize(nil)
	t := ps.prepare(ctx, d.Tree, d.Text, d.Choices, "random")
	if t != nil && !t.repaired {
		t.deriv = d
	}
	return t
}

// closest returns the inputs run so far that come closest to running
// the function, at most eight: first by the current tree (the precision
// of the leaf they reach, to two places), then by what they ran (the
// highest share of the rows running one of their functions that also
// ran the pursued one: functions that co-occur with it), then, where
// neither tells (a function no row ran), by the rarity of what they ran,
// as in FairFuzz: code few inputs reach lies nearest to code none has
// reached.
func (ps *pursuer) closest() []*tried {
	nodes := ps.tree.Tree.Nodes
	data := ps.l.data
	counts := make([]int, len(data.Labels))
	co := make([]float64, len(data.Labels))
	target := data.Labels[ps.f]
	for g, l := range data.Labels {
		counts[g] = l.Count()
		if g != ps.f {
			co[g] = float64(l.AndCount(target)) / float64(counts[g]+1)
		}
	}
	for _, t := range ps.pool {
		leaf := &nodes[ps.tree.Tree.Leaf(func(f int) bool { _, ok := slices.BinarySearch(t.feats, f); return ok })]
		t.closer = math.Round(100*leaf.Precision()) / 100
		t.cooccur, t.rarity = 0, 0
		for _, g := range t.covered {
			t.cooccur = max(t.cooccur, co[g])
			t.rarity += 1 / float64(1+counts[g])
		}
	}
	best := slices.Clone(ps.pool)
	slices.SortStableFunc(best, func(a, b *tried) int {
		switch {
		case a.closer != b.closer:
			return cmp.Compare(b.closer, a.closer)
		case a.cooccur != b.cooccur:
			return cmp.Compare(b.cooccur, a.cooccur)
		case a.rarity != b.rarity:
			return cmp.Compare(b.rarity, a.rarity)
		}
		return len(a.text) - len(b.text)
	})
	return best[:min(8, len(best))]
}
