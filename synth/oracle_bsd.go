//go:build unix && !linux

package synth

import "syscall"

// deathSignal has no equivalent here.
func deathSignal(*syscall.SysProcAttr) {}
