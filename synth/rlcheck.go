package synth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"

	"github.com/arbor-fuzz/arbor/grammar"
)

// GuideChooser lets a guide make a grammar generator's choices. Choice
// points are Alt nodes, Quant repetition counts and regex decisions; the
// state is the last W symbols on the path from the root (which say which
// child slot each step took), the last W choices of the input, or none.
type GuideChooser struct {
	Guide *Guide
	State StateKind
	W     int // 0 means 5
	all   Window
}

// Choose asks the guide for one of the point's options.
func (c *GuideChooser) Choose(p Point) int {
	if len(p.Options) == 1 {
		return p.Options[0]
	}
	w := c.W
	if w == 0 {
		w = 5
	}
	var st State
	switch c.State {
	case TreeState:
		path := Window{W: w, items: make([]uint64, 0, w)}
		for _, id := range p.Stack[max(0, len(p.Stack)-w):] {
			path.items = append(path.items, uint64(id))
		}
		st = path.State()
	case WindowState:
		c.all.W = w
		st = c.all.State()
	}
	point := p.Node.ID<<4 | int(p.Kind)<<12 | p.Sub<<16
	v := p.Options[c.Guide.SelectIndex(len(p.Options), st, point)]
	if c.State == WindowState {
		// Only this state reads the input's choices: kept for the
		// others, they would grow with every input a caller that does
		// not Reset draws.
		c.all.Push(uint64(point)<<32 | uint64(uint32(v)))
	}
	return v
}

// Reset starts a new input (the window of global choices empties).
func (c *GuideChooser) Reset() { c.all.Reset() }

// Verdict is an oracle's judgement of one input.
type Verdict struct {
	Valid   bool
	Failure string // a failure found (a panic), if any
	Trace   string // the characteristic ξ(x) for diversity; "" means the input itself
	// TimedOut says the oracle ran out of its time limit on the input:
	// it is not valid, and Check counts it apart from the inputs judged
	// invalid, since a slow oracle is not a verdict on the input.
	TimedOut bool
}

// Oracle judges inputs.
type Oracle interface {
	Judge(input []byte) (Verdict, error)
}

// ContextOracle is an Oracle whose judgement of one input can be
// stopped: Check calls JudgeContext, so that a done context ends the
// input in flight instead of waiting out its time limit. JudgeContext
// then returns an error that wraps ctx.Err().
type ContextOracle interface {
	Oracle
	JudgeContext(ctx context.Context, input []byte) (Verdict, error)
}

// judge asks the oracle, through JudgeContext where it has one.
func judge(ctx context.Context, o Oracle, input []byte) (Verdict, error) {
	if co, ok := o.(ContextOracle); ok {
		return co.JudgeContext(ctx, input)
	}
	return o.Judge(input)
}

// FuncOracle is a validity function.
type FuncOracle func([]byte) bool

// Judge calls the function.
func (f FuncOracle) Judge(input []byte) (Verdict, error) { return Verdict{Valid: f(input)}, nil }

// CurvePoint is the state of a run after some trials.
type CurvePoint struct {
	Trial        int     `json:"trial"`
	Seconds      float64 `json:"seconds"`
	Valid        int     `json:"valid"`
	UniqueValid  int     `json:"unique_valid"`
	DiverseValid int     `json:"diverse_valid"`
}

// CheckResult sums up a run. Every trial is valid, invalid or timed
// out: Trials = Valid + Invalid + Timeouts.
type CheckResult struct {
	Trials       int          `json:"trials"`
	Valid        int          `json:"valid"`
	Invalid      int          `json:"invalid"`
	Timeouts     int          `json:"timeouts"` // inputs the oracle ran out of its time limit on
	UniqueValid  int          `json:"unique_valid"`
	DiverseValid int          `json:"diverse_valid"` // distinct characteristics among valid inputs
	Failures     int          `json:"failures"`      // distinct failures found
	Seconds      float64      `json:"seconds"`
	Curve        []CurvePoint `json:"curve,omitempty"`
	Unique       [][]byte     `json:"-"` // the unique valid inputs, in order found
	FailureList  []string     `json:"failure_list,omitempty"`
}

