package fuzz

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// Bounds bound the generator that realizes sequences (0 means synth's
// defaults, and no bound on distinct values). Bonsai's bounded fuzzers
// differ in MaxDistinct, MaxRepeat and MaxDepth (synth.Generator says
// what each bounds).
type Bounds struct {
	MaxDepth, MaxRepeat, MaxNodes, MaxDistinct int
}

// configure gives x the bounds.
func (b Bounds) configure(x *synth.Generator) {
	x.MaxDepth, x.MaxRepeat, x.MaxNodes, x.MaxDistinct = b.MaxDepth, b.MaxRepeat, b.MaxNodes, b.MaxDistinct
}

// Options configure a fuzzing campaign.
type Options struct {
	Seed uint64
	// Execs stops the campaign after this many executions, Time after
	// this long; 0 is no bound. The context also stops it. With Time the
	// result depends on the machine's speed; with Execs alone, a
	// deterministic subject gives the same result for the same seed.
	Execs int
	Time  time.Duration
	// Domains are the feedback; nil means Zest's: Coverage and
	// ValidCoverage.
	Domains []Domain
	Bounds  Bounds
	// Seeds are choice sequences (as synth.Recorder records them) run
	// first and kept when a domain moves: a previous campaign's corpus,
	// or another generator's inputs. Without seeds the campaign starts
	// from random inputs.
	Seeds [][]int
	// Children is how many mutants each corpus input gets before the
	// next one's turn (0 means 50, as Zest).
	Children int
	// Fresh is the share of executions, in [0, 1), given to fresh random
	// inputs rather than to mutants once the corpus holds an input.
	// Zest's is 0: a campaign whose first inputs are rejected then
	// mutates rejected inputs only, where random generation goes on
	// finding accepted ones.
	Fresh float64
	// Rare turns on FairFuzz's search: the inputs that run the rarest
	// parts of the program (blocks where runs report them, else
	// functions) get the mutants, and each such input's mutations leave
	// alone the decisions whose change loses its rare part. Rarity is
	// FairFuzz's: a part run by at most the smallest power of two not
	// below the fewest runs any part has.
	Rare bool
	// MeanSpans and MeanSpanLength are the means of the geometric
	// distributions of how many spans of decisions a mutation changes
	// and how long they are (0 means 2 and 4).
	MeanSpans, MeanSpanLength float64
	// Kept, Failed and Point, if set, are told of each input as it is
	// kept, of each occurrence of a failure (Count says which: 1 is the
	// first), and of each point added to the curve, so that a caller can
	// save them as they come (a Store). An error from them stops the
	// campaign and is returned.
	Kept   func(Entry) error
	Failed func(Failure) error
	Point  func(Stats) error
	// Progress, if set, is called with the campaign's state about every
	// ProgressEvery (0 means a second) and at the end.
	Progress      func(Stats)
	ProgressEvery time.Duration
	// Constraints, if set, are constraints the campaign's inputs must
	// satisfy (the grammar's where clauses). A fresh input or mutant that
	// breaks one is repaired by a synth.Satisfier before it runs, or,
	// where the search fails, dropped without running (Stats.Repaired,
	// Dropped). Seeds run as they are.
	Constraints *constraint.Set
	// Parallel are runners for more workers: with k of them the campaign
	// runs k+1 inputs at once, one on the subject Fuzz is given and one
	// on each of these (each should be a harness process of its own, as
	// go test -fuzz runs a process per worker). One corpus and one set
	// of domains serve them all: the campaign chooses every input and
	// takes every result in one goroutine, the workers realize, repair
	// and run. With none the campaign is one loop, and with Execs alone
	// gives the same result for the same seed; with workers, which input
	// comes back first depends on timing, and so does the campaign.
	Parallel []coverage.Runner
}

// Stats is the state of a campaign.
type Stats struct {
	Execs    int
	Elapsed  time.Duration
	Corpus   int // inputs kept
	Valid    int // executions of valid inputs
	Failures int // distinct failures
	Domains  []DomainSize
	// With Options.Constraints: inputs repaired before they ran, inputs
	// dropped unrun because the search could not repair them, and inputs
	// run although they break a constraint (after synth.MaxDrops drops
	// in a row, so that the campaign goes on).
	Repaired, Dropped, BrokenRuns int
}

