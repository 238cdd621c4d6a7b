//go:build linux

package procgroup_test

import (
	"context"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/procgroup"
	"github.com/arbor-fuzz/arbor/internal/proctest"
)

// TestCommandKillsGroup: when the context ends, a child the program
// started (sh's background sleep) goes with it.
func TestCommandKillsGroup(t *testing.T) {
	mark := proctest.NewMark()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := procgroup.Command(ctx, "sh", "-c", "sleep 300 & wait")
	cmd.Env = []string{mark, "PATH=/usr/bin:/bin"}
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	for start := time.Now(); len(proctest.Marked(mark)) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the child did not start")
		}
	}
	cancel()
	cmd.Wait()
	if left := proctest.WaitGone(mark, 5*time.Second); len(left) > 0 {
		t.Errorf("processes outlive the group kill: %v", left)
	}
}
