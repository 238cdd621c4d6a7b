package synth

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// cutOracle answers at once until its context's deadline is near, then
// holds the processor until the deadline has passed and returns the
// deadline's error, as an oracle whose wait the deadline cut short
// does, before the context's timer has had a chance to fire.
type cutOracle struct{ judged int }

func (o *cutOracle) Judge([]byte) (Verdict, error) { return Verdict{Valid: true}, nil }

func (o *cutOracle) JudgeContext(ctx context.Context, _ []byte) (Verdict, error) {
	o.judged++
	deadline, ok := ctx.Deadline()
	if !ok || time.Until(deadline) > 20*time.Millisecond {
		time.Sleep(time.Millisecond)
		return Verdict{Valid: true}, nil
	}
	for time.Now().Before(deadline.Add(time.Millisecond)) {
		// Spin rather than sleep: a sleep lets the timer fire.
	}
	return Verdict{}, fmt.Errorf("no result: %w", context.DeadlineExceeded)
}

// TestCheckDurationEndsInFlight: an input whose judging the duration
// cut short ends the run, which is no error, even when the oracle
// returns before the context knows its deadline has passed (with one
// processor, its timer cannot fire while the oracle spins).
func TestCheckDurationEndsInFlight(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for i := range 5 {
		o := &cutOracle{}
		gen := func() []byte { return []byte("x") }
		res, err := Check(context.Background(), gen, nil, o, CheckOptions{Duration: 40 * time.Millisecond})
		if err != nil {
			t.Fatalf("run %d: the duration's end is an error: %v", i, err)
		}
		// The cut input is not counted; on a loaded machine the
		// duration may end between inputs instead, and none is cut.
		if res.Trials != o.judged-1 && res.Trials != o.judged {
			t.Errorf("run %d: %d trials counted of %d judged", i, res.Trials, o.judged)
		}
	}
	// An oracle's error that is not the duration's stays an error.
	fail := errors.New("oracle broke")
	_, err := Check(context.Background(), func() []byte { return nil }, nil, failingOracle{fail}, CheckOptions{Duration: time.Second})
	if !errors.Is(err, fail) {
		t.Errorf("an oracle's own error: %v", err)
	}
}

// failingOracle always fails with its error.
type failingOracle struct{ err error }

func (o failingOracle) Judge([]byte) (Verdict, error) { return Verdict{}, o.err }
