package synth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/procgroup"
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
	c.all.Push(uint64(point)<<32 | uint64(uint32(v)))
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

// SubjectOracle judges by a subject's outcome: ok is valid, error
// invalid, a panic valid and a failure found. The characteristic is the
// coverage trace: functions run, with hit counts bucketed to powers of two.
type SubjectOracle struct {
	Session *coverage.Session
	Timeout time.Duration // per input; 0 means 10 seconds, as coverage.SessionRunner
	// Observe, if set, is told of every run: an experiment measuring the
	// coverage the generator reaches reads it there.
	Observe func(*coverage.Result)
}

// Judge runs the input.
func (o *SubjectOracle) Judge(input []byte) (Verdict, error) {
	return o.JudgeContext(context.Background(), input)
}

// JudgeContext runs the input as coverage.SessionRunner.Run does: a deadline of
// ctx shortens the wait for the input, and its cancellation interrupts
// the session for good (Ctrl-C); either way the error wraps ctx.Err()
// and the input is not judged.
func (o *SubjectOracle) JudgeContext(ctx context.Context, input []byte) (Verdict, error) {
	r, err := (&coverage.SessionRunner{Session: o.Session, Timeout: o.Timeout}).Run(ctx, input)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return Verdict{}, fmt.Errorf("subject oracle: %w", err)
		}
		return Verdict{}, err
	}
	if o.Observe != nil {
		o.Observe(r)
	}
	v := Verdict{Valid: r.Outcome == coverage.OK || r.Outcome == coverage.Panic, TimedOut: r.Outcome == coverage.Timeout}
	if r.Outcome == coverage.Panic {
		v.Failure = r.Stack + " " + r.Message
	}
	var b strings.Builder
	for i, id := range r.Covered {
		bucket := 0
		for c := r.Counts[i]; c > 1; c >>= 1 {
			bucket++
		}
		fmt.Fprintf(&b, "%d:%d,", id, bucket)
	}
	v.Trace = b.String()
	return v, nil
}

// DefaultOracleTimeout is a CommandOracle's time limit per input when
// it gives none.
const DefaultOracleTimeout = time.Second

// CommandOracle runs a command with the input on standard input; exit
// status 0 means valid, any other invalid. The command runs in a
// process group of its own, which is killed whole when the time limit
// runs out, when the context of JudgeContext is done, and after every
// input (a background process the command left must not outlive it, nor
// pile up over thousands of inputs); on Linux the kernel also kills the
// command if arbor dies.
type CommandOracle struct {
	Argv []string
	// Timeout is the time limit per input; 0 means DefaultOracleTimeout.
	// An input that runs out of it is neither valid nor invalid: its
	// Verdict says TimedOut.
	Timeout time.Duration
	// Memory, if positive, limits the command and all it starts to that
	// many bytes of virtual memory each (RLIMIT_AS, set by the shell's
	// ulimit -v; unix only). Virtual memory is not memory used: a
	// runtime that reserves address space up front (a JVM, some
	// allocators) can fail to start under a limit its program would
	// never reach. A command that fails an allocation usually exits
	// non-zero: the input is then judged invalid.
	Memory int64
}

// Judge runs the command.
func (o CommandOracle) Judge(input []byte) (Verdict, error) {
	return o.JudgeContext(context.Background(), input)
}

