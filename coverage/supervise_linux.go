//go:build linux

package coverage

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A supervisor is a small process between arbor and the subject's
// process (a harness, or a command's run): arbor's own program, started
// again with superviseVar in its environment, which this package's init
// turns into a call of supervise before anything else runs. It exists
// because the subject's process must not be arbor's child:
//
//   - getppid() of the subject is the supervisor's pid, not arbor's, so
//     a subject that signals its parent (kill(getppid(), SIGTERM), or
//     SIGSTOP) reaches the supervisor. The supervisor catches the
//     signals that would end it, says which it got (the input is then
//     labelled a crash with that text) and ends the subject's process;
//     the recording goes on with a new one. SIGSTOP cannot be caught:
//     arbor sends the supervisor SIGCONT whenever it needs it.
//   - It is the subreaper (PR_SET_CHILD_SUBREAPER) of everything the
//     subject starts: a child that leaves the process group and the
//     session (setsid) is still its descendant, and is killed with the
//     rest when the subject's process ends, when arbor ends the run
//     (closing the supervisor's "live" pipe), and when arbor dies
//     (the same pipe reads end-of-file, and the kernel sends the
//     supervisor SIGTERM: Pdeathsig).
//   - Resource limits that must hold from the program's first
//     instruction (RLIMIT_AS, RLIMIT_DATA for commands) are set by a
//     shell's ulimit just before it execs the program.
//
// What remains possible: a subject that looks for arbor's pid (walking
// /proc, or asking for its grandparent) can still signal arbor itself,
// and one that kills the supervisor with SIGKILL ends its own run (the
// kernel kills the subject's process with it: Pdeathsig), but then its
// setsid children are left to the init process. A cgroup would close
// both; arbor does not need one to run.
//
// The supervisor's descriptors: 0-2 and 3 .. 3+n-1 are passed to the
// subject's process, live (one of them, or one of its own) reads
// end-of-file when arbor wants the run to end, and status receives
// lines that say how it ended:
//
//	exit N       the subject's process exited with status N
//	signal N     it was killed by signal N
//	parent SIG   the supervisor got signal SIG while the run went on
const superviseVar = "ARBOR_SUPERVISE"

func init() {
	if spec, ok := os.LookupEnv(superviseVar); ok {
		os.Exit(supervise(spec, os.Args[1:]))
	}
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// superviseSpec is what the supervisor is told in its environment.
type superviseSpec struct {
	as, data     int64 // limits in bytes; 0: none
	files        int   // descriptors 3 .. 3+files-1 are the subject's
	live, status int   // descriptors
}

func (sp superviseSpec) String() string {
	return fmt.Sprintf("1 %d %d %d %d %d", sp.as, sp.data, sp.files, sp.live, sp.status)
}

// supervisedCmd has cmd run under a supervisor: cmd's program and
// arguments become the supervisor's, its ExtraFiles stay the subject's,
// and two pipes are added: live (arbor's end returned: closing it ends
// the run) and status (arbor's end returned: read it once the
// supervisor has exited). If liveIndex is not negative, cmd's
// ExtraFiles[liveIndex] already plays live's part (the harness's parent
// pipe), and live is nil. It returns false, with cmd unchanged, where
// no supervisor can be started.
func supervisedCmd(cmd *exec.Cmd, as, data int64, liveIndex int) (live, status *os.File, ok bool, err error) {
	// /proc/self/exe, which the forked child resolves to arbor's own
	// program, even one replaced or removed since it started.
	const exe = "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil || cmd.Err != nil {
		return nil, nil, false, nil
	}
	// A program that cannot be started is left to cmd.Start to report,
	// as it would without a supervisor.
	prog := cmd.Path
	if !filepath.IsAbs(prog) && cmd.Dir != "" {
		prog = filepath.Join(cmd.Dir, prog)
	}
	if fi, err := os.Stat(prog); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return nil, nil, false, nil
	}
	sp := superviseSpec{as: as, data: data, files: len(cmd.ExtraFiles)}
	var liveW *os.File
	extra := slices.Clone(cmd.ExtraFiles)
	if liveIndex >= 0 {
		sp.live = 3 + liveIndex
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, nil, false, err
		}
		sp.live = 3 + len(extra)
		extra = append(extra, r)
		liveW = w
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		closeFiles(liveW)
		if liveIndex < 0 {
			closeFiles(extra[len(extra)-1])
		}
		return nil, nil, false, err
	}
	sp.status = 3 + len(extra)
	extra = append(extra, sw)
	path := cmd.Path
	args := cmd.Args
	if len(args) == 0 {
		args = []string{path}
	}
	cmd.Path = exe
	cmd.Args = append([]string{"arbor-supervisor", path}, args...)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clone(env), superviseVar+"="+sp.String())
	cmd.ExtraFiles = extra
	// A session of its own: no terminal's signals, and a kill of the
	// subject's process group cannot reach arbor's. SIGTERM when arbor
	// dies, so that it cleans up before it goes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
	return liveW, sr, true, nil
}

// endSupervised ends a supervised run: resumes the supervisor (the
// subject may have stopped it), closes live so that it kills what the
// subject left, and waits for it up to a few seconds before killing it.
func endSupervised(p *os.Process, live *os.File, done <-chan error) error {
	resume(p)
	closeFiles(live)
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		p.Kill()
		return <-done
	}
}

// resume sends SIGCONT to a supervisor the subject may have stopped.
func resume(p *os.Process) { p.Signal(syscall.SIGCONT) }

