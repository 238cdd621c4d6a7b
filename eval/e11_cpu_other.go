//go:build !unix

package eval

import "time"

// processStart stands in for the process's start where CPU time cannot
// be read: cpuTime is then wall time.
var processStart = time.Now()

// cpuTime is, where the system offers no CPU time, the wall time since
// the process started.
func cpuTime() time.Duration { return time.Since(processStart) }
