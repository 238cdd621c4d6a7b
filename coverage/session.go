package coverage

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/arbor-fuzz/arbor/internal/procgroup"
)

// Outcome is how an input's run ended.
type Outcome string

const (
	OK      Outcome = "ok"      // the function returned nil
	Error   Outcome = "error"   // it returned an error: the input was rejected
	Panic   Outcome = "panic"   // it panicked, or the program crashed
	Timeout Outcome = "timeout" // it did not finish in time
)

// Result is one input's run.
type Result struct {
	Outcome  Outcome
	Duration time.Duration // of the function call alone
	Message  string        // the error or panic text
	Stack    string        // panics: a hash of the three innermost frames
	Frames   string        // panics: those frames
	Covered  []int         // functions that ran, sorted
	Counts   []uint32      // for each covered function: times its entry block ran
	Blocks   []int         // with Session.Blocks set: the blocks that ran (ids from Functions.Block)
}

// DefaultMemory is the most memory a harness may allocate unless told
// otherwise: as libFuzzer's default RSS limit, enough for any sane input
// of a parser, and far below what would stall the machine.
const DefaultMemory = 2 << 30

// RunOptions bound the harness processes of a Session and say where the
// subject's output goes.
type RunOptions struct {
	// Memory is the most memory (bytes) a harness may allocate; an input
	// that needs more ends as a panic ("out of memory"). 0 means
	// DefaultMemory; a negative value, no limit. It is enforced on Linux
	// (a limit on the process's data, and one on its address space, which
	// counts shared mappings too, with room for what the runtime reserves:
	// see harnessLinux and Command.Memory) and is a soft limit elsewhere.
	Memory int64
	// Output, if set, receives what the subject writes to stdout and
	// stderr, line by line, each line prefixed with the stream's name.
	// Otherwise only the last 64 KB of stderr are kept, to describe
	// crashes.
	Output io.Writer
	// KeepPools leaves a Go harness's sync.Pools as the last run left
	// them, instead of emptying them (two collections) before each
	// recorded run. A fuzzing campaign runs 2-3 times as many inputs a
	// second on encoding/json with it; the price is labels that depend
	// on the collector's timing, which is why recording for learning
	// does not use it.
	KeepPools bool
}

// Session runs inputs through a harness process and decodes their
// coverage. It restarts the harness after a crash or a timeout. A
// Session is not safe for concurrent use.
type Session struct {
	bin   *Binary
	Meta  *Meta
	Funcs *Functions
	// Blocks asks for the covered blocks (basic blocks) of each input too.
	Blocks bool
	opts   RunOptions

	cmd      *exec.Cmd
	requests *os.File // the request pipe's write end
	live     *os.File // the parent pipe's write end: closing it ends the harness
	stdin    *bufio.Writer
	stdout   *bufio.Reader
	// pipe is the reply pipe's file, for read deadlines; mu guards it and
	// stopped, which Interrupt sets from another goroutine.
	pipe    *os.File
	mu      sync.Mutex
	stopped bool
	stderr  *tailBuffer
	output  *outputCapture
	done    chan error // the process's exit
	exit    error      // how the last process ended
	// supervised says the process is a supervisor (supervise_linux.go)
	// with the harness under it; status is the read end of its status
	// pipe, and report what it said there when the last process ended.
	supervised bool
	status     *os.File
	report     supervisorReport
	blob       []byte
	starts     int // processes started so far
	// warm, if set, is run unrecorded in each process started (see
	// WarmStarts), with warmTimeout.
	warm        []byte
	warmTimeout time.Duration
	// fresh is set from a process's start to its first reply, and
	// unrecorded to its first recorded reply: both may take longer than
	// the others (Binary.StartGrace).
	fresh, unrecorded bool

	seen   []int32  // per function: the generation it was last covered in
	counts []uint32 // per function: entry count in the current decode
	gen    int32
	ids    []int // ARBOR2 harnesses: the harness's function ids -> index into Funcs.Names
	// tokens are those of the requests in flight, oldest first: each
	// reply must echo its request's (see harnessSource).
	tokens [][tokenSize]byte
	// command runs the inputs of a CommandTarget, a process each, in
	// place of a harness.
	command *commandSubject
}

// Open builds the target's harness (or takes it from cacheDir) and
// starts it.
func Open(ctx context.Context, t Target, cacheDir string, opts RunOptions) (*Session, error) {
	bin, err := Build(ctx, t, cacheDir)
	if err != nil {
		return nil, err
	}
	return Start(bin, opts)
}

