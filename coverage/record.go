package coverage

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/arbor-fuzz/arbor/corpus"
)

// Options configure a recording.
type Options struct {
	Subject string        // name written to the file's header
	Timeout time.Duration // per input; 0 means one second
	// Isolate runs each input in a process of its own (warmed up with the
	// same input first): exact labels, crashes cannot affect other inputs,
	// a few milliseconds per input. Otherwise one process runs all inputs
	// after a warm-up pass over all of them.
	Isolate bool
	// Shard and Shards select the inputs whose sha256 falls in shard
	// Shard (1-based) of Shards, so that a corpus can be recorded by
	// independent jobs and merged.
	Shard, Shards int
	// Wait makes a recording whose coverage file another recording is
	// writing wait for it to finish, instead of failing.
	Wait bool
	// RunOptions bound the harness (memory) and say where the subject's
	// output goes.
	RunOptions
	// Progress, if set, is called after each input of a pass.
	Progress func(pass string, done, total int)
	// Warn, if set, receives problems that do not stop the recording,
	// such as an unreadable input file.
	Warn func(error)
}

// Summary describes a recording.
type Summary struct {
	Recorded   int             // inputs recorded by this run
	Skipped    int             // inputs already in the file
	Duplicates int             // inputs that repeat an earlier one of this run
	OtherShard int             // inputs left to other shards
	Unreadable int             // input files that could not be read
	Outcomes   map[Outcome]int // of the inputs recorded by this run
	// Over every record in the file:
	Inputs, Functions, EverCovered, AlwaysCovered, NeverCovered int
	// Time per input, means over this run: the subject's own calls, and
	// the whole recorded run as the recorder saw it.
	SubjectTime, RecordTime time.Duration
	// OutputBytes is what the subject wrote to stdout and stderr.
	OutputBytes int64
	// Unlisted counts the functions a command's reports said ran that the
	// file's header does not list (RecordCommand).
	Unlisted int
}

type pending struct {
	name string
	data []byte
	sha  string
}

// RecordInputs runs the inputs (file paths) through the harness and appends
// their records to the coverage file out, skipping inputs it already
// holds.
func RecordInputs(ctx context.Context, bin *Binary, inputs []string, out string, opts Options) (*Summary, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	if t := bin.Target.Command; t != nil {
		c, rr, err := t.NewCommand()
		if err != nil {
			return nil, err
		}
		return RecordCommand(ctx, c, rr, inputs, out, opts)
	}
	s, err := Start(bin, opts.RunOptions)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// Cancelling stops the input in flight too, not only the next one; its
	// reply, cut short, is not recorded.
	defer context.AfterFunc(ctx, s.Interrupt)()
	h := NewHeader(opts.Subject, s.Funcs.Names)
	target := bin.Target
	h.Target = &target
	w, err := OpenWriter(ctx, out, h, opts.Wait)
	if err != nil {
		return nil, err
	}
	defer w.Close()

	sum := &Summary{Outcomes: map[Outcome]int{}}
	todo := queue(inputs, w.Done, opts, sum)
	progress := func(pass string, i int) {
		if opts.Progress != nil {
			opts.Progress(pass, i, len(todo))
		}
	}
	// Requests are pipelined: several are in flight, so the harness never
	// waits for the recorder between inputs. A harness that restarts
	// (after a crash or a timeout, in either pass) has lost the warm-up;
	// from then on each input is warmed up by itself first, which gives
	// the same labels for it as the full warm-up pass.
	warmed := s.starts
	if !opts.Isolate {
		err := s.pipeline(ctx, todo, opts.Timeout, func() bool { return false }, func(i int, r *Result) error {
			progress("warm-up", i+1)
			return nil
		}, 'W')
		if err != nil {
			return sum, err
		}
	}
	var subject, total time.Duration
	write := func(i int, r *Result) error {
		in := todo[i]
		subject += r.Duration
		rec := Record{Input: in.name, SHA256: in.sha, Covered: r.Covered, Counts: r.Counts, Outcome: r.Outcome,
			MS: float64(r.Duration.Microseconds()) / 1000, Error: r.Message, Stack: r.Stack}
		if err := w.Write(rec); err != nil {
			return err
		}
		sum.Recorded++
		sum.Outcomes[r.Outcome]++
		progress("record", i+1)
		return nil
	}
	start := time.Now()
	if opts.Isolate {
		for i, in := range todo {
			if err := ctx.Err(); err != nil {
				return sum, err
			}
			s.kill()
			if _, err := s.WarmUp(in.data, opts.Timeout); err != nil {
				return sum, err
			}
			r, err := s.Record(in.data, opts.Timeout)
			if err != nil {
				return sum, err
			}
			if err := ctx.Err(); err != nil {
				return sum, err // r was cut short by the interruption
			}
			if err := write(i, r); err != nil {
				return sum, err
			}
		}
	} else {
		cold := func() bool { return s.starts != warmed }
		if err := s.pipeline(ctx, todo, opts.Timeout, cold, write, 'R'); err != nil {
			return sum, err
		}
	}
	total = time.Since(start)
	sum.OutputBytes = s.OutputBytes()
	if sum.Recorded > 0 {
		sum.SubjectTime = subject / time.Duration(sum.Recorded)
		sum.RecordTime = total / time.Duration(sum.Recorded)
	}
	return sum, sum.fileStats(out)
}