// CheckOptions bound a run.
type CheckOptions struct {
	Trials   int           // 0 means until Duration
	Duration time.Duration // 0 means until Trials
	Points   int           // curve points to keep; 0 means 50
	Keep     bool          // keep the unique valid inputs
}

// Check generates inputs with gen, judges them with the oracle and, if a
// guide is given, rewards it: New for a valid input with a new
// characteristic, Seen for a valid one seen before, Invalid otherwise
// (a timeout too).
//
// When ctx is done, Check stops, ending the input in flight where the
// oracle is a ContextOracle (so does the end of opts.Duration, which is
// no error, and the input cut short is not counted), and returns the result of the trials
// judged so far with an error that wraps ctx.Err(). An error of the
// oracle stops it too, with the result so far.
func Check(ctx context.Context, gen func() []byte, guide *Guide, oracle Oracle, opts CheckOptions) (*CheckResult, error) {
	if opts.Trials <= 0 && opts.Duration <= 0 {
		return nil, fmt.Errorf("give a number of trials or a duration")
	}
	points := opts.Points
	if points <= 0 {
		points = 50
	}
	res := &CheckResult{}
	t := &tally{res: res, keep: opts.Keep, unique: map[[32]byte]bool{}, diverse: map[string]bool{}, failures: map[string]bool{}}
	start := time.Now()
	every := max(1, opts.Trials/points)
	lastCurve := time.Time{}
	// The duration ends the input in flight too, where the oracle can be
	// stopped: that input is not counted, and the run ends as it does
	// between inputs. Only ctx ending is an error.
	judgeCtx := ctx
	if opts.Duration > 0 {
		var cancel context.CancelFunc
		judgeCtx, cancel = context.WithDeadline(ctx, start.Add(opts.Duration))
		defer cancel()
	}
	finish := func() {
		res.UniqueValid, res.DiverseValid, res.Failures = len(t.unique), len(t.diverse), len(t.failures)
		res.Seconds = time.Since(start).Seconds()
		sort.Strings(res.FailureList)
	}
	for i := 0; opts.Trials <= 0 || i < opts.Trials; i++ {
		// Every trial: one of an oracle command takes milliseconds, and
		// a look at the context or the clock some nanoseconds.
		if err := ctx.Err(); err != nil {
			finish()
			return res, fmt.Errorf("stopped after %d trials: %w", res.Trials, err)
		}
		if opts.Duration > 0 && time.Since(start) >= opts.Duration {
			break
		}
		input := gen()
		v, err := judge(judgeCtx, oracle, input)
		if err != nil && ctx.Err() == nil && durationOver(judgeCtx, err, start, opts.Duration) {
			break // the duration is over
		}
		if err != nil {
			finish()
			if cerr := ctx.Err(); cerr != nil {
				return res, fmt.Errorf("stopped after %d trials: %w", res.Trials, err)
			}
			return res, err
		}
		reward := t.count(input, v, guide)
		if guide != nil {
			guide.Reward(reward)
		}
		if (opts.Trials > 0 && (i+1)%every == 0) || (opts.Trials <= 0 && time.Since(lastCurve) > opts.Duration/time.Duration(points)) {
			lastCurve = time.Now()
			res.Curve = append(res.Curve, CurvePoint{i + 1, time.Since(start).Seconds(), res.Valid, len(t.unique), len(t.diverse)})
		}
	}
	finish()
	return res, nil
}

// durationOver reports whether the error a judge returned under
// judgeCtx is the duration's end: the context says so, or the error is
// a deadline's and the clock has passed the duration. The clock is
// asked because the context says so only once its timer has fired, and
// on a busy machine an oracle whose wait the deadline cut short (as
// coverage.SessionRunner's is) can return before that: the run was
// failed with "context deadline exceeded".
func durationOver(judgeCtx context.Context, err error, start time.Time, d time.Duration) bool {
	if judgeCtx.Err() != nil {
		return true
	}
	return d > 0 && errors.Is(err, context.DeadlineExceeded) && time.Since(start) >= d
}