// DomainSize is a domain's aggregate size.
type DomainSize struct {
	Name string
	Size int
}

// Entry is an input the campaign kept.
type Entry struct {
	Input   []byte
	Choices []int // replays the input with synth.Replay and the campaign's bounds
	Valid   bool
	Exec    int      // the execution that found it, from 1
	Moved   []string // the domains it moved
	seq     *sequence
	slots   []slot
	units   []int // the blocks (or functions) it ran, for Rare
	rare    *rareState
}

// rareState is FairFuzz's state for an input: the rare part its mutants
// keep, and which of its decisions may change without losing it.
type rareState struct {
	target   int
	slots    []slot // the input's
	trials   []int  // slots to try changing, one execution each
	next     int    // trials handed out
	done     int    // trials whose results came back
	locked   []bool // by slot: changing it lost the target
	unlocked []slot // the slots mutations may change, once trials are done
}

// Failure is a distinct crash or timeout: the first input that caused it,
// and how often it happened. Crashes are told apart by the hash of their
// innermost frames, timeouts are one failure.
type Failure struct {
	Outcome coverage.Outcome
	Stack   string
	Message string
	Frames  string
	Input   []byte
	Choices []int
	Exec    int
	Count   int
}

// Result is a campaign's corpus, failures and course.
type Result struct {
	Stats
	Corpus   []Entry
	Failures []Failure
	// Curve is the state after every execution that kept an input or
	// found a failure, and at the end: coverage over executions and time.
	Curve []Stats
}

// Fuzz runs a Zest-style campaign on the subject over g's choice sequences:
// it mutates the sequences of the inputs it keeps, realizes each mutant
// with g's generator, runs it, and keeps it when it moves a domain. It
// returns what it found when the budget ends, the context is done (with
// the context's error) or the subject fails (with that error).
func Fuzz(ctx context.Context, g *grammar.Graph, subject coverage.Runner, opts Options) (*Result, error) {
	f, err := newCampaign(g, subject, opts)
	if err != nil {
		return nil, err
	}
	// The time budget ends the input in flight too, through the
	// context the subject runs under; only the caller's context ending
	// is an error.
	runCtx := ctx
	if opts.Time > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadline(ctx, f.start.Add(opts.Time))
		defer cancel()
	}
	err = f.loop(ctx, runCtx)
	if err != nil && ctx.Err() == nil && (runCtx.Err() != nil || errors.Is(err, context.DeadlineExceeded)) {
		err = nil
	}
	return f.finish(), err
}

// newCampaign checks opts and sets up the campaign's state.
func newCampaign(g *grammar.Graph, subject coverage.Runner, opts Options) (*campaign, error) {
	if opts.Execs < 0 || opts.Time < 0 {
		return nil, errors.New("fuzz: negative budget")
	}
	if opts.Fresh < 0 || opts.Fresh >= 1 {
		return nil, fmt.Errorf("fuzz: the share of fresh inputs must be in [0, 1), not %v", opts.Fresh)
	}
	domains := opts.Domains
	if domains == nil {
		domains = []Domain{Coverage(), ValidCoverage()}
	}
	f := &campaign{
		g: g, opts: opts, domains: domains,
		ids:      newStreams(),
		mut:      &mutator{meanSpans: or(opts.MeanSpans, synth.DefaultMeanSpans), meanLength: or(opts.MeanSpanLength, synth.DefaultMeanSpanLength)},
		start:    time.Now(),
		failures: map[string]int{},
		children: opts.Children,
	}
	f.lastProgress = f.start
	f.r = rand.New(rand.NewPCG(opts.Seed, 0xf022))
	f.mut.r = f.r
	// A campaign of one worker runs it in the campaign's own loop, with
	// the campaign's random source, so that it draws as it always has;
	// with more, each worker has its own, and its own constraint search.
	if len(opts.Parallel) == 0 {
		f.workers = []*worker{newWorker(g, subject, opts, f.ids, f.r, opts.Seed)}
	} else {
		for i, r := range append([]coverage.Runner{subject}, opts.Parallel...) {
			seed := opts.Seed + uint64(i+1)*0x9e3779b97f4a7c15
			f.workers = append(f.workers, newWorker(g, r, opts, f.ids, rand.New(rand.NewPCG(seed, 0xf022)), seed))
		}
	}
	if f.children <= 0 {
		f.children = 50
	}
	return f, nil
}

