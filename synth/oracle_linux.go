//go:build linux

package synth

import "syscall"

// deathSignal asks the kernel to kill the oracle command when the thread
// that started it (and so arbor) dies. It reaches the command, not what
// the command started: those the group kill on every exit path of arbor
// ends.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