// tally counts Check's verdicts into its result.
type tally struct {
	res               *CheckResult
	keep              bool
	unique            map[[32]byte]bool
	diverse, failures map[string]bool
}

// count adds one judged input and returns the guide's reward for it.
func (t *tally) count(input []byte, v Verdict, guide *Guide) float64 {
	res := t.res
	res.Trials++
	switch {
	case v.TimedOut:
		res.Timeouts++
		v.Valid = false
	case !v.Valid:
		res.Invalid++
	}
	reward := DefaultRewards.Invalid
	if guide != nil {
		reward = guide.Rewards.Invalid
	}
	if !v.Valid {
		return reward
	}
	res.Valid++
	key := sha256.Sum256(input)
	if !t.unique[key] {
		t.unique[key] = true
		if t.keep {
			res.Unique = append(res.Unique, input)
		}
	}
	trace := v.Trace
	if trace == "" {
		trace = string(key[:])
	}
	if guide != nil {
		reward = guide.Rewards.Seen
		if !t.diverse[trace] {
			reward = guide.Rewards.New
		}
	}
	t.diverse[trace] = true
	if v.Failure != "" && !t.failures[v.Failure] {
		t.failures[v.Failure] = true
		res.FailureList = append(res.FailureList, v.Failure)
	}
	return reward
}

// GrammarGenerator returns a generator of grammar inputs whose choices a
// guide makes (or, with a nil guide, a seeded random chooser).
func GrammarGenerator(g *grammar.Graph, guide *Guide, state StateKind, seed uint64, maxDepth int) func() []byte {
	next, _ := ConstrainedGenerator(g, guide, state, seed, maxDepth, nil)
	return next
}

// ConstrainedGenerator is GrammarGenerator whose inputs satisfy set's
// constraints (nil: none): each tree is repaired by a Satisfier, and one
// it cannot repair is given up for a fresh one, up to
// DefaultConstraintTries. Check's reward, the program's verdict on the
// input as it was run (repaired or not), ends one episode that holds
// the guide's choices of every tree Make drew for it: the guide learns
// which choices lead to new valid inputs through the repair, and the
// clauses are the repair's work, not the guide's. Rewarding the trees
// drawn broken as invalid instead, so that the guide learns the clauses
// too, was measured on every constrained subject and not kept
// (docs/algorithms.md, "The bandit generator").
//
// unrepaired tells how many of the first judged inputs made break a
// constraint the search could not repair: those are returned as they
// are, and a caller reports them. Check judges every input it asks for
// but the last one, where the end of its time or ctx cuts that one
// short, so judged is its Trials.
func ConstrainedGenerator(g *grammar.Graph, guide *Guide, state StateKind, seed uint64, maxDepth int, set *constraint.Set) (next func() []byte, unrepaired func(judged int) int) {
	var gen *Generator
	reset := func() {}
	if guide == nil {
		gen = NewGenerator(g, NewRandom(seed), RandomPolicy)
	} else {
		ch := &GuideChooser{Guide: guide, State: state}
		gen = NewGenerator(g, ch, RandomPolicy)
		reset = ch.Reset
	}
	gen.MaxDepth = maxDepth
	if set.Len() == 0 {
		return func() []byte {
			reset()
			return []byte(gen.Generate().String())
		}, func(int) int { return 0 }
	}
	made, broken, lastBroken := 0, 0, false
	count := func(judged int) int {
		if made > judged && lastBroken {
			return broken - 1
		}
		return broken
	}
	sat := NewSatisfier(set, seed, gen)
	return func() []byte {
		// Check stops between trials; one trial's search is bounded
		// by the Satisfier's steps.
		t, n, _ := sat.Make(context.Background(), gen, reset)
		made, lastBroken = made+1, n > 0
		if lastBroken {
			broken++
		}
		return []byte(t.String())
	}, count
}