// loop runs inputs until the budget ends (returning nil), the caller's
// context ctx is done (returning its error) or an execution under runCtx
// fails (returning that error).
func (f *campaign) loop(ctx, runCtx context.Context) error {
	if len(f.workers) > 1 {
		return f.loopParallel(ctx, runCtx)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if f.spent(0) {
			return nil
		}
		j := f.next()
		units, err := f.process(f.workers[0].execute(runCtx, j))
		if err != nil {
			return err
		}
		f.trialDone(j, units)
		f.progress()
	}
}

// spent reports whether the budget is spent, with inflight executions
// still to come back.
func (f *campaign) spent(inflight int) bool {
	return f.opts.Execs > 0 && f.res.Execs+inflight >= f.opts.Execs || f.opts.Time > 0 && time.Since(f.start) >= f.opts.Time
}

// progress calls Options.Progress when it is due.
func (f *campaign) progress() {
	if f.opts.Progress == nil {
		return
	}
	every := f.opts.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	if time.Since(f.lastProgress) >= every {
		f.lastProgress = time.Now()
		f.opts.Progress(f.stats())
	}
}

// A job is an input for a worker to run: its sequence, and for one of
// FairFuzz's mask trials, which.
type job struct {
	seq   *sequence
	trial *rareState
	slot  int // the trial's slot index, with trial
	n     int // with workers, the job's place in the order they were handed out
}

// next is the input to run: a seed while seeds are left, a fresh random
// input while the corpus is empty or at the Fresh share, else a mutant
// of the corpus input whose turn it is (Children mutants each). With
// Rare, an input whose mask is not done yet gets one of its mask trials
// instead (trialDone takes its result).
func (f *campaign) next() job {
	switch {
	case f.seeded < len(f.opts.Seeds):
		f.seeded++
		return job{seq: f.seqOf(f.opts.Seeds[f.seeded-1])}
	case len(f.res.Corpus) == 0 || f.opts.Fresh > 0 && f.r.Float64() < f.opts.Fresh:
		return job{seq: &sequence{salt: f.r.Uint64()}}
	}
	if f.made >= f.children {
		f.cursor, f.made = f.nextParent(f.cursor), 0
	}
	f.made++
	e := &f.res.Corpus[f.cursor]
	if f.opts.Rare && e.rare != nil && e.rare.next < len(e.rare.trials) {
		return f.maskTrial(e)
	}
	slots := e.slots
	if f.opts.Rare && e.rare != nil && len(e.rare.unlocked) > 0 {
		slots = e.rare.unlocked
	}
	return job{seq: f.mut.mutate(e.seq, slots)}
}

// maskTrial is FairFuzz's mask at work on corpus input e, whose turn it
// is: a mutant that changes the next of its trial decisions, to see
// whether the rare part still runs (trialDone).
func (f *campaign) maskTrial(e *Entry) job {
	st := e.rare
	trial := st.trials[st.next]
	st.next++
	return job{seq: f.mut.mutate(e.seq, e.slots[trial:trial+1]), trial: st, slot: trial}
}

// trialDone takes a mask trial's result, the units its input ran (none
// if it was dropped): after the input's last trial, the decisions whose
// change kept its rare part become the ones mutations may change.
func (f *campaign) trialDone(j job, units []int) {
	st := j.trial
	if st == nil {
		return
	}
	st.locked[j.slot] = !contains(units, st.target)
	if st.done++; st.done == len(st.trials) {
		for i, sl := range st.slots {
			if !st.locked[i] {
				st.unlocked = append(st.unlocked, sl)
			}
		}
	}
}

func or(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}

