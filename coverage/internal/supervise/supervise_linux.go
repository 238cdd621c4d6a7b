//go:build linux

package supervise

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// Var, when set in a process's environment, makes this package's init
// run the process as a supervisor, with the Spec it holds, and exit: a
// program that links the package (arbor, through package coverage) is
// its own supervisor, started again. The package imports little, so
// that its init runs early in a large program's initialization.
const Var = "ARBOR_SUPERVISE"

func init() {
	if spec, ok := os.LookupEnv(Var); ok {
		os.Exit(supervise(spec, os.Args[1:]))
	}
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// Spec is what the supervisor is told in its environment.
type Spec struct {
	AS, Data     int64 // limits in bytes; 0: none
	Files        int   // descriptors 3 .. 3+Files-1 are the subject's
	Live, Status int   // descriptors
}

// String is the Spec as Var's value.
func (sp Spec) String() string {
	return fmt.Sprintf("1 %d %d %d %d %d", sp.AS, sp.Data, sp.Files, sp.Live, sp.Status)
}

// supervise is the supervisor's main: it returns its exit status.
func supervise(specText string, args []string) int {
	var sp Spec
	var version int
	if _, err := fmt.Sscanf(specText, "%d %d %d %d %d %d", &version, &sp.AS, &sp.Data, &sp.Files, &sp.Live, &sp.Status); err != nil || version != 1 || len(args) < 2 {
		fmt.Fprintf(os.Stderr, "arbor supervisor: bad arguments (%s=%q)\n", Var, specText)
		return 125
	}
	parent := os.Getppid()
	status, sigs := setUp(sp)
	pid, err := startSubject(sp, args[0], args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		return 126
	}
	gone := closed(sp.Live)
	report := func(format string, a ...any) { fmt.Fprintf(status, format+"\n", a...) }
	watch(pid, parent, gone, sigs, report)
	return 0
}

// setUp makes the supervisor one: it keeps its status and live pipes
// from the subject, becomes the subreaper of the subject's tree, and
// catches the signals that would end or stop it, which it returns with
// the status pipe.
func setUp(sp Spec) (status *os.File, sigs chan os.Signal) {
	status = os.NewFile(uintptr(sp.Status), "status")
	syscall.CloseOnExec(sp.Status)
	if sp.Live >= 3+sp.Files {
		syscall.CloseOnExec(sp.Live)
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintf(os.Stderr, "arbor supervisor: cannot become a subreaper: %v\n", errno)
	}
	// The signals that would end or stop the supervisor are caught: only
	// its parent (arbor, which never sends them) and the processes it
	// supervises know its pid.
	sigs = make(chan os.Signal, 32)
	signal.Notify(sigs, syscall.SIGCHLD,
		syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2,
		syscall.SIGALRM, syscall.SIGPIPE, syscall.SIGVTALRM, syscall.SIGPROF, syscall.SIGXCPU, syscall.SIGXFSZ,
		syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	return status, sigs
}

// startSubject starts the subject's process, path with argv, under the
// spec's limits, and closes the supervisor's copies of its descriptors.
func startSubject(sp Spec, path string, argv []string) (pid int, err error) {
	if sp.AS > 0 || sp.Data > 0 {
		path, argv = limitArgv(sp, path, argv)
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, Var+"=") {
			env = append(env, e)
		}
	}
	files := []uintptr{0, 1, 2}
	for i := 0; i < sp.Files; i++ {
		files = append(files, uintptr(3+i))
	}
	wd, _ := os.Getwd()
	pid, err = syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir: wd, Env: env, Files: files,
		// A process group of its own, which a subject's kill(0, sig)
		// stays in; killed by the kernel if the supervisor dies.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 0, fmt.Errorf("start %s: %v", path, err)
	}
	// The subject's process holds the pipes now: once it is gone, arbor
	// must read end-of-file on them, not wait for the supervisor.
	for i := 0; i < sp.Files; i++ {
		if 3+i != sp.Live {
			syscall.Close(3 + i)
		}
	}
	return pid, nil
}

// closed is closed once the descriptor fd, the live pipe, reads
// end-of-file: arbor has ended the run.
func closed(fd int) <-chan struct{} {
	gone := make(chan struct{})
	go func() {
		var b [1]byte
		for {
			if _, err := syscall.Read(fd, b[:]); err != syscall.EINTR {
				break
			}
		}
		close(gone)
	}()
	return gone
}

// watch supervises the subject's process until the run ends: arbor
// closes the live pipe (gone), the process exits, arbor dies, or the
// subject signals the supervisor, which ends the run as a crash. Then
// it kills what is left of the subject's tree.
func watch(pid, parent int, gone <-chan struct{}, sigs <-chan os.Signal, report func(string, ...any)) {
	for {
		select {
		case <-gone:
			killTree(pid, report)
			return
		case sig := <-sigs:
			if sig == syscall.SIGCHLD {
				if ws, done := reap(pid); done {
					report("%s", exitLine(ws))
					killTree(pid, report)
					return
				}
				continue
			}
			if os.Getppid() != parent {
				// Arbor died (Pdeathsig): clean up and go.
				killTree(pid, report)
				return
			}
			switch sig {
			case syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
				// Stopping is not ending: the run goes on.
				continue
			}
			report("parent %s", signalName(sig))
			// The run ends as a crash whose message names the signal.
			killTree(pid, report)
			return
		}
	}
}

// limitArgv wraps a program in a shell that sets the resource limits
// and execs it, so that they hold from its first instruction (Go cannot
// set a child's limits between fork and exec).
func limitArgv(sp Spec, path string, argv []string) (string, []string) {
	script := ""
	if sp.Data > 0 {
		script += "ulimit -d " + strconv.FormatInt(max(sp.Data>>10, 1), 10) + " || exit 125; "
	}
	if sp.AS > 0 {
		script += "ulimit -v " + strconv.FormatInt(max(sp.AS>>10, 1), 10) + " || exit 125; "
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
