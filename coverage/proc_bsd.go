//go:build unix && !linux

package coverage

import "syscall"

// deathSignal has no equivalent here.
func deathSignal(*syscall.SysProcAttr) {}