// supervise is the supervisor's main: it returns its exit status.
func supervise(specText string, args []string) int {
	var sp superviseSpec
	var version int
	if _, err := fmt.Sscanf(specText, "%d %d %d %d %d %d", &version, &sp.as, &sp.data, &sp.files, &sp.live, &sp.status); err != nil || version != 1 || len(args) < 2 {
		fmt.Fprintf(os.Stderr, "arbor supervisor: bad arguments (%s=%q)\n", superviseVar, specText)
		return 125
	}
	parent := os.Getppid()
	status := os.NewFile(uintptr(sp.status), "status")
	syscall.CloseOnExec(sp.status)
	if sp.live >= 3+sp.files {
		syscall.CloseOnExec(sp.live)
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintf(os.Stderr, "arbor supervisor: cannot become a subreaper: %v\n", errno)
	}
	// The signals that would end or stop the supervisor are caught: only
	// its parent (arbor, which never sends them) and the processes it
	// supervises know its pid.
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs, syscall.SIGCHLD,
		syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2,
		syscall.SIGALRM, syscall.SIGPIPE, syscall.SIGVTALRM, syscall.SIGPROF, syscall.SIGXCPU, syscall.SIGXFSZ,
		syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	path, argv := args[0], args[1:]
	if sp.as > 0 || sp.data > 0 {
		path, argv = limitArgv(sp, path, argv)
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, superviseVar+"=") {
			env = append(env, e)
		}
	}
	files := []uintptr{0, 1, 2}
	for i := 0; i < sp.files; i++ {
		files = append(files, uintptr(3+i))
	}
	wd, _ := os.Getwd()
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir: wd, Env: env, Files: files,
		// A process group of its own, which a subject's kill(0, sig)
		// stays in; killed by the kernel if the supervisor dies.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "start %s: %v\n", path, err)
		return 126
	}
	// The subject's process holds the pipes now: once it is gone, arbor
	// must read end-of-file on them, not wait for the supervisor.
	for i := 0; i < sp.files; i++ {
		if 3+i != sp.live {
			syscall.Close(3 + i)
		}
	}
	gone := make(chan struct{})
	go func() {
		var b [1]byte
		for {
			if _, err := syscall.Read(sp.live, b[:]); err != syscall.EINTR {
				break
			}
		}
		close(gone)
	}()
	report := func(format string, a ...any) { fmt.Fprintf(status, format+"\n", a...) }
	for {
		select {
		case <-gone:
			killTree(pid, report)
			return 0
		case sig := <-sigs:
			if sig == syscall.SIGCHLD {
				if ws, done := reap(pid); done {
					report("%s", exitLine(ws))
					killTree(pid, report)
					return 0
				}
				continue
			}
			if os.Getppid() != parent {
				// Arbor died (Pdeathsig): clean up and go.
				killTree(pid, report)
				return 0
			}
			switch sig {
			case syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
				// Stopping is not ending: the run goes on.
				continue
			}
			report("parent %s", signalName(sig))
			// The run ends as a crash whose message names the signal.
			killTree(pid, report)
			return 0
		}
	}
}

// limitArgv wraps a program in a shell that sets the resource limits
// and execs it, so that they hold from its first instruction (Go cannot
// set a child's limits between fork and exec).
func limitArgv(sp superviseSpec, path string, argv []string) (string, []string) {
	script := ""
	if sp.data > 0 {
		script += "ulimit -d " + strconv.FormatInt(max(sp.data>>10, 1), 10) + " || exit 125; "
	}
	if sp.as > 0 {
		script += "ulimit -v " + strconv.FormatInt(max(sp.as>>10, 1), 10) + " || exit 125; "
	}
	script += `exec "$@"`
	return "/bin/sh", append([]string{"sh", "-c", script, argv[0], path}, argv[1:]...)
}

// reap collects the exited children (the subject's process and orphans
// of its tree) and reports the subject's process's status once it has
// exited.
func reap(pid int) (syscall.WaitStatus, bool) {
	for {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || p <= 0 {
			return 0, false
		}
		if p == pid {
			return ws, true
		}
	}
}

func exitLine(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "signal " + strconv.Itoa(int(ws.Signal()))
	}
	return "exit " + strconv.Itoa(ws.ExitStatus())
}

// killTree kills the subject's process group and then every process
// left in the supervisor's tree: orphans, setsid children included,
// become the supervisor's children (it is their subreaper), so killing
// its children until none is left kills them all.
func killTree(pid int, report func(string, ...any)) {
	syscall.Kill(-pid, syscall.SIGKILL)
	syscall.Kill(pid, syscall.SIGKILL)
	for {
		for _, c := range children() {
			syscall.Kill(c, syscall.SIGKILL)
		}
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return // ECHILD: nothing is left
		}
		if p == pid {
			report("%s", exitLine(ws))
		}
	}
}

// children lists the supervisor's children: those of each of its
// threads (an orphan is given to any thread of its subreaper), or where
// the kernel does not list them, every process whose parent it is.
func children() []int {
	var pids []int
	tasks, err := os.ReadDir("/proc/self/task")
	listed := err == nil
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			listed = false
			break
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
	}
	if listed {
		return pids
	}
	pids = pids[:0]
	self := os.Getpid()
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		n, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		rest := b[strings.LastIndexByte(string(b), ')')+1:]
		f := strings.Fields(string(rest))
		if len(f) > 1 && f[1] == strconv.Itoa(self) {
			pids = append(pids, n)
		}
	}
	return pids
}

func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	}
	return sig.String()
}
