//go:build unix

package synth

import (
	"os/exec"
	"strconv"
	"syscall"
)

// isolate puts an oracle command in a process group of its own (and, on
// Linux, has the kernel kill it when arbor dies), so that killing the
// group kills whatever the command started too: sh -c runs its script's
// commands as children, which a kill of sh alone leaves behind.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
}

// killGroup kills the command's process group, or the command alone if
// the group is gone.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}

// limitMemory returns argv run under a limit of bytes of virtual memory
// (RLIMIT_AS, in KiB through the shell's ulimit -v, which every POSIX
// shell has; the limit is inherited by everything the command starts).
// A limit the shell cannot set is one already lower: the command then
// runs under that.
func limitMemory(argv []string, bytes int64) ([]string, error) {
	kib := max(bytes/1024, 1)
	return append([]string{"sh", "-c", `ulimit -v "$1" 2>/dev/null; shift; exec "$@"`, "sh", strconv.FormatInt(kib, 10)}, argv...), nil
}