// Start starts a harness process and reads the program's meta-data.
func Start(bin *Binary, opts RunOptions) (*Session, error) {
	s := &Session{bin: bin, opts: opts, output: newOutputCapture(opts.Output)}
	if bin.Target.Command != nil {
		if err := s.startCommand(); err != nil {
			return nil, err
		}
		return s, nil
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

// OutputBytes is how many bytes the subject has written to stdout and
// stderr so far.
func (s *Session) OutputBytes() int64 { return s.output.total() }

// start starts a harness process and reads its greeting and the
// program's meta-data.
func (s *Session) start() error {
	if err := s.launch(s.harnessCmd()); err != nil {
		return err
	}
	return s.handshake()
}

// harnessCmd is the harness's process, not yet started: its program,
// arguments and environment.
func (s *Session) harnessCmd() *exec.Cmd {
	cmd := exec.Command(s.bin.Path)
	cmd.Args = []string{"h"} // argv is copied into every counter blob: keep it short
	if h := s.bin.Target.Harness; h != nil {
		cmd.Args = append([]string{s.bin.Path}, s.bin.Args...)
		cmd.Dir = h.Dir
	}
	cmd.Env = append(os.Environ(), "GOCOVERDIR=", "ARBOR_HARNESS_MEMORY=", "ARBOR_HARNESS_KEEP_POOLS=")
	if s.opts.KeepPools {
		cmd.Env = append(cmd.Env, "ARBOR_HARNESS_KEEP_POOLS=1")
	}
	cmd.Env = append(cmd.Env, s.bin.Env...)
	if s.Meta != nil {
		cmd.Env = append(cmd.Env, "ARBOR_HARNESS_META=0")
	}
	memory := s.opts.Memory
	if memory == 0 {
		memory = DefaultMemory
	}
	if memory > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("ARBOR_HARNESS_MEMORY=%d", memory))
		if s.bin.MemoryArg != nil {
			cmd.Args = slices.Insert(cmd.Args, 1, s.bin.MemoryArg(memory))
		}
	}
	return cmd
}

// launch starts the harness's process and makes it the session's.
func (s *Session) launch(cmd *exec.Cmd) error {
	// The protocol has pipes of its own (see harnessSource); the subject's
	// stdin is empty and its stdout and stderr go to the capture. Replies
	// come through a pipe whose read end is ours alone rather than
	// StdoutPipe: Wait, which runs as soon as the process starts, closes
	// StdoutPipe's read end when the process exits, and the replies a
	// crashing harness wrote before it died (unread yet, with requests
	// pipelined) were lost. Our read end stays open until we close it, and
	// reads what was written, then EOF.
	var pipes [6]*os.File // read and write ends: requests, replies, parent
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeFiles(pipes[:i]...)
			return err
		}
		pipes[i], pipes[i+1] = r, w
	}
	cmd.ExtraFiles = []*os.File{pipes[0], pipes[3], pipes[4]}
	s.stderr = &tailBuffer{max: 1 << 16}
	cmd.Stdout = s.output.writer("stdout", nil)
	cmd.Stderr = s.output.writer("stderr", s.stderr)
	// Where it can, the harness runs under a supervisor, which keeps the
	// subject from signalling arbor and kills whatever it started, setsid
	// children included; the harness's parent pipe is the supervisor's
	// "live" pipe too. Elsewhere the harness is a process group of its
	// own.
	_, statusPipe, supervised, err := supervisedCmd(cmd, 0, 0, 2)
	if err != nil {
		closeFiles(pipes[:]...)
		return fmt.Errorf("start harness: %w", err)
	}
	if !supervised {
		procgroup.Isolate(cmd)
	}
	// Once the harness is gone, Wait waits this long for the copying of
	// its stdout and stderr, which a child of the subject may hold open
	// forever.
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	closeFiles(cmd.ExtraFiles...) // the child has its own copies
	if err != nil {
		closeFiles(pipes[1], pipes[2], pipes[5], statusPipe)
		return fmt.Errorf("start harness: %w", err)
	}
	s.supervised, s.status, s.report = supervised, statusPipe, supervisorReport{}
	s.starts++
	s.fresh, s.unrecorded = true, true
	s.cmd, s.requests, s.live = cmd, pipes[1], pipes[5]
	s.stdin, s.stdout = bufio.NewWriterSize(pipes[1], 1<<16), bufio.NewReaderSize(pipes[2], 1<<16)
	s.mu.Lock()
	s.pipe = pipes[2]
	s.mu.Unlock()
	s.done = make(chan error, 1)
	go func() { s.done <- cmd.Wait() }()
	return nil
}

