package coverage

import (
	"context"
	"errors"
	"time"
)

// Runner runs inputs on the program under test and tells which of its
// functions each ran: the seam the targeting loop and the fuzzing
// campaigns take. A Session is one (SessionRunner); a test can be
// another.
type Runner interface {
	// Functions names the functions Result.Covered indexes.
	Functions() []string
	Run(ctx context.Context, input []byte) (*Result, error)
}

// SessionRunner runs inputs through a recording session.
type SessionRunner struct {
	Session *Session
	Timeout time.Duration // per input; 0 means 10 seconds
}

// Functions are the session's instrumented functions.
func (r *SessionRunner) Functions() []string { return r.Session.Funcs.Names }

// Run records one input. The context ends the run in flight: its
// deadline shortens the wait for the input (the harness is killed and
// restarted, as on a timeout), and its cancellation interrupts the
// session for good (Ctrl-C); either way the result is the context's
// error, not the input's outcome.
func (r *SessionRunner) Run(ctx context.Context, input []byte) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := r.Timeout
	if t <= 0 {
		t = 10 * time.Second
	}
	wait, cut := t, false
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < t {
		wait, cut = max(time.Until(deadline), time.Millisecond), true
	}
	stop := context.AfterFunc(ctx, func() {
		// A deadline ends the wait above; an interrupted session stays
		// interrupted, which only an ending campaign may afford.
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			r.Session.Interrupt()
		}
	})
	res, err := r.Session.Record(input, wait)
	if !stop() {
		return nil, ctx.Err()
	}
	if cut && err == nil && res.Outcome == Timeout {
		// The deadline's, not the input's: its wait was cut short.
		return nil, context.DeadlineExceeded
	}
	return res, err
}
