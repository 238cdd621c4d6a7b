package fuzz

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// DefaultBonsaiLevels is how many bounds each axis of Bonsai's lattice
// takes, from small to the top: three, as the smallest lattice that has
// a middle.
const DefaultBonsaiLevels = 3

// BonsaiOptions configure a Bonsai campaign: a lattice of bounded
// campaigns, each seeded with its predecessors' corpora.
type BonsaiOptions struct {
	// Options are every bounded campaign's, except that:
	//   - Execs and Time are the whole lattice's budget, shared evenly;
	//   - Bounds is the lattice's top: its MaxDistinct, MaxRepeat and
	//     MaxDepth are the largest bounds (0 means 3, synth's
	//     DefaultMaxRepeat and DefaultMaxDepth); MaxNodes is every
	//     campaign's;
	//   - Seeds seed the first campaign, and the top one after its
	//     predecessors' inputs: the first so that the lattice starts from
	//     them, the top because it replays them exactly if they were made
	//     under its bounds (a previous Bonsai campaign's corpus);
	//   - Domains is ignored: each campaign has the domains NewDomains
	//     makes, since a campaign's domains start empty;
	//   - Kept is told of the top campaign's inputs only, which are the
	//     lattice's corpus; Failed of every occurrence of a failure, its
	//     Count the lattice's; Point and Progress count the lattice's
	//     executions and time.
	Options
	// NewDomains makes a campaign's domains (nil means Zest's: Coverage
	// and ValidCoverage).
	NewDomains func() []Domain
	// Levels is how many bounds each axis takes (0 means
	// DefaultBonsaiLevels).
	Levels int
	// Step, if set, is told of each bounded campaign as it ends.
	Step func(BonsaiStep)
}

// BonsaiStep is one bounded campaign of the lattice.
type BonsaiStep struct {
	Bounds Bounds
	Seeds  int // inputs of its predecessors' corpora it started from
	Stats  Stats
	Bytes  int // the size of its corpus's inputs
}

// BonsaiResult is a Bonsai campaign's outcome. Its Result holds the top
// campaign's corpus (the lattice's output), every campaign's distinct
// failures, and executions, valid executions and time summed over the
// campaigns; its Curve is the campaigns' curves one after another, with
// executions and time counted from the lattice's start (each campaign's
// domain sizes start from zero).
type BonsaiResult struct {
	Result
	Steps []BonsaiStep
}

// Lattice lists the bounds of Bonsai's lattice from the smallest to top,
// each after the ones below it on every axis: levels values per axis of
// MaxDistinct (from 1), MaxRepeat (from 1) and MaxDepth (from the
// smallest depth that generates the grammar's root), evenly spaced up to
// top's (0 in top means the defaults BonsaiOptions names). MaxNodes is
// top's throughout.
func Lattice(g *grammar.Graph, top Bounds, levels int) []Bounds {
	return latticeOf(axesOf(g, top, levels))
}

// axes are the lattice's values on each axis, increasing.
type axes struct {
	distinct, repeat, depth []int
	maxNodes                int
}

func axesOf(g *grammar.Graph, top Bounds, levels int) axes {
	if levels <= 0 {
		levels = DefaultBonsaiLevels
	}
	top = TopBounds(top)
	return axes{
		distinct: spaced(1, top.MaxDistinct, levels),
		repeat:   spaced(1, top.MaxRepeat, levels),
		depth:    spaced(max(1, g.MinDepth(g.Root)), top.MaxDepth, levels),
		maxNodes: top.MaxNodes,
	}
}

func latticeOf(a axes) []Bounds {
	distinct, repeat, depth := a.distinct, a.repeat, a.depth
	type point struct{ i, j, k int }
	var pts []point
	for i := range distinct {
		for j := range repeat {
			for k := range depth {
				pts = append(pts, point{i, j, k})
			}
		}
	}
	// By level sum, every point comes after its predecessors; ties go
	// by identifiers, then repetitions, then depth.
	slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(a.i+a.j+a.k, b.i+b.j+b.k) })
	out := make([]Bounds, len(pts))
	for n, p := range pts {
		out[n] = Bounds{MaxDistinct: distinct[p.i], MaxRepeat: repeat[p.j], MaxDepth: depth[p.k], MaxNodes: a.maxNodes}
	}
	return out
}

