//go:build !unix

package synth

import (
	"errors"
	"os/exec"
)

func isolate(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

func limitMemory([]string, int64) ([]string, error) {
	return nil, errors.New("a memory limit for an oracle command needs a unix shell (ulimit -v); give a limit of 0")
}
