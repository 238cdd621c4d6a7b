package subject_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/internal/proctest"
	"github.com/arbor-fuzz/arbor/internal/testenv"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// shOracle is a CommandOracle running script through sh -c.
func shOracle(t *testing.T, script string, timeout time.Duration, memory int64) subject.CommandOracle {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("oracle commands run through a POSIX shell")
	}
	testenv.NeedTool(t, "sh", "a POSIX shell")
	return subject.CommandOracle{Argv: []string{"sh", "-c", script}, Timeout: timeout, Memory: memory}
}

// TestCommandOracleOutcomes (issue 29, item 10): exit 0 is valid, any
// other exit invalid, and an input the command runs out of its time
// limit on is a timeout, not an invalid input (before, a timeout was
// judged invalid, and the limit was at least 1 s whatever was asked); a
// command that allocates past its memory limit is judged, not hung.
func TestCommandOracleOutcomes(t *testing.T) {
	// Doubling a shell variable 25 times makes a 32 MiB string: some 75
	// MB at the peak without a limit, "Out of space" under one of 8 MiB.
	const alloc = `i=0; x=a; while [ $i -lt 25 ]; do x=$x$x; i=$((i+1)); done; exit 0`
	tests := []struct {
		name    string
		script  string
		input   string
		timeout time.Duration
		memory  int64
		want    synth.Verdict
	}{
		{"exit 0", "exit 0", "", 0, 0, synth.Verdict{Valid: true}},
		{"exit 1", "exit 1", "", 0, 0, synth.Verdict{}},
		{"reads the input", "grep -q needle", "hay needle hay", 0, 0, synth.Verdict{Valid: true}},
		{"reads another input", "grep -q needle", "hay", 0, 0, synth.Verdict{}},
		{"runs out of time", "sleep 30", "", 200 * time.Millisecond, 0, synth.Verdict{TimedOut: true}},
		{"allocates within no limit", alloc, "", 10 * time.Second, 0, synth.Verdict{Valid: true}},
		{"allocates past the limit", alloc, "", 10 * time.Second, 8 << 20, synth.Verdict{}},
		{"a limit it stays under", "exit 0", "", 0, 8 << 20, synth.Verdict{Valid: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := shOracle(t, tt.script, tt.timeout, tt.memory)
			v, err := o.JudgeContext(context.Background(), []byte(tt.input))
			if err != nil || v != tt.want {
				t.Errorf("got %+v, %v; want %+v", v, err, tt.want)
			}
		})
	}
}

// TestCommandOracleKillsGroup (issue 29, item 10): what an oracle
// command starts goes with it, when its time limit runs out, when the
// context is done, and when it exits leaving a background process. Each
// script starts a sleeping grandchild carrying a mark, which the test
// then looks for. Before, only sh was killed, at the timeout only: the
// sleep was left behind in every case.
func TestCommandOracleKillsGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds processes through /proc")
	}
	tests := []struct {
		name    string
		script  string // %s is the mark, VAR=value
		cancel  bool   // cancel the context once the grandchild runs
		want    synth.Verdict
		wantErr error
	}{
		{"timeout", "%s sleep 30 & wait", false, synth.Verdict{TimedOut: true}, nil},
		{"cancelled", "%s sleep 30 & wait", true, synth.Verdict{}, context.Canceled},
		{"exits, leaving a process", "%s sleep 30 & exit 0", false, synth.Verdict{Valid: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := proctest.NewMark()
			timeout := 500 * time.Millisecond
			if tt.cancel {
				timeout = time.Minute // the context ends it, not the limit
			}
			o := shOracle(t, fmt.Sprintf(tt.script, mark), timeout, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				go func() {
					for start := time.Now(); len(proctest.Marked(mark)) == 0 && time.Since(start) < 30*time.Second; {
						time.Sleep(10 * time.Millisecond)
					}
					cancel()
				}()
			}
			v, err := o.JudgeContext(ctx, nil)
			if v != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("got %+v, %v; want %+v, %v", v, err, tt.want, tt.wantErr)
			}
			// WaitGone kills what it finds after the wait, so that a
			// failure leaves nothing behind either.
			if left := proctest.WaitGone(mark, 2*time.Second); len(left) > 0 {
				t.Errorf("left running: %v", left)
			}
		})
	}
}