// campaign is the state of one Fuzz call.
type campaign struct {
	g        *grammar.Graph
	opts     Options
	domains  []Domain
	ids      *streams  // the stream numbering all workers share
	workers  []*worker // the first runs on Fuzz's subject
	mut      *mutator
	r        *rand.Rand
	start    time.Time
	res      Result
	failures map[string]int // failure key -> index in res.Failures
	hits     map[int]int    // Rare: per block (or function), the runs that ran it
	// children is how many mutants each corpus input gets; cursor is
	// the input whose turn it is, made how many it has had; seeded is
	// how many seeds were handed out.
	children, cursor, made, seeded int
	lastProgress                   time.Time
}

// maxMaskTrials bounds the executions FairFuzz's mask takes per input:
// decisions past it are evenly sampled, and the ones not tried may change.
const maxMaskTrials = 256

// nextParent is the corpus input whose turn comes after cursor's. With
// Rare it is the next one that runs a rare part (FairFuzz), whose rarest
// part becomes its target; without, or if none does, the next one.
func (f *campaign) nextParent(cursor int) int {
	n := len(f.res.Corpus)
	if !f.opts.Rare || len(f.hits) == 0 {
		return (cursor + 1) % n
	}
	fewest := math.MaxInt
	for _, h := range f.hits {
		fewest = min(fewest, h)
	}
	cutoff := 1
	for cutoff < fewest {
		cutoff <<= 1
	}
	for step := 1; step <= n; step++ {
		i := (cursor + step) % n
		e := &f.res.Corpus[i]
		target, best := -1, math.MaxInt
		for _, u := range e.units {
			if h := f.hits[u]; h <= cutoff && h < best {
				target, best = u, h
			}
		}
		if target < 0 {
			continue
		}
		if e.rare == nil || e.rare.target != target {
			e.rare = &rareState{target: target, locked: make([]bool, len(e.slots)), slots: e.slots}
			step := max(1, (len(e.slots)+maxMaskTrials-1)/maxMaskTrials)
			for t := 0; t < len(e.slots); t += step {
				e.rare.trials = append(e.rare.trials, t)
			}
		}
		return i
	}
	return (cursor + 1) % n
}

func contains(sorted []int, x int) bool {
	i := sort.SearchInts(sorted, x)
	return i < len(sorted) && sorted[i] == x
}

// process takes a worker's outcome: it counts the constraint search's
// work, and keeps what the input found. It returns the blocks (or,
// where runs report none, the functions) the input ran, sorted; none
// for an input dropped unrun.
func (f *campaign) process(o outcome) ([]int, error) {
	if o.repaired {
		f.res.Repaired++
	}
	if o.broken {
		f.res.BrokenRuns++
	}
	if o.dropped {
		f.res.Dropped++
		return nil, nil // it breaks a constraint
	}
	d, r, err := o.d, o.r, o.err
	if err != nil {
		return nil, fmt.Errorf("fuzz: execution %d: %w", f.res.Execs+1, err)
	}
	units := r.Blocks
	if len(units) == 0 {
		units = r.Covered
	}
	if f.opts.Rare {
		units = append([]int(nil), units...)
		sort.Ints(units)
		if f.hits == nil {
			f.hits = map[int]int{}
		}
		for _, u := range units {
			f.hits[u]++
		}
	}
	f.res.Execs++
	run := &Run{Input: d.text, Tree: d.tree, Result: r, Valid: r.Outcome == coverage.OK}
	if run.Valid {
		f.res.Valid++
	}
	var moved []string
	for _, dom := range f.domains {
		// Every domain sees every run, whether or not another moved.
		if dom.Observe(run) {
			moved = append(moved, dom.Name())
		}
	}
	found := false
	if r.Outcome == coverage.Panic || r.Outcome == coverage.Timeout {
		key := string(r.Outcome) + "\x00" + r.Stack
		i, ok := f.failures[key]
		if ok {
			f.res.Failures[i].Count++
		} else {
			i = len(f.res.Failures)
			f.failures[key] = i
			f.res.Failures = append(f.res.Failures, Failure{
				Outcome: r.Outcome, Stack: r.Stack, Message: r.Message, Frames: r.Frames,
				Input: d.text, Choices: d.choices, Exec: f.res.Execs, Count: 1,
			})
			found = true
		}
		if f.opts.Failed != nil {
			if err := f.opts.Failed(f.res.Failures[i]); err != nil {
				return nil, err
			}
		}
	}
	if len(moved) > 0 {
		f.res.Corpus = append(f.res.Corpus, Entry{
			Input: d.text, Choices: d.choices, Valid: run.Valid, Exec: f.res.Execs, Moved: moved,
			seq: d.seq, slots: d.slots,
		})
		if f.opts.Rare {
			f.res.Corpus[len(f.res.Corpus)-1].units = units
		}
		if f.opts.Kept != nil {
			if err := f.opts.Kept(f.res.Corpus[len(f.res.Corpus)-1]); err != nil {
				return nil, err
			}
		}
	}
	if found || len(moved) > 0 {
		f.res.Curve = append(f.res.Curve, f.stats())
		if f.opts.Point != nil {
			if err := f.opts.Point(f.res.Curve[len(f.res.Curve)-1]); err != nil {
				return nil, err
			}
		}
	}
	return units, nil
}