// TopBounds is top with BonsaiOptions's defaults in place of its 0s.
func TopBounds(b Bounds) Bounds {
	if b.MaxDistinct <= 0 {
		b.MaxDistinct = 3
	}
	if b.MaxRepeat <= 0 {
		b.MaxRepeat = synth.DefaultMaxRepeat
	}
	if b.MaxDepth <= 0 {
		b.MaxDepth = synth.DefaultMaxDepth
	}
	return b
}

// spaced returns up to n integers evenly spaced from lo to hi, both
// included (just hi if hi <= lo).
func spaced(lo, hi, n int) []int {
	if hi <= lo {
		return []int{hi}
	}
	if hi-lo+1 <= n {
		var out []int
		for v := lo; v <= hi; v++ {
			out = append(out, v)
		}
		return out
	}
	out := make([]int, n)
	for i := range out {
		out[i] = lo + (i*(hi-lo)+(n-1)/2)/(n-1)
	}
	return out
}

// Bonsai runs Bonsai fuzzing: a campaign for each bounds of the lattice
// up to opts.Bounds, from small to large, each seeded with the corpora
// of the campaigns one step below it on each axis, smallest inputs
// first. Small campaigns find the behaviours small inputs reach; a larger
// one keeps a seed only when it adds to what its smaller seeds covered,
// and so only the larger inputs it needs: the lattice grows a corpus of
// concise inputs without a reducer.
func Bonsai(ctx context.Context, g *grammar.Graph, subject coverage.Runner, opts BonsaiOptions) (*BonsaiResult, error) {
	if opts.Execs < 0 || opts.Time < 0 {
		return nil, errors.New("bonsai: negative budget")
	}
	if opts.Execs == 0 && opts.Time == 0 {
		return nil, errors.New("bonsai: the lattice needs a budget of executions or time to share")
	}
	ax := axesOf(g, opts.Bounds, opts.Levels)
	lattice := latticeOf(ax)
	if opts.Execs > 0 && opts.Execs < len(lattice) {
		return nil, fmt.Errorf("bonsai: %d executions cannot be shared among %d bounded campaigns", opts.Execs, len(lattice))
	}
	l := &bonsai{
		opts: opts, ax: ax, lattice: lattice,
		at:       map[Bounds]int{},
		corpora:  make([][]Entry, len(lattice)),
		res:      &BonsaiResult{},
		failures: map[string]int{},
	}
	for i, b := range lattice {
		l.at[b] = i
	}
	l.start = time.Now()
	for i, b := range lattice {
		step := l.stepOptions(i)
		r, err := Fuzz(ctx, g, subject, step)
		if r != nil {
			l.res.add(r, b, len(step.Seeds), l.start)
			l.corpora[i] = r.Corpus
			if opts.Step != nil {
				opts.Step(l.res.Steps[len(l.res.Steps)-1])
			}
		}
		if err != nil {
			return l.res, err
		}
	}
	return l.res, nil
}

// bonsai is the state of one Bonsai call.
type bonsai struct {
	opts     BonsaiOptions
	ax       axes
	lattice  []Bounds
	at       map[Bounds]int // a point's index in lattice
	corpora  [][]Entry      // by index in lattice, the campaigns' corpora
	res      *BonsaiResult
	failures map[string]int // failure key -> occurrences in the lattice so far
	start    time.Time
}

// stepOptions are the options of the lattice's i-th campaign, which runs
// after the ones before it.
func (l *bonsai) stepOptions(i int) Options {
	opts, b := l.opts, l.lattice[i]
	step := opts.Options
	step.Bounds = b
	step.Seed = opts.Seed + uint64(i)*0x9e3779b97f4a7c15
	// The budget left is shared among the campaigns left, so that
	// one ended early by its seeds does not shorten the others.
	left := len(l.lattice) - i
	if opts.Execs > 0 {
		step.Execs = (opts.Execs - l.res.Execs) / left
	}
	if opts.Time > 0 {
		step.Time = max(time.Millisecond, (opts.Time-time.Since(l.start))/time.Duration(left))
	}
	step.Domains = nil
	if opts.NewDomains != nil {
		step.Domains = opts.NewDomains()
	}
	step.Seeds = nil
	if i > 0 {
		step.Seeds = predecessorSeeds(b, l.ax, l.at, l.corpora)
	}
	if i == 0 || i == len(l.lattice)-1 {
		step.Seeds = append(step.Seeds, opts.Seeds...)
	}
	if i < len(l.lattice)-1 {
		step.Kept = nil
	}
	l.hook(&step)
	return step
}

