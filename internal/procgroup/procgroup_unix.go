//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Isolate puts cmd, not yet started, in a process group of its own and,
// on Linux, has the kernel kill it when the thread that started it (and
// so arbor) dies.
func Isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
}

// Kill kills cmd's process group, or cmd alone if the group is gone.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}