// TestCheckCountsTimeouts (issue 29, item 10): Check counts timeouts
// apart from invalid inputs, every trial is one of valid, invalid and
// timed out, and a done context stops it with the trials so far.
func TestCheckCountsTimeouts(t *testing.T) {
	// Valid, invalid and timed out by the input's first byte.
	o := shOracle(t, `read -r x; case $x in v*) exit 0;; s*) sleep 30;; *) exit 1;; esac`, 100*time.Millisecond, 0)
	inputs := []string{"v1", "i1", "s1", "v2", "i2", "v3"}
	next := 0
	gen := func() []byte {
		in := inputs[next%len(inputs)]
		next++
		return []byte(in + "\n")
	}
	res, err := synth.Check(context.Background(), gen, nil, o, synth.CheckOptions{Trials: len(inputs)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Trials != 6 || res.Valid != 3 || res.Invalid != 2 || res.Timeouts != 1 {
		t.Errorf("%d trials: %d valid, %d invalid, %d timeouts; want 6: 3, 2, 1", res.Trials, res.Valid, res.Invalid, res.Timeouts)
	}

	// Cancelled in the third trial, whose oracle would sleep for a
	// minute: the input in flight ends, and the two before are kept.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	next = 0
	slow := shOracle(t, `read -r x; case $x in v*) exit 0;; s*) sleep 60;; *) exit 1;; esac`, time.Minute, 0)
	gen3 := func() []byte {
		if next == 2 {
			time.AfterFunc(100*time.Millisecond, cancel)
		}
		return gen()
	}
	res, err = synth.Check(ctx, gen3, nil, slow, synth.CheckOptions{Trials: 1000})
	if !errors.Is(err, context.Canceled) || res == nil || res.Trials != 2 || res.Valid != 1 || res.Invalid != 1 {
		t.Errorf("cancelled: %+v, %v; want 2 trials, 1 valid, and the context's error", res, err)
	}
}

// TestCheckDurationEndsTheInput (issue 29, item 9): the end of
// CheckOptions.Duration ends the oracle command in flight, as the end of
// the context does, but as the end of a run, not an error, and the input
// cut short is not counted. Before, Check waited out the input's time
// limit (here 20 s) and counted it.
func TestCheckDurationEndsTheInput(t *testing.T) {
	o := shOracle(t, `read -r x; case $x in v*) exit 0;; *) sleep 60;; esac`, 20*time.Second, 0)
	inputs := []string{"v1", "v2", "s"}
	next := 0
	gen := func() []byte {
		in := inputs[min(next, len(inputs)-1)]
		next++
		return []byte(in + "\n")
	}
	res, err := synth.Check(context.Background(), gen, nil, o, synth.CheckOptions{Duration: 500 * time.Millisecond})
	if err != nil || res.Trials != 2 || res.Valid != 2 || res.Timeouts != 0 {
		t.Errorf("%+v, %v; want the 2 valid trials before the slow one, and no error", res, err)
	}
}

// TestSessionOracleContext (issue 29, item 9): a subject oracle judges
// as before under a context that is not done, and a done context stops
// it and Check with the context's error, the input not judged. Before, Check looked at its context every 256
// trials, and the subject's run waited out its time limit.
func TestSessionOracleContext(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the json subject")
	}
	bin := fixture.Binary(t, "json")
	s, err := coverage.Open(context.Background(), bin.Target, coverage.DefaultCacheDir(), coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := &subject.SessionOracle{Session: s, Timeout: 10 * time.Second}
	if v, err := o.JudgeContext(context.Background(), []byte(`[1, 2]`)); err != nil || !v.Valid || v.TimedOut || v.Trace == "" {
		t.Errorf("a valid input: %+v, %v", v, err)
	}
	if v, err := o.JudgeContext(context.Background(), []byte(`[1, `)); err != nil || v.Valid {
		t.Errorf("an invalid input: %+v, %v", v, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, err := o.JudgeContext(ctx, []byte(`[1, 2]`)); !errors.Is(err, context.Canceled) || v.Valid {
		t.Errorf("cancelled: %+v, %v; want the context's error", v, err)
	}
	n := 0
	res, err := synth.Check(ctx, func() []byte { n++; return []byte(`[1]`) }, nil, o, synth.CheckOptions{Trials: 10})
	if !errors.Is(err, context.Canceled) || res.Trials != 0 || n != 0 {
		t.Errorf("Check cancelled: %+v, %v, %d inputs generated; want none and the context's error", res, err, n)
	}
}
