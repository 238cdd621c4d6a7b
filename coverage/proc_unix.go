//go:build unix

package coverage

import (
	"os/exec"
	"syscall"
)

// isolate puts the harness in a process group of its own (and, on
// Linux, has the kernel kill it when arbor dies), so that killing it
// kills whatever the subject started too.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
}

// killGroup kills the harness's process group: a child the subject
// started, still holding the harness's stderr, would otherwise keep it
// open.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}