// handshake reads the started harness's greeting, its status and the
// program's meta-data (ARBOR1) or function names (ARBOR2). It kills the
// harness if they are not right.
func (s *Session) handshake() error {
	magic, err := s.stdout.ReadString('\n')
	if err != nil || (magic != "ARBOR1\n" && magic != "ARBOR2\n") {
		s.kill()
		return fmt.Errorf("harness for %s did not start: %s", s.bin.Target, s.crashText())
	}
	status, err := s.stdout.ReadString('\n')
	if err != nil {
		s.kill()
		return fmt.Errorf("harness for %s: %s", s.bin.Target, s.crashText())
	}
	if status = strings.TrimSpace(status); status != "ok" {
		s.kill()
		return errors.New(status)
	}
	meta, err := s.readBlob()
	if err != nil {
		s.kill()
		return fmt.Errorf("harness meta-data: %w", err)
	}
	if magic == "ARBOR2\n" {
		return s.readNames(meta)
	}
	if s.Meta == nil {
		if s.Meta, err = DecodeMeta(meta); err != nil {
			s.kill()
			return fmt.Errorf("harness meta-data: %w", err)
		}
		s.Funcs = NewFunctions(s.Meta, s.bin.Target.covers)
		s.seen = make([]int32, len(s.Funcs.Names))
		s.counts = make([]uint32, len(s.Funcs.Names))
		if len(s.Funcs.Names) == 0 {
			s.kill()
			return fmt.Errorf("no functions of %s are instrumented", strings.Join(s.bin.Target.coverPkgs(), ", "))
		}
	}
	return nil
}

// Close stops the harness.
func (s *Session) Close() error {
	if s.cmd == nil {
		return nil
	}
	s.stdin.Write(append([]byte{'Q'}, make([]byte, requestHeader-1)...))
	s.stdin.Flush()
	if s.supervised {
		// The subject may have stopped its supervisor.
		resume(s.cmd.Process)
	}
	select {
	case <-s.done:
		if !s.supervised {
			procgroup.Kill(s.cmd) // what the subject started and left running
		}
	case <-time.After(2 * time.Second):
		s.kill()
	}
	s.cmd = nil
	s.closePipe()
	s.output.flush()
	return nil
}

// kill ends the harness and what the subject started, and waits for
// them.
func (s *Session) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		if s.supervised {
			// The supervisor kills the harness and all the subject left
			// once its live pipe closes.
			s.exit = endSupervised(s.cmd.Process, s.live, s.done)
			s.live = nil
			s.report = readSupervisorReport(s.status)
			s.status = nil
		} else {
			procgroup.Kill(s.cmd)
			s.exit = <-s.done
		}
		s.output.flush()
	}
	s.cmd = nil
	s.closePipe()
}

