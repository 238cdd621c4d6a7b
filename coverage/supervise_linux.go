//go:build linux

package coverage

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/arbor-fuzz/arbor/coverage/internal/supervise"
)

// The harness, and a command's run, are started by a supervisor (package
// coverage/internal/supervise): arbor's own program, started again with
// supervise.Var in its environment.

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
	sp := supervise.Spec{AS: as, Data: data, Files: len(cmd.ExtraFiles)}
	var liveW *os.File
	extra := slices.Clone(cmd.ExtraFiles)
	if liveIndex >= 0 {
		sp.Live = 3 + liveIndex
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, nil, false, err
		}
		sp.Live = 3 + len(extra)
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
	sp.Status = 3 + len(extra)
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
	cmd.Env = append(slices.Clone(env), supervise.Var+"="+sp.String())
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
