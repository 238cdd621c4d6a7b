//go:build unix && !linux

package procgroup

import "syscall"

// deathSignal has no equivalent here.
func deathSignal(*syscall.SysProcAttr) {}