// closePipe closes the pipes of a process that is gone.
func (s *Session) closePipe() {
	s.tokens = s.tokens[:0]
	closeFiles(s.requests, s.live, s.status)
	s.requests, s.live, s.status = nil, nil, nil
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pipe != nil {
		s.pipe.Close()
		s.pipe = nil
	}
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// WarmUp runs an input without recording, so that work a process does
// only once (type caches, lazy tables) is done before recording starts.
func (s *Session) WarmUp(input []byte, timeout time.Duration) (*Result, error) {
	return s.run('W', input, timeout)
}

// WarmStarts makes every harness process the session starts from now
// on run input unrecorded, as WarmUp does (within timeout), before any
// other request but a warm-up of the caller's own. WarmUp after a fresh
// start warms the first process; WarmStarts warms each one the session
// starts by itself after a crash or a timeout, whose first recorded
// input would otherwise be credited with the work a process does once
// (in a fuzzing campaign, the input after each crash was). A warm-up
// that ends its process is not tried again: the request goes to a cold
// process. nil stops the warm-ups. A CommandTarget's sessions, which
// start a process per input, ignore it.
func (s *Session) WarmStarts(input []byte, timeout time.Duration) {
	s.warm, s.warmTimeout = input, timeout
}

// Record runs an input and returns its outcome and coverage.
func (s *Session) Record(input []byte, timeout time.Duration) (*Result, error) {
	return s.run('R', input, timeout)
}

func (s *Session) run(kind byte, input []byte, timeout time.Duration) (*Result, error) {
	if s.command != nil {
		return s.runCommand(kind, input, timeout)
	}
	if err := s.send(kind, input); err != nil {
		return nil, err
	}
	return s.receive(kind, timeout)
}

// send queues a request and flushes it to the harness, starting the
// harness if needed. A failed write means the harness died: the reply
// read that follows reports it.
func (s *Session) send(kind byte, input []byte) error {
	if len(input) > 1<<30 {
		return fmt.Errorf("input of %d bytes is too large", len(input))
	}
	if s.cmd == nil {
		if err := s.startWarm(kind); err != nil {
			return err
		}
	}
	var hdr [requestHeader]byte
	hdr[0] = kind
	// A fresh token per request: a reply the subject forges cannot echo
	// it, since the subject never sees it (it stays in the harness's
	// memory, not in the environment or the arguments).
	if _, err := rand.Read(hdr[1 : 1+tokenSize]); err != nil {
		return fmt.Errorf("request token: %w", err)
	}
	binary.LittleEndian.PutUint32(hdr[1+tokenSize:], uint32(len(input)))
	s.tokens = append(s.tokens, [tokenSize]byte(hdr[1:1+tokenSize]))
	s.stdin.Write(hdr[:])
	s.stdin.Write(input)
	s.stdin.Flush()
	return nil
}

// startWarm starts a harness process for a request of the given kind
// and, where the session warms its processes (WarmStarts) and the
// request is not a warm-up itself, runs the warm-up in it first.
func (s *Session) startWarm(kind byte) error {
	if err := s.start(); err != nil {
		return err
	}
	if s.warm == nil || kind == 'W' {
		return nil
	}
	// The process is up, so this send does not come back here.
	if err := s.send('W', s.warm); err != nil {
		return err
	}
	if _, err := s.receive('W', s.warmTimeout); err != nil {
		return err
	}
	if s.cmd == nil {
		// The warm-up crashed or hung the process: a cold one, rather
		// than warm-ups without end.
		return s.start()
	}
	return nil
}

// tokenSize is the length of a request's token, and requestHeader of a
// request's header: kind, token, input length.
const (
	tokenSize     = 16
	requestHeader = 1 + tokenSize + 4
)

// receive reads the next reply. If none comes within timeout the harness
// is killed and the result is a timeout; if the harness died, a panic
// result describes the crash. Either way requests sent after this one
// are lost, and the next send starts a new harness.
func (s *Session) receive(kind byte, timeout time.Duration) (*Result, error) {
	if s.cmd == nil {
		return s.crashed()
	}
	// A read deadline on the pipe bounds the wait without a goroutine or a
	// timer per input (they cost more than the rest of the round trip).
	// A JVM's first recorded run is slow too, after a quick warm-up: it
	// measures the static initializers of every class the input used
	// (about 0.5 s for gson on an idle machine, past 1 s on a busy one).
	wait := timeout
	if s.fresh || kind == 'R' && s.unrecorded {
		wait += s.bin.StartGrace
	}
	s.fresh = false
	if kind == 'R' {
		s.unrecorded = false
	}
	s.mu.Lock()
	if s.pipe != nil {
		deadline := time.Now().Add(wait)
		if s.stopped {
			deadline = time.Now()
		}
		s.pipe.SetReadDeadline(deadline)
	}
	s.mu.Unlock()
	r, err := s.readReply(kind)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		s.kill()
		return &Result{Outcome: Timeout, Duration: timeout, Message: fmt.Sprintf("no result after %v", timeout)}, nil
	}
	var proto protocolError
	if errors.As(err, &proto) {
		// The reply is not the harness's, or not whole: the subject wrote
		// to the reply pipe. Nothing more read from this process can be
		// trusted, so it goes, and the requests in flight after this one
		// are sent again to a new one: no later input's label shifts.
		s.kill()
		return &Result{Outcome: Error, Message: "harness protocol: " + proto.Error()}, nil
	}
	var bad badHarness
	if errors.As(err, &bad) {
		s.kill()
		return nil, bad.error
	}
	if err != nil {
		return s.crashed()
	}
	return r, nil
}

