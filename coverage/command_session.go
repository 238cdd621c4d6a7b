package coverage

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// commandSubject runs a Session's inputs through a CommandTarget, one
// process per input, so that every command that takes a subject (target
// --verify, rlcheck, eval) takes a command too, not only record.
type commandSubject struct {
	c     *Command
	rr    *ReportReader
	index map[string]int
	// cancel stops the run in flight (Interrupt); mu guards it and
	// stopped.
	mu      sync.Mutex
	cancel  context.CancelFunc
	stopped bool
}

// NewCommand returns the command and report reader a CommandTarget
// describes, with the report format's coverage tool driven by arbor
// where the program is one it drives (see docs/recording.md).
func (t *CommandTarget) NewCommand() (*Command, *ReportReader, error) {
	c := &Command{Argv: t.Argv, Dir: t.Dir, Reject: t.Reject}
	if t.Crash != "" {
		re, err := regexp.Compile(t.Crash)
		if err != nil {
			return nil, nil, fmt.Errorf("crash pattern: %w", err)
		}
		c.Crash = re
	}
	rr, err := NewReportReader(t.Coverage, t.Root)
	if err != nil {
		return nil, nil, err
	}
	rr.Dir = t.Dir
	if err := c.drive(context.Background(), t.Coverage); err != nil {
		return nil, nil, err
	}
	return c, rr, nil
}

// startCommand prepares a command subject: one run of the empty input
// lists its functions (coverage tools list every instrumented function,
// run or not), which become the session's.
func (s *Session) startCommand() error {
	c, rr, err := s.bin.Target.Command.NewCommand()
	if err != nil {
		return err
	}
	c.Output = s.opts.Output
	c.Memory = commandMemory(s.opts.Memory)
	run, cov, err := runAndRead(context.Background(), c, rr, nil)
	if err != nil {
		return fmt.Errorf("%s, on the empty input: %w", s.bin.Target, err)
	}
	run.Close()
	names := functionNames(cov)
	if len(names) == 0 {
		return fmt.Errorf("the %s report of %s lists no functions: is the program built or run for coverage?", rr.Format, s.bin.Target)
	}
	s.Funcs = &Functions{Names: names}
	s.command = &commandSubject{c: c, rr: rr, index: make(map[string]int, len(names))}
	for i, n := range names {
		s.command.index[n] = i
	}
	return nil
}

// runCommand runs one input. A warm-up does nothing: a process of its
// own has nothing to warm.
func (s *Session) runCommand(kind byte, input []byte, timeout time.Duration) (*Result, error) {
	if kind == 'W' {
		return &Result{Outcome: OK}, nil
	}
	cs := s.command
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs.mu.Lock()
	if cs.stopped {
		cs.mu.Unlock()
		return &Result{Outcome: Timeout, Message: "interrupted"}, nil
	}
	cs.cancel = cancel
	cs.mu.Unlock()
	cs.c.Timeout = timeout
	run, cov, err := runAndRead(ctx, cs.c, cs.rr, input)
	if err != nil {
		return nil, err
	}
	run.Covered, run.Counts = covered(cov, cs.index, map[string]bool{})
	run.Close()
	r := run.Result
	return &r, nil
}

func (cs *commandSubject) interrupt() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.stopped = true
	if cs.cancel != nil {
		cs.cancel()
	}
}

// commandMemory is Command.Memory for RunOptions.Memory.
func commandMemory(m int64) int64 {
	if m == 0 {
		return DefaultMemory
	}
	return max(m, 0)
}