// hook sets step's Failed, Progress and Point to tell opts's, with the
// executions and time of the campaigns before it added, and the
// lattice's count of each failure's occurrences.
func (l *bonsai) hook(step *Options) {
	opts, failures := l.opts, l.failures
	execs, elapsed := l.res.Execs, time.Since(l.start)
	step.Failed = nil
	if opts.Failed != nil {
		// Each occurrence is told, its Count the lattice's so far.
		step.Failed = func(fl Failure) error {
			key := string(fl.Outcome) + "\x00" + fl.Stack
			failures[key]++
			fl.Count = failures[key]
			fl.Exec += execs
			return opts.Failed(fl)
		}
	}
	step.Progress = nil
	if opts.Progress != nil {
		step.Progress = func(s Stats) {
			s.Execs += execs
			s.Elapsed += elapsed
			opts.Progress(s)
		}
	}
	step.Point = nil
	if opts.Point != nil {
		step.Point = func(s Stats) error {
			s.Execs += execs
			s.Elapsed += elapsed
			return opts.Point(s)
		}
	}
}

// add folds a bounded campaign's result into the lattice's.
func (res *BonsaiResult) add(r *Result, b Bounds, seeds int, start time.Time) {
	execs := res.Execs
	for _, s := range r.Curve {
		s.Execs += execs
		s.Elapsed = time.Since(start) - r.Elapsed + s.Elapsed
		res.Curve = append(res.Curve, s)
	}
	bytes := 0
	for _, e := range r.Corpus {
		bytes += len(e.Input)
	}
	res.Steps = append(res.Steps, BonsaiStep{Bounds: b, Seeds: seeds, Stats: r.Stats, Bytes: bytes})
	seen := map[string]int{}
	for i, f := range res.Failures {
		seen[string(f.Outcome)+"\x00"+f.Stack] = i
	}
	for _, f := range r.Failures {
		f.Exec += execs
		if i, ok := seen[string(f.Outcome)+"\x00"+f.Stack]; ok {
			res.Failures[i].Count += f.Count
			continue
		}
		res.Failures = append(res.Failures, f)
	}
	res.Execs += r.Execs
	res.Valid += r.Valid
	res.Elapsed = time.Since(start)
	res.Corpus = r.Corpus
	for i := range res.Corpus {
		res.Corpus[i].Exec += execs
	}
	res.Stats.Corpus = len(r.Corpus)
	res.Stats.Failures = len(res.Failures)
	res.Stats.Domains = r.Domains
}

// predecessorSeeds are the inputs of the corpora of the campaigns one
// step below b on an axis, each once, smallest first (Bonsai's order:
// a larger campaign starts from what small inputs already cover).
func predecessorSeeds(b Bounds, ax axes, at map[Bounds]int, corpora [][]Entry) [][]int {
	// below is the value one step below v on an axis, if any.
	below := func(vs []int, v int) (int, bool) {
		i := slices.Index(vs, v)
		if i <= 0 {
			return 0, false
		}
		return vs[i-1], true
	}
	var preds []Bounds
	if v, ok := below(ax.distinct, b.MaxDistinct); ok {
		p := b
		p.MaxDistinct = v
		preds = append(preds, p)
	}
	if v, ok := below(ax.repeat, b.MaxRepeat); ok {
		p := b
		p.MaxRepeat = v
		preds = append(preds, p)
	}
	if v, ok := below(ax.depth, b.MaxDepth); ok {
		p := b
		p.MaxDepth = v
		preds = append(preds, p)
	}
	var entries []Entry
	seen := map[string]bool{}
	for _, p := range preds {
		for _, e := range corpora[at[p]] {
			if !seen[string(e.Input)] {
				seen[string(e.Input)] = true
				entries = append(entries, e)
			}
		}
	}
	slices.SortStableFunc(entries, func(a, b Entry) int { return cmp.Compare(len(a.Input), len(b.Input)) })
	seeds := make([][]int, len(entries))
	for i, e := range entries {
		seeds[i] = e.Choices
	}
	return seeds
}
