// Package procgroup runs a program so that all it starts can be ended
// with it: in a process group of its own (and, on Linux, killed by the
// kernel when the thread that started it dies), ended by killing the
// whole group. A harness's subject, a compiler the go command starts and
// an oracle's sh -c script all leave children that a kill of the one
// process would leave behind.
//
//	cmd := procgroup.Command(ctx, "go", "build", "./...") // the group goes when ctx does
//	err := cmd.Run()
package procgroup

import (
	"context"
	"os/exec"
)

// Command is exec.CommandContext with the program in a group of its own
// (Isolate) and the whole group killed when ctx is done.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	Isolate(cmd)
	cmd.Cancel = func() error { return Kill(cmd) }
	return cmd
}