// Interrupt makes the reply being waited for, and every later one, end
// at once as a timeout, so that a recording stops without waiting out
// an input that hangs (Ctrl-C). It may be called from any goroutine; the
// caller must not keep the results it gets after it.
func (s *Session) Interrupt() {
	if s.command != nil {
		s.command.interrupt()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.pipe != nil {
		s.pipe.SetReadDeadline(time.Now())
	}
}

// alive reports whether a harness process is running.
func (s *Session) alive() bool { return s.cmd != nil }

// crashed turns a dead harness into a panic result and forgets the process.
func (s *Session) crashed() (*Result, error) {
	s.kill()
	if s.report.parent != "" {
		// The subject signalled its parent, the supervisor, which ended
		// the run.
		frames := parentFrames + s.report.parent
		return &Result{Outcome: Panic, Message: s.report.parentNote(), Frames: frames, Stack: hashFrames(frames)}, nil
	}
	text := s.crashText()
	return &Result{Outcome: Panic, Message: firstLine(text), Frames: crashFrames(text), Stack: hashFrames(crashFrames(text))}, nil
}

// crashText is what the dead process said on stderr, without the
// runtime's note about GOCOVERDIR, or else how it exited.
func (s *Session) crashText() string {
	var lines []string
	for _, l := range strings.Split(s.stderr.String(), "\n") {
		if !strings.HasPrefix(l, "warning: GOCOVERDIR") {
			lines = append(lines, l)
		}
	}
	if text := strings.TrimSpace(strings.Join(lines, "\n")); text != "" {
		return text
	}
	if t := s.report.text(); t != "" {
		return "the program exited: " + t
	}
	if s.exit != nil {
		return "the program exited: " + s.exit.Error()
	}
	return "the program exited: exit status 0"
}

func (s *Session) readReply(kind byte) (*Result, error) {
	if len(s.tokens) == 0 {
		return nil, errors.New("no request in flight")
	}
	want := s.tokens[0]
	s.tokens = s.tokens[1:]
	var head [tokenSize + 9]byte
	if _, err := io.ReadFull(s.stdout, head[:tokenSize]); err != nil {
		return nil, err
	}
	if [tokenSize]byte(head[:tokenSize]) != want {
		return nil, protocolError{errors.New("the reply does not echo its request's token (did the subject write to the reply pipe?)")}
	}
	if _, err := io.ReadFull(s.stdout, head[tokenSize:]); err != nil {
		return nil, err
	}
	r := &Result{Duration: time.Duration(binary.LittleEndian.Uint64(head[tokenSize+1:]))}
	switch head[tokenSize] {
	case 0:
		r.Outcome = OK
	case 1:
		r.Outcome = Error
	case 2:
		r.Outcome = Panic
	default:
		return nil, protocolError{fmt.Errorf("the reply's outcome is %d", head[tokenSize])}
	}
	msg, err := s.readBlob()
	if err != nil {
		return nil, err
	}
	r.Message = string(msg)
	frames, err := s.readBlob()
	if err != nil {
		return nil, err
	}
	if r.Outcome == Panic {
		r.Frames = string(frames)
		r.Stack = hashFrames(r.Frames)
	}
	counters, err := s.readBlob()
	if err != nil {
		return nil, err
	}
	if kind == 'R' {
		if err := s.decode(counters, r); err != nil {
			return nil, badHarness{fmt.Errorf("harness for %s: %w", s.bin.Target, err)}
		}
	}
	return r, nil
}

// parentFrames starts the frames of a run the supervisor ended because
// the subject signalled it (see supervise_linux.go).
const parentFrames = "signal to the parent: "

// protocolError is a reply that is not framed as the protocol says, or
// does not echo its request's token: the input's run cannot be told,
// and the harness cannot be trusted any more.
type protocolError struct{ error }

func (e protocolError) Unwrap() error { return e.error }

// badHarness is a reply that breaks the protocol: a harness's fault, not
// the input's, so it is an error rather than a crash of the subject.
type badHarness struct{ error }

func (e badHarness) Unwrap() error { return e.error }

// readNames reads the function names an ARBOR2 harness starts with
// (see HarnessTarget). Names are sorted, as Go's are; ids maps the
// harness's ids to their places. A restarted harness must name the same
// functions.
func (s *Session) readNames(blob []byte) error {
	text := strings.TrimSuffix(string(blob), "\n")
	var names []string
	if text != "" {
		names = strings.Split(text, "\n")
	}
	if s.Funcs != nil {
		if len(names) != len(s.ids) {
			s.kill()
			return fmt.Errorf("harness for %s named %d functions after a restart, %d before", s.bin.Target, len(names), len(s.ids))
		}
		return nil
	}
	if len(names) == 0 {
		s.kill()
		return fmt.Errorf("harness for %s records no functions", s.bin.Target)
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	s.ids = make([]int, len(names))
	for i, n := range names {
		s.ids[i], _ = slices.BinarySearch(sorted, n)
	}
	s.Funcs = &Functions{Names: sorted}
	s.seen = make([]int32, len(sorted))
	s.counts = make([]uint32, len(sorted))
	return nil
}

// decodeNamed fills r.Covered and r.Counts from an ARBOR2 harness's
// (id, calls) pairs.
func (s *Session) decodeNamed(blob []byte, r *Result) error {
	if len(blob)%8 != 0 {
		return fmt.Errorf("harness sent %d bytes of counters, not a whole number of pairs", len(blob))
	}
	s.gen++
	for i := 0; i < len(blob); i += 8 {
		hid := binary.LittleEndian.Uint32(blob[i:])
		calls := binary.LittleEndian.Uint32(blob[i+4:])
		if int(hid) >= len(s.ids) {
			return fmt.Errorf("harness sent function id %d of %d", hid, len(s.ids))
		}
		if calls == 0 {
			continue
		}
		id := s.ids[hid]
		if s.seen[id] != s.gen {
			s.seen[id] = s.gen
			s.counts[id] = 0
			r.Covered = append(r.Covered, id)
		}
		s.counts[id] += calls
	}
	slices.Sort(r.Covered)
	r.Counts = make([]uint32, len(r.Covered))
	for i, id := range r.Covered {
		r.Counts[i] = s.counts[id]
	}
	return nil
}

// decode fills r.Covered and r.Counts from a counter blob.
func (s *Session) decode(blob []byte, r *Result) error {
	if s.ids != nil {
		return s.decodeNamed(blob, r)
	}
	s.gen++
	err := DecodeCounters(blob, &s.Meta.Hash, func(pkg, fn uint32, ctrs []uint32) {
		id := s.Funcs.ID(pkg, fn)
		if id < 0 {
			return
		}
		ran := false
		for _, c := range ctrs {
			if c != 0 {
				ran = true
				break
			}
		}
		if !ran {
			return
		}
		if s.seen[id] != s.gen {
			s.seen[id] = s.gen
			s.counts[id] = 0
			r.Covered = append(r.Covered, id)
		}
		if len(ctrs) > 0 && !s.Meta.Packages[pkg].Funcs[fn].Lit {
			s.counts[id] = max(s.counts[id], ctrs[0])
		}
		if s.Blocks {
			for u, c := range ctrs {
				if c != 0 {
					r.Blocks = append(r.Blocks, s.Funcs.Block(pkg, fn, u))
				}
			}
		}
	})
	if err != nil {
		return err
	}
	sortInts(r.Covered)
	r.Counts = make([]uint32, len(r.Covered))
	for i, id := range r.Covered {
		r.Counts[i] = max(s.counts[id], 1)
	}
	return nil
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func (s *Session) readBlob() ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(s.stdout, n[:]); err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint32(n[:])
	if size > 1<<30 {
		return nil, protocolError{fmt.Errorf("harness sent a blob of %d bytes", size)}
	}
	if cap(s.blob) < int(size) {
		s.blob = make([]byte, size)
	}
	s.blob = s.blob[:size]
	_, err := io.ReadFull(s.stdout, s.blob)
	return s.blob, err
}

// hashFrames is the short hash that identifies a distinct panic.
func hashFrames(frames string) string {
	if frames == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(frames))
	return hex.EncodeToString(sum[:8])
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return s
}

// crashFrames picks the three innermost non-runtime function names of
// the first goroutine of a Go traceback.
func crashFrames(text string) string {
	var top []string
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if len(top) == 3 || strings.HasPrefix(line, "goroutine ") && len(top) > 0 {
			break
		}
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") && strings.Contains(line, "(") {
			fn := line[:strings.LastIndex(line, "(")]
			if !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "main.") && !strings.HasPrefix(fn, "panic") {
				top = append(top, fn)
			}
		}
	}
	return strings.Join(top, "\n")
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if t.b.Len() > t.max {
		t.b.Next(t.b.Len() - t.max)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