func (f *campaign) stats() Stats {
	s := Stats{
		Execs: f.res.Execs, Elapsed: time.Since(f.start), Corpus: len(f.res.Corpus),
		Valid: f.res.Valid, Failures: len(f.res.Failures),
		Repaired: f.res.Repaired, Dropped: f.res.Dropped, BrokenRuns: f.res.BrokenRuns,
	}
	for _, d := range f.domains {
		s.Domains = append(s.Domains, DomainSize{d.Name(), d.Size()})
	}
	return s
}

func (f *campaign) finish() *Result {
	f.res.Stats = f.stats()
	f.res.Curve = append(f.res.Curve, f.res.Stats)
	if f.opts.Progress != nil {
		f.opts.Progress(f.res.Stats)
	}
	return &f.res
}

// seqOf is seqOf with the campaign's numbering and random source.
func (f *campaign) seqOf(choices []int) *sequence {
	return seqOf(f.g, f.opts.Bounds, f.ids, f.r.Uint64(), choices)
}

// seqOf turns a flat choice sequence into streams: each decision's value
// becomes the raw value that selects it among the decision's options,
// or, where the value is not among them (a seed from a file that breaks
// the bounds: synth.Generator.ExactChoicesOf), the exact raw value that
// holds it (exactBit), so that the sequence realizes the input the
// choices replay to with synth.Replay. A value the grammar does not
// allow at its decision (choices made for another grammar) becomes the
// first option, as do the decisions past the sequence's end.
func seqOf(g *grammar.Graph, bounds Bounds, ids *streams, salt uint64, choices []int) *sequence {
	c := &flatChooser{choices: choices, ids: ids, seq: &sequence{salt: salt, seed: true}}
	c.gen = synth.NewGenerator(g, c, synth.RandomPolicy)
	bounds.configure(c.gen)
	c.gen.Generate()
	return c.seq
}

// flatChooser replays a flat choice sequence and records it as streams.
type flatChooser struct {
	choices []int
	next    int
	ids     *streams
	seq     *sequence
	gen     *synth.Generator // the generator replaying, for Valid
}

func (c *flatChooser) Choose(p synth.Point) int {
	raw, v := uint32(0), p.Options[0]
	if c.next < len(c.choices) {
		want := c.choices[c.next]
		c.next++
		if i := slices.Index(p.Options, want); i >= 0 {
			raw, v = uint32(i), want
		} else if want >= 0 && want < exactBit && c.gen.Valid(p, want) {
			// The generator takes any value its chooser returns; Valid
			// keeps out those that would break it (an index past an
			// Alt's children).
			raw, v = exactBit|uint32(want), want
		}
	}
	id := c.ids.id(keyOf(p))
	for int(id) >= len(c.seq.streams) {
		c.seq.streams = append(c.seq.streams, nil)
	}
	c.seq.streams[id] = append(c.seq.streams[id], raw)
	return v
}
