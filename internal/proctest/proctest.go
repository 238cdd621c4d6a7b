package proctest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// MarkVar is the environment variable that marks processes.
const MarkVar = "ARBOR_TEST_MARK"

// NewMark returns a fresh NAME=VALUE to put in the environment of the
// processes to watch.
func NewMark() string {
	b := make([]byte, 8)
	rand.Read(b)
	return MarkVar + "=" + hex.EncodeToString(b)
}

// Process is a marked process that is still running.
type Process struct {
	PID     int
	Command string
}

func (p Process) String() string { return fmt.Sprintf("%d (%s)", p.PID, p.Command) }

// Marked lists the running processes, other than the caller, whose
// environment holds mark. Zombies (ended, not yet waited for) are not
// running. A child started a moment ago may not be listed yet: until it
// calls exec, its environment is its parent's.
func Marked(mark string) []Process {
	entries, _ := os.ReadDir("/proc")
	var procs []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !slices.ContainsFunc(bytes.Split(env, []byte{0}), func(v []byte) bool { return string(v) == mark }) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(dir, "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && bytes.HasPrefix(stat[i:], []byte(") Z")) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		procs = append(procs, Process{pid, string(bytes.TrimSpace(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))})
	}
	return procs
}

// WaitGone waits up to d for the marked processes to end and returns
// those still running then, after killing them so that they do not
// outlive the test.
func WaitGone(mark string, d time.Duration) []Process {
	deadline := time.Now().Add(d)
	for {
		procs := Marked(mark)
		if len(procs) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			for _, p := range procs {
				if proc, err := os.FindProcess(p.PID); err == nil {
					proc.Kill()
				}
			}
			return procs
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Tree lists the files and folders below dir, each with its size and
// modification time, in a fixed order: two listings are equal when
// nothing below dir was added, removed or changed.
func Tree(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, fmt.Sprintf("%s %d %s", path, info.Size(), info.ModTime()))
		return nil
	})
	return files, err
}
