//go:build linux

package coverage

import "syscall"

// deathSignal asks the kernel to kill the harness when the thread that
// started it (and so arbor) dies, so that a harness spinning in the
// subject does not outlive a killed arbor.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
