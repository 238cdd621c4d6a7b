//go:build !linux

package coverage

import (
	"os"
	"os/exec"
)

// supervisedCmd: only Linux has a supervisor (see supervise_linux.go).
func supervisedCmd(*exec.Cmd, int64, int64, int) (live, status *os.File, ok bool, err error) {
	return nil, nil, false, nil
}

// endSupervised is not called where there is no supervisor.
func endSupervised(p *os.Process, live *os.File, done <-chan error) error {
	p.Kill()
	closeFiles(live)
	return <-done
}

// resume has nothing to resume where there is no supervisor.
func resume(*os.Process) {}
