package coverage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/arbor-fuzz/arbor/internal/procgroup"
)

// Command is a program under test that is not a Go function: any command
// line, run once per input in a process of its own. The input reaches it
// as a file, where the command line says {} (so no input byte is ever
// read by a shell), or, without {}, on stdin. Each run gets a scratch
// folder of its own, named by {dir} in the command line and by
// ARBOR_RUN_DIR in its environment, where coverage tools are told to
// leave their reports; the folder is what an adapter reads afterwards.
// RecordCommand and CommandTarget.NewCommand have arbor run the coverage
// tool itself around a program it knows (a program built with gcc
// --coverage, python, java: see drive.go), so that Argv can be the
// program and its arguments alone.
type Command struct {
	Argv []string // the program and its arguments, with {} and {dir}
	Dir  string   // where it runs; empty: the current directory
	Env  []string // added to arbor's environment

	// Timeout bounds each run; 0 means one second.
	Timeout time.Duration
	// Reject lists the exit statuses that mean the program rejected the
	// input (outcome error). Nil means every nonzero status; otherwise a
	// nonzero status not in the list is a crash (outcome panic), as an
	// uncaught exception's status is in most languages.
	Reject []int
	// Crash, if set, makes a run whose stderr matches it a crash, whatever
	// its status (a sanitizer's report, a traceback printed by a handler
	// that exits 0).
	Crash *regexp.Regexp
	// Output, if set, receives the program's stdout and stderr, line by
	// line, prefixed with the stream's name; otherwise only the last
	// 64 KB of stderr are kept, for crash reports.
	Output io.Writer
	// CacheDir is where arbor keeps what it builds to drive a coverage
	// tool (JaCoCo's reporter); empty means DefaultCacheDir().
	CacheDir string
	// Memory, if positive, bounds each run's memory (bytes), on Linux:
	// its data (RLIMIT_DATA: every private writable mapping) at Memory,
	// and its address space (RLIMIT_AS), which counts shared mappings
	// too, at twice Memory, to leave room for what runtimes reserve
	// without using (a JVM reserves over a GiB before it runs anything:
	// it starts under the default 2 GiB, not under 512 MiB). A run that
	// needs more fails as its program fails to allocate.
	Memory int64

	// driver, if set, runs the report format's coverage tool around each
	// run (drive.go), making a report of format; driven says the choice
	// is made, and hint what to say when an undriven run leaves no
	// report.
	driver driver
	driven bool
	format string
	hint   string
}

// CommandRun is one input's run of a Command.
type CommandRun struct {
	Result
	// Dir is the run's scratch folder, with what the program left there;
	// the caller removes it (Close).
	Dir string
}

// Close removes the run's scratch folder.
func (r *CommandRun) Close() error { return os.RemoveAll(r.Dir) }

// ParseCommand splits a command line into words as a POSIX shell would,
// with single and double quotes and backslashes, but nothing else: no
// variables, pipes, redirections or substitutions (refused, so that a
// user who meant a shell finds out) and no globbing (*, ? and [ are
// taken as written), so that what runs is exactly the program named with
// the arguments written.
func ParseCommand(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("command line: unterminated ' at byte %d", i)
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) && strings.IndexByte("\"\\$`\n", line[j+1]) >= 0 {
					j++
				}
				w.WriteByte(line[j])
			}
			if j == len(line) {
				return nil, fmt.Errorf(`command line: unterminated " at byte %d`, i)
			}
			i = j
			inWord = true
		case c == '\\':
			if i+1 == len(line) {
				return nil, errors.New(`command line: \ at the end`)
			}
			i++
			w.WriteByte(line[i])
			inWord = true
		case strings.IndexByte("|&;<>()$`", c) >= 0:
			return nil, fmt.Errorf("command line: %q at byte %d is shell syntax, which arbor does not interpret; quote it, or run a shell explicitly (sh -c '...')", c, i)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("command line: empty")
	}
	return words, nil
}

