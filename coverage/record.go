package coverage

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/corpus"
)

// Options configure a recording.
type Options struct {
	Subject string        // name written to the file's header
	Timeout time.Duration // per input; 0 means one second
	// Isolate runs each input in a process of its own (warmed up with the
	// same input first): exact labels, crashes cannot affect other inputs,
	// a few milliseconds per input (about 7 on Linux, where each process
	// starts under a supervisor: supervise_linux.go). Otherwise one process runs all inputs,
	// a chunk at a time, each chunk after a warm-up pass over it.
	Isolate bool
	// Chunk is how many inputs are read, warmed up and recorded at a time
	// (0: 10,000, and at most 64 MB of inputs): what bounds a recording's
	// memory, however large the corpus.
	Chunk int
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
		c.Memory = commandMemory(opts.Memory)
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
	// Inputs are read and recorded a chunk at a time, so that memory holds
	// one chunk of inputs however large the corpus. A chunk is warmed up
	// as a whole before it is recorded: every input is recorded after it,
	// and every other input of its chunk, has run once, which is what the
	// warm-up pass is for (work a process does once, such as filling type
	// caches, does not show in the first input's record).
	var subject, total time.Duration
	done := 0
	progress := func(pass string, i int) {
		if opts.Progress != nil {
			opts.Progress(pass, done+i, len(inputs))
		}
	}
	var err2 error
	chunker := newChunker(inputs, w.Done, opts, sum)
	for {
		todo := chunker.next()
		if len(todo) == 0 {
			break
		}
		d, err := s.recordChunk(ctx, todo, w, opts, sum, progress)
		subject += d.subject
		total += d.total
		done += len(todo)
		if err != nil {
			err2 = err
			break
		}
	}
	sum.OutputBytes = s.OutputBytes()
	if sum.Recorded > 0 {
		sum.SubjectTime = subject / time.Duration(sum.Recorded)
		sum.RecordTime = total / time.Duration(sum.Recorded)
	}
	if err2 != nil {
		return sum, err2
	}
	return sum, sum.fileStats(out)
}

// chunkInputs and chunkBytes bound a chunk of inputs read at once.
const (
	chunkInputs = 10000
	chunkBytes  = 64 << 20
)

type spent struct{ subject, total time.Duration }

