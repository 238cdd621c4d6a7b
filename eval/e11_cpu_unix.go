//go:build unix

package eval

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: what
// E11 divides by, so that the program under test, which runs in another
// process, and other load on the machine do not count.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