// Run runs one input. Only a failure to run at all (the program cannot
// be started, the scratch folder cannot be made) is an error; how the
// program ended is the result's outcome.
func (c *Command) Run(ctx context.Context, input []byte) (*CommandRun, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("command: no program")
	}
	dir, err := os.MkdirTemp("", "arbor-run-")
	if err != nil {
		return nil, fmt.Errorf("run folder: %w", err)
	}
	run := &CommandRun{Dir: dir}
	argv, viaFile, err := c.arguments(dir, input)
	if err != nil {
		run.Close()
		return nil, err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = time.Second
	}
	cmd, output, stderr := c.command(argv, dir, viaFile, input)
	p, err := c.start(cmd, argv[0])
	if err != nil {
		run.Close()
		return nil, err
	}
	e, err := p.wait(ctx, timeout)
	if err != nil {
		run.Close()
		return nil, err
	}
	if e.timedOut {
		if e.rep.parent != "" {
			c.judgeParent(&run.Result, e.rep)
			return run, nil
		}
		run.Duration = timeout
		run.Outcome, run.Message = Timeout, fmt.Sprintf("no result after %v", timeout)
		return run, nil
	}
	run.Duration = e.duration
	output.flush()
	if e.rep.parent != "" {
		c.judgeParent(&run.Result, e.rep)
		return run, nil
	}
	c.judge(&run.Result, exitOf(e.waitErr, e.rep), stderr.String())
	if err := c.report(ctx, run); err != nil {
		run.Close()
		return nil, err
	}
	return run, nil
}

// arguments are the command line with {} and {dir} replaced for a run
// in dir; if it names the input file, arguments writes the input there.
func (c *Command) arguments(dir string, input []byte) (argv []string, viaFile bool, err error) {
	inputPath := filepath.Join(dir, "input")
	argv = slices.Clone(c.Argv)
	for i, a := range argv {
		if strings.Contains(a, "{}") {
			viaFile = true
		}
		argv[i] = strings.NewReplacer("{}", inputPath, "{dir}", dir).Replace(a)
	}
	if viaFile {
		if err := os.WriteFile(inputPath, input, 0o644); err != nil {
			return nil, false, fmt.Errorf("write input: %w", err)
		}
	}
	return argv, viaFile, nil
}

// command is the run's process, not yet started, with its output going
// to the capture and stderr's tail kept.
func (c *Command) command(argv []string, dir string, viaFile bool, input []byte) (*exec.Cmd, *outputCapture, *tailBuffer) {
	env := append(os.Environ(), c.Env...)
	if c.driver != nil {
		var more []string
		argv, more = c.driver.wrap(argv, dir)
		env = append(env, more...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(env, "ARBOR_RUN_DIR="+dir)
	if !viaFile {
		cmd.Stdin = bytes.NewReader(input)
	}
	output := newOutputCapture(c.Output)
	stderr := &tailBuffer{max: 1 << 16}
	cmd.Stdout = output.writer("stdout", nil)
	cmd.Stderr = output.writer("stderr", stderr)
	return cmd, output, stderr
}

// commandProc is a started run of a Command's program.
type commandProc struct {
	cmd          *exec.Cmd
	supervised   bool
	live, status *os.File // the supervisor's pipes (supervisedCmd)
	done         chan error
	start        time.Time
}

// start starts the run's process, program being what the command line
// (before a driver wrapped it) names, for errors.
//
// Where it can, the program runs under a supervisor
// (supervise_linux.go): it cannot signal arbor, its memory is bounded
// from its first instruction, and whatever it starts, setsid children
// included, is killed when the run ends. Elsewhere it is a process
// group of its own.
func (c *Command) start(cmd *exec.Cmd, program string) (*commandProc, error) {
	live, status, supervised, err := supervisedCmd(cmd, 2*max(c.Memory, 0), max(c.Memory, 0), -1)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", program, err)
	}
	if !supervised {
		procgroup.Isolate(cmd)
	}
	cmd.WaitDelay = time.Second // a child holding stdout must not hold arbor
	start := time.Now()
	err = cmd.Start()
	if supervised {
		closeFiles(cmd.ExtraFiles...) // the supervisor has its own copies
	}
	if err != nil {
		closeFiles(live, status)
		return nil, fmt.Errorf("start %s: %w", program, err)
	}
	p := &commandProc{cmd: cmd, supervised: supervised, live: live, status: status, done: make(chan error, 1), start: start}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// end ends the run and what it started, and says how it ended.
func (p *commandProc) end() (supervisorReport, error) {
	if !p.supervised {
		procgroup.Kill(p.cmd)
		return supervisorReport{}, <-p.done
	}
	err := endSupervised(p.cmd.Process, p.live, p.done)
	return readSupervisorReport(p.status), err
}

// commandEnd is how a run's process ended.
type commandEnd struct {
	timedOut bool
	waitErr  error // the wait's, if it exited
	rep      supervisorReport
	duration time.Duration // the run's, if it exited
}

// wait waits for the run's process to exit, or ends it at the timeout.
// If the context is done first it ends the process and returns the
// context's error.
func (p *commandProc) wait(ctx context.Context, timeout time.Duration) (commandEnd, error) {
	var e commandEnd
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case e.waitErr = <-p.done:
		// The supervisor has already killed what the program started
		// and left running; without one, that is done here.
		e.duration = time.Since(p.start)
		if p.supervised {
			closeFiles(p.live)
			e.rep = readSupervisorReport(p.status)
		} else {
			procgroup.Kill(p.cmd)
		}
	case <-timer.C:
		e.timedOut = true
		e.rep, _ = p.end()
	case <-ctx.Done():
		p.end()
		return e, ctx.Err()
	}
	return e, nil
}

// report has the driver make the run's coverage report, unless the
// command made one itself, which is then the one read.
func (c *Command) report(ctx context.Context, run *CommandRun) error {
	if c.driver == nil || hasReport(run.Dir, c.format) {
		return nil
	}
	if err := c.driver.report(ctx, run.Dir); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// A crashed run's data may be cut short: it is recorded
		// with no coverage, as a crash that left no data is.
		if run.Outcome != Panic {
			return err
		}
	}
	return nil
}