// normalize fills in defaults and checks the shard.
func (o *Options) normalize() error {
	if o.Timeout <= 0 {
		o.Timeout = time.Second
	}
	if o.Shards == 0 {
		o.Shard, o.Shards = 1, 1
	}
	if o.Shard < 1 || o.Shard > o.Shards {
		return fmt.Errorf("shard %d/%d: want 1 <= i <= n", o.Shard, o.Shards)
	}
	if o.Warn == nil {
		o.Warn = func(error) {}
	}
	return nil
}

// queue reads the inputs and returns those to record: in this run's
// shard, not done already, each once; sum counts the others.
func queue(inputs []string, done func(sha string) bool, opts Options, sum *Summary) []pending {
	var todo []pending
	queued := map[string]bool{}
	for _, name := range inputs {
		data, err := corpus.Read(name)
		if err != nil {
			sum.Unreadable++
			opts.Warn(fmt.Errorf("input: %w", err))
			continue
		}
		h := sha256.Sum256(data)
		if int(binary.BigEndian.Uint64(h[:8])%uint64(opts.Shards)) != opts.Shard-1 {
			sum.OtherShard++
			continue
		}
		sha := hex.EncodeToString(h[:])
		switch {
		case done(sha):
			sum.Skipped++
			continue
		case queued[sha]:
			sum.Duplicates++
			continue
		}
		queued[sha] = true
		todo = append(todo, pending{name, data, sha})
	}
	return todo
}

// fileStats fills in the figures over every record of the coverage file.
func (sum *Summary) fileStats(out string) error {
	f, err := ReadFile(out)
	if err != nil {
		return err
	}
	sum.Inputs, sum.Functions = len(f.Records), len(f.Functions)
	for _, col := range f.Matrix() {
		switch c := col.Count(); {
		case c == 0:
			sum.NeverCovered++
		case c == len(f.Records):
			sum.AlwaysCovered++
			sum.EverCovered++
		default:
			sum.EverCovered++
		}
	}
	return nil
}

// Pipelining limits: requests in flight, and their bytes. Unread requests
// never exceed half a pipe buffer, so the recorder never blocks writing
// while the harness blocks writing replies.
const (
	maxInFlight      = 16
	maxInFlightBytes = 32 << 10
)

// pipeline sends every input as a kind request ('W' or 'R'), several in
// flight, and calls done with each reply in input order. When cold()
// reports that the harness lost its warm-up, each input is sent as a
// warm-up run followed by the recorded run. A crash or timeout loses the
// requests in flight after it: they are sent again to the new harness.
func (s *Session) pipeline(ctx context.Context, todo []pending, timeout time.Duration, cold func() bool, done func(int, *Result) error, kind byte) error {
	type flight struct {
		i      int
		warmUp bool // a 'W' sent before this input's 'R'
	}
	var queue []flight
	bytes := 0
	next := 0
	for next < len(todo) || len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		for next < len(todo) && len(queue) < maxInFlight && (len(queue) == 0 || bytes+len(todo[next].data) <= maxInFlightBytes) {
			f := flight{i: next, warmUp: kind == 'R' && cold()}
			if f.warmUp {
				if err := s.send('W', todo[next].data); err != nil {
					return err
				}
			}
			if err := s.send(kind, todo[next].data); err != nil {
				return err
			}
			queue = append(queue, f)
			bytes += len(todo[next].data)
			next++
		}
		f := queue[0]
		queue = queue[1:]
		bytes -= len(todo[f.i].data)
		var r *Result
		var err error
		if f.warmUp {
			if r, err = s.receive('W', timeout); err == nil && r.Outcome != Timeout && s.alive() {
				r, err = s.receive(kind, timeout)
			}
		} else {
			r, err = s.receive(kind, timeout)
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err // r was cut short by the interruption
		}
		if !s.alive() && len(queue) > 0 {
			// The harness died with requests in flight: send them again.
			next = queue[0].i
			queue, bytes = queue[:0], 0
		}
		if err := done(f.i, r); err != nil {
			return err
		}
	}
	return nil
}