// JudgeContext runs the command, killing its process group when ctx is
// done; the error then wraps ctx.Err().
func (o CommandOracle) JudgeContext(ctx context.Context, input []byte) (Verdict, error) {
	if len(o.Argv) == 0 {
		return Verdict{}, errors.New("oracle command: no command")
	}
	if err := ctx.Err(); err != nil {
		return Verdict{}, fmt.Errorf("oracle command: %w", err)
	}
	argv := o.Argv
	if o.Memory > 0 {
		var err error
		if argv, err = limitMemory(argv, o.Memory); err != nil {
			return Verdict{}, fmt.Errorf("oracle command: %w", err)
		}
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultOracleTimeout
	}
	run, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(run, argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(input)
	procgroup.Isolate(cmd)
	// The limit ran out if the context's end killed the command: a
	// command that exits on its own just before is judged by its exit.
	var killed atomic.Bool
	cmd.Cancel = func() error {
		killed.Store(true)
		return procgroup.Kill(cmd)
	}
	// Once the group is killed nothing holds the input's pipe; the delay
	// only bounds a wait on a process that escaped the group.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	// Whatever the command left running in its group goes with it.
	procgroup.Kill(cmd)
	switch {
	case ctx.Err() != nil:
		return Verdict{}, fmt.Errorf("oracle command: %w", ctx.Err())
	case err == nil:
		return Verdict{Valid: true}, nil
	case killed.Load():
		return Verdict{TimedOut: true}, nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return Verdict{}, nil
	}
	return Verdict{}, fmt.Errorf("oracle command: %w", err)
}

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
	unique := map[[32]byte]bool{}
	diverse := map[string]bool{}
	failures := map[string]bool{}
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
		res.UniqueValid, res.DiverseValid, res.Failures = len(unique), len(diverse), len(failures)
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
		if err != nil && ctx.Err() == nil && judgeCtx.Err() != nil {
			break // the duration is over
		}
		if err != nil {
			finish()
			if cerr := ctx.Err(); cerr != nil {
				return res, fmt.Errorf("stopped after %d trials: %w", res.Trials, err)
			}
			return res, err
		}
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
		if v.Valid {
			res.Valid++
			key := sha256.Sum256(input)
			if !unique[key] {
				unique[key] = true
				if opts.Keep {
					res.Unique = append(res.Unique, input)
				}
			}
			trace := v.Trace
			if trace == "" {
				trace = string(key[:])
			}
			if guide != nil {
				reward = guide.Rewards.Seen
				if !diverse[trace] {
					reward = guide.Rewards.New
				}
			}
			diverse[trace] = true
			if v.Failure != "" && !failures[v.Failure] {
				failures[v.Failure] = true
				res.FailureList = append(res.FailureList, v.Failure)
			}
		}
		if guide != nil {
			guide.Reward(reward)
		}
		if (opts.Trials > 0 && (i+1)%every == 0) || (opts.Trials <= 0 && time.Since(lastCurve) > opts.Duration/time.Duration(points)) {
			lastCurve = time.Now()
			res.Curve = append(res.Curve, CurvePoint{i + 1, time.Since(start).Seconds(), res.Valid, len(unique), len(diverse)})
		}
	}
	finish()
	return res, nil
}

// GrammarGenerator returns a generator of grammar inputs whose choices a
// guide makes (or, with a nil guide, a seeded random chooser).
func GrammarGenerator(g *grammar.Graph, guide *Guide, state StateKind, seed uint64, maxDepth int) func() []byte {
	if guide == nil {
		gen := NewGenerator(g, NewRandom(seed), RandomPolicy)
		gen.MaxDepth = maxDepth
		return func() []byte { return []byte(gen.Generate().String()) }
	}
	ch := &GuideChooser{Guide: guide, State: state}
	gen := NewGenerator(g, ch, RandomPolicy)
	gen.MaxDepth = maxDepth
	return func() []byte {
		ch.Reset()
		return []byte(gen.Generate().String())
	}
}

// BSTGenerator returns the BST example's generator; a nil guide chooses
// uniformly at random (a guide with ε = 1 that is never rewarded).
func BSTGenerator(guide *Guide, state StateKind, seed uint64) (gen func() []byte, oracle Oracle) {
	if guide == nil {
		guide = NewGuide(seed)
		guide.Epsilon = 1
	}
	b := &BST{Guide: guide, State: state}
	return func() []byte { return []byte(b.Generate().String()) }, FuncOracle(func(in []byte) bool { return validBST(string(in)) })
}

// validBST parses the (left value right) form back and checks the BST property.
func validBST(s string) bool {
	n, rest, ok := parseBST(s)
	return ok && rest == "" && IsBST(n)
}

func parseBST(s string) (*Node, string, bool) {
	if strings.HasPrefix(s, ".") {
		return nil, s[1:], true
	}
	if !strings.HasPrefix(s, "(") {
		return nil, s, false
	}
	left, rest, ok := parseBST(s[1:])
	if !ok || !strings.HasPrefix(rest, " ") {
		return nil, s, false
	}
	rest = rest[1:]
	end := strings.IndexByte(rest, ' ')
	if end < 0 {
		return nil, s, false
	}
	v := 0
	for _, c := range rest[:end] {
		if c < '0' || c > '9' || v > 1000 {
			return nil, s, false
		}
		v = v*10 + int(c-'0')
	}
	if end == 0 {
		return nil, s, false
	}
	right, rest, ok := parseBST(rest[end+1:])
	if !ok || !strings.HasPrefix(rest, ")") {
		return nil, s, false
	}
	return &Node{Value: v, Left: left, Right: right}, rest[1:], true
}