// judgeParent labels a run during which the program signalled its
// parent, the supervisor, which ended it.
func (c *Command) judgeParent(r *Result, rep supervisorReport) {
	r.Outcome, r.Message = Panic, rep.parentNote()
	r.Frames = parentFrames + rep.parent
	r.Stack = hashFrames(r.Frames)
}

// exit is how a program ended: an exit code, or a signal.
type exit struct {
	code   int
	signal syscall.Signal // 0: it exited
	err    error          // it could not be waited for
}

// exitOf is how a run ended: as its supervisor reports it, or else as
// the wait for the process says.
func exitOf(waitErr error, rep supervisorReport) exit {
	switch {
	case rep.signal != 0:
		return exit{signal: rep.signal}
	case rep.exited:
		return exit{code: rep.code}
	case waitErr == nil:
		return exit{}
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if status, ok := ee.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			return exit{signal: status.Signal()}
		}
		return exit{code: ee.ExitCode()}
	}
	return exit{err: waitErr}
}

// judge sets the outcome of a finished run from its exit and stderr.
func (c *Command) judge(r *Result, e exit, stderr string) {
	text := strings.TrimSpace(stderr)
	switch {
	case e.err != nil:
		r.Outcome, r.Message = Panic, e.err.Error()
	case e.signal != 0:
		r.Outcome, r.Message = Panic, "killed by signal: "+e.signal.String()
	case e.code == 0:
		r.Outcome = OK
	case c.Reject == nil || slices.Contains(c.Reject, e.code):
		r.Outcome, r.Message = Error, fmt.Sprintf("exit status %d", e.code)
	default:
		r.Outcome, r.Message = Panic, fmt.Sprintf("exit status %d", e.code)
	}
	if c.Crash != nil && r.Outcome != Panic {
		if m := c.Crash.FindString(stderr); m != "" {
			r.Outcome, r.Message = Panic, m
		}
	}
	if text != "" && r.Outcome != OK {
		r.Message = firstLine(text) + " (" + r.Message + ")"
	}
	if r.Outcome == Panic && text != "" {
		r.Frames = lastLines(text, 3)
		r.Stack = hashFrames(r.Frames)
	}
}

// lastLines is the last n non-empty lines of text: where most runtimes
// put the innermost frames or the error of a crash report.
func lastLines(text string, n int) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