// recordChunk warms up and records one chunk of inputs (see RecordInputs).
func (s *Session) recordChunk(ctx context.Context, todo []pending, w *Writer, opts Options, sum *Summary, progress func(string, int)) (sp spent, err error) {
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
			return sp, err
		}
	}
	write := func(i int, r *Result) error {
		in := todo[i]
		sp.subject += r.Duration
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
	defer func() { sp.total = time.Since(start) }()
	if opts.Isolate {
		for i, in := range todo {
			if err := ctx.Err(); err != nil {
				return sp, err
			}
			s.kill()
			if _, err := s.WarmUp(in.data, opts.Timeout); err != nil {
				return sp, err
			}
			r, err := s.Record(in.data, opts.Timeout)
			if err != nil {
				return sp, err
			}
			if err := ctx.Err(); err != nil {
				return sp, err // r was cut short by the interruption
			}
			if err := write(i, r); err != nil {
				return sp, err
			}
		}
		return sp, nil
	}
	cold := func() bool { return s.starts != warmed }
	return sp, s.pipeline(ctx, todo, opts.Timeout, cold, write, 'R')
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

// queue reads the inputs and returns those to record, all at once: in
// this run's shard, not done already, each once; sum counts the others.
func queue(inputs []string, done func(sha string) bool, opts Options, sum *Summary) []pending {
	c := newChunker(inputs, done, opts, sum)
	var todo []pending
	for chunk := c.next(); len(chunk) > 0; chunk = c.next() {
		todo = append(todo, chunk...)
	}
	return todo
}

// chunker reads the inputs to record a chunk at a time, with queue's
// rules.
type chunker struct {
	inputs []string
	done   func(sha string) bool
	opts   Options
	sum    *Summary
	queued map[string]bool
}

func newChunker(inputs []string, done func(string) bool, opts Options, sum *Summary) *chunker {
	return &chunker{inputs: inputs, done: done, opts: opts, sum: sum, queued: map[string]bool{}}
}

// next returns the next chunk: at most chunkInputs inputs and, but for a
// single larger input, chunkBytes bytes.
func (c *chunker) next() []pending {
	var todo []pending
	size := 0
	limit := c.opts.Chunk
	if limit <= 0 {
		limit = chunkInputs
	}
	for len(c.inputs) > 0 && len(todo) < limit {
		name := c.inputs[0]
		data, err := corpus.Read(name)
		if err != nil {
			c.inputs = c.inputs[1:]
			c.sum.Unreadable++
			c.opts.Warn(fmt.Errorf("input: %w", err))
			continue
		}
		if len(todo) > 0 && size+len(data) > chunkBytes {
			break // read again as the next chunk's first
		}
		c.inputs = c.inputs[1:]
		if p, ok := c.admit(name, data); ok {
			todo = append(todo, p)
			size += len(data)
		}
	}
	return todo
}

// admit applies queue's rules to one input.
func (c *chunker) admit(name string, data []byte) (pending, bool) {
	h := sha256.Sum256(data)
	if int(binary.BigEndian.Uint64(h[:8])%uint64(c.opts.Shards)) != c.opts.Shard-1 {
		c.sum.OtherShard++
		return pending{}, false
	}
	sha := hex.EncodeToString(h[:])
	// Queued first: an input this run recorded in an earlier chunk is in
	// the file by now, but it is a duplicate, not one already there.
	switch {
	case c.queued[sha]:
		c.sum.Duplicates++
		return pending{}, false
	case c.done(sha):
		c.sum.Skipped++
		return pending{}, false
	}
	c.queued[sha] = true
	return pending{name, data, sha}, true
}

// fileStats fills in the figures over every record of the coverage file,
// reading it a line at a time: only counts per function are kept.
func (sum *Summary) fileStats(out string) error {
	f, err := os.Open(out)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	var h Header
	var counts []int
	seen := map[string]bool{} // a merged or concatenated file may hold an input twice
	for line := 1; ; line++ {
		text, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a last line without a newline was cut short: not a record
		}
		if err != nil {
			return err
		}
		if line == 1 {
			if err := json.Unmarshal(text, &h); err != nil {
				return fmt.Errorf("%s:1: %w", out, err)
			}
			counts = make([]int, len(h.Functions))
			continue
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var rec struct {
			SHA256  string `json:"sha256"`
			Covered []int  `json:"covered"`
		}
		if err := json.Unmarshal(text, &rec); err != nil {
			return fmt.Errorf("%s:%d: %w", out, line, err)
		}
		if seen[rec.SHA256] {
			continue
		}
		seen[rec.SHA256] = true
		sum.Inputs++
		for _, id := range rec.Covered {
			if id >= 0 && id < len(counts) {
				counts[id]++
			}
		}
	}
	sum.Functions = len(counts)
	for _, c := range counts {
		switch {
		case c == 0:
			sum.NeverCovered++
		case c == sum.Inputs:
			sum.AlwaysCovered++
			sum.EverCovered++
		default:
			sum.EverCovered++
		}
	}
	return nil
}

// rerun runs an input again, warmed up, in a harness of its own.
func (s *Session) rerun(input []byte, timeout time.Duration) (*Result, error) {
	s.kill()
	r, err := s.WarmUp(input, timeout)
	if err != nil || r.Outcome == Timeout || !s.alive() {
		return r, err
	}
	return s.Record(input, timeout)
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
		if kind == 'R' && r.Outcome == Panic && strings.HasPrefix(r.Frames, parentFrames) {
			// The supervisor got a signal while this input's request was
			// the oldest in flight, but a subject that signals its parent
			// and returns at once has its reply written before the
			// supervisor ends the run: the signal may be the previous
			// input's. The input runs again, alone in a new harness, and
			// keeps the label it gets there, so that no input is blamed
			// for another's signal (the previous one keeps its label).
			if r, err = s.rerun(todo[f.i].data, timeout); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := done(f.i, r); err != nil {
			return err
		}
	}
	return nil
}
