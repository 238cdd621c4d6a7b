//go:build linux

package procgroup

import "syscall"

// deathSignal asks the kernel to kill the process when the thread that
// started it dies. It reaches the process, not what the process started:
// the group kill on every exit path ends those.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
