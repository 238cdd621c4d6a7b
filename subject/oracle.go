package subject

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/procgroup"
	"github.com/arbor-fuzz/arbor/synth"
)

// The oracles here judge an input by running a program, for synth.Check
// (RLCheck's loop), which itself runs nothing.

// SessionOracle judges by a subject's outcome: ok is valid, error
// invalid, a panic valid and a failure found. The characteristic is the
// coverage trace: functions run, with hit counts bucketed to powers of two.
type SessionOracle struct {
	Session *coverage.Session
	Timeout time.Duration // per input; 0 means 10 seconds, as coverage.SessionRunner
	// Observe, if set, is told of every run: an experiment measuring the
	// coverage the generator reaches reads it there.
	Observe func(*coverage.Result)
}

// Judge runs the input.
func (o *SessionOracle) Judge(input []byte) (synth.Verdict, error) {
	return o.JudgeContext(context.Background(), input)
}

// JudgeContext runs the input as coverage.SessionRunner.Run does: a deadline of
// ctx shortens the wait for the input, and its cancellation interrupts
// the session for good (Ctrl-C); either way the error wraps ctx.Err()
// and the input is not judged.
func (o *SessionOracle) JudgeContext(ctx context.Context, input []byte) (synth.Verdict, error) {
	r, err := (&coverage.SessionRunner{Session: o.Session, Timeout: o.Timeout}).Run(ctx, input)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return synth.Verdict{}, fmt.Errorf("subject oracle: %w", err)
		}
		return synth.Verdict{}, err
	}
	if o.Observe != nil {
		o.Observe(r)
	}
	v := synth.Verdict{Valid: r.Outcome == coverage.OK || r.Outcome == coverage.Panic, TimedOut: r.Outcome == coverage.Timeout}
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
	// synth.Verdict says TimedOut.
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
func (o CommandOracle) Judge(input []byte) (synth.Verdict, error) {
	return o.JudgeContext(context.Background(), input)
}

// JudgeContext runs the command, killing its process group when ctx is
// done; the error then wraps ctx.Err().
func (o CommandOracle) JudgeContext(ctx context.Context, input []byte) (synth.Verdict, error) {
	if len(o.Argv) == 0 {
		return synth.Verdict{}, errors.New("oracle command: no command")
	}
	if err := ctx.Err(); err != nil {
		return synth.Verdict{}, fmt.Errorf("oracle command: %w", err)
	}
	argv := o.Argv
	if o.Memory > 0 {
		var err error
		if argv, err = limitMemory(argv, o.Memory); err != nil {
			return synth.Verdict{}, fmt.Errorf("oracle command: %w", err)
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
		return synth.Verdict{}, fmt.Errorf("oracle command: %w", ctx.Err())
	case err == nil:
		return synth.Verdict{Valid: true}, nil
	case killed.Load():
		return synth.Verdict{TimedOut: true}, nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return synth.Verdict{}, nil
	}
	return synth.Verdict{}, fmt.Errorf("oracle command: %w", err)
}
