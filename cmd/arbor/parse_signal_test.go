//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestParseSignals (issue 31): parse and kpaths, run as processes of
// their own, stop on SIGINT and SIGTERM while they wait on standard
// input that never ends, on a FIFO no one writes, and in the cubic parse
// of an ambiguous grammar with no budget, and exit 1 as other commands
// do when interrupted. Each run first reports an input that does not
// parse, so that the signal comes once arbor listens for it. The test
// asserts that arbor exits, not how fast: it logs the time.
func TestParseSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs arbor as processes of its own")
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte(")"), 0o644) // outside both grammars below
	amb := filepath.Join(dir, "amb.grammar")
	os.WriteFile(amb, []byte(`E := E "+" E | "1" ;`), 0o644)
	long := filepath.Join(dir, "long.txt")
	os.WriteFile(long, []byte("1"+strings.Repeat("+1", 3000)), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		sig  syscall.Signal
		args []string
		busy bool // the signal comes once arbor has parsed for a while
	}{
		{"parse, stdin, SIGINT", syscall.SIGINT, []string{"parse", "expr", bad, "-"}, false},
		{"parse, stdin, SIGTERM", syscall.SIGTERM, []string{"parse", "expr", bad, "-"}, false},
		{"kpaths, stdin, SIGINT", syscall.SIGINT, []string{"kpaths", "expr", bad, "-"}, false},
		{"parse, fifo, SIGINT", syscall.SIGINT, []string{"parse", "expr", bad, fifo}, false},
		{"kpaths, fifo, SIGTERM", syscall.SIGTERM, []string{"kpaths", "expr", bad, fifo}, false},
		{"parse, ambiguous, SIGINT", syscall.SIGINT, []string{"parse", amb, bad, long, "--parse-budget", "-1"}, true},
		{"kpaths, ambiguous, SIGTERM", syscall.SIGTERM, []string{"kpaths", amb, bad, long, "--parse-budget", "-1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errFile := filepath.Join(t.TempDir(), "stderr")
			stderr, err := os.Create(errFile)
			if err != nil {
				t.Fatal(err)
			}
			defer stderr.Close()
			cmd := exec.Command(os.Args[0], tt.args...)
			cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1")
			cmd.Stderr = stderr
			// Standard input is a pipe that stays open, and empty.
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
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
			}()
			waitFor(t, time.Minute, "arbor to report the first input", func() bool {
				b, _ := os.ReadFile(errFile)
				return strings.Contains(string(b), bad+":1:1")
			})
			if tt.busy {
				// A parse that takes minutes is under way once arbor
				// has spent a quarter of a second of processor time.
				waitFor(t, time.Minute, "arbor to parse", func() bool { return cpuTicks(cmd.Process.Pid) >= 25 })
			}
			sent := time.Now()
			cmd.Process.Signal(tt.sig)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				t.Fatalf("arbor did not exit within 10 s of %v", tt.sig)
			}
			t.Logf("exited %v after %v", time.Since(sent).Round(time.Millisecond), tt.sig)
			b, _ := os.ReadFile(errFile)
			if code := cmd.ProcessState.ExitCode(); code != exitFailure {
				t.Errorf("exit %d after %v, want %d; stderr:\n%s", code, tt.sig, exitFailure, b)
			}
			if !strings.Contains(string(b), "context canceled") {
				t.Errorf("stderr does not say the command was cancelled:\n%s", b)
			}
		})
	}
}

// cpuTicks is the processor time a process has spent in user space, in
// clock ticks (a hundredth of a second on Linux), or 0 if unknown.
func cpuTicks(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name, which is in parentheses:
	// utime is the 14th field of the line, the 12th after the name.
	_, rest, _ := strings.Cut(string(b), ") ")
	fields := strings.Fields(rest)
	if len(fields) < 12 {
		return 0
	}
	n, _ := strconv.Atoi(fields[11])
	return n
}
