//go:build !unix

package procgroup

import "os/exec"

// Isolate does nothing where there are no process groups.
func Isolate(*exec.Cmd) {}

// Kill kills cmd.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
