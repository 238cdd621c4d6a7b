//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/proctest"
)

// TestRLCheckSignal (issue 29, items 9 and 10): SIGINT or SIGTERM during
// an oracle command that would run for a minute stops rlcheck at once:
// the command's whole process group is killed (a sleeping grandchild
// included), the summary of the trials judged so far is printed, --out
// is written, and rlcheck exits 1. The test asserts that arbor exits and
// leaves no process behind, not how fast: it logs the time. Before,
// rlcheck waited out the oracle's fixed 1 s limit, killed sh alone, and
// went on to the next input until it had looked at its context (every
// 256 trials).
func TestRLCheckSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs arbor as a process of its own")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			mark := proctest.NewMark()
			// The first input is valid at once; the second starts a
			// marked grandchild and waits for it.
			oracle := `if [ -e ` + filepath.Join(dir, "seen") + ` ]; then ` + mark + ` sleep 60 & wait; fi; touch ` + filepath.Join(dir, "seen")
			out := filepath.Join(dir, "valid")
			cmd := exec.Command(os.Args[0], "rlcheck", "--grammar", "expr", "--oracle-cmd", oracle, "--timeout", "1m", "--trials", "100", "--out", out)
			cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() {
				cmd.Wait()
				close(exited)
			}()
			defer func() {
				select {
				case <-exited:
				default:
					cmd.Process.Kill()
					<-exited
				}
				proctest.WaitGone(mark, time.Second)
			}()
			waitFor(t, time.Minute, "the oracle's grandchild", func() bool { return len(proctest.Marked(mark)) > 0 })
			sent := time.Now()
			cmd.Process.Signal(sig)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				t.Fatalf("rlcheck did not exit within 10 s of %v", sig)
			}
			t.Logf("exited %v after %v", time.Since(sent).Round(time.Millisecond), sig)
			if code := cmd.ProcessState.ExitCode(); code != exitFailure {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFailure, stderr.String())
			}
			if !strings.Contains(stdout.String(), "1 trials") || !strings.Contains(stderr.String(), "context canceled") {
				t.Errorf("stdout %q, stderr %q: want the summary of the one trial judged and the cancellation", stdout.String(), stderr.String())
			}
			if files, _ := os.ReadDir(out); len(files) != 1 {
				t.Errorf("--out holds %d files, want the one valid input", len(files))
			}
			if left := proctest.WaitGone(mark, 2*time.Second); len(left) > 0 {
				t.Errorf("left running: %v", left)
			}
		})
	}
}
