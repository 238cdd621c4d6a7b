//go:build unix

package coverage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lock takes an exclusive advisory lock (flock) on the coverage file f,
// so that two recordings never append to one file at once (they
// interleave and tear lines). A lock held elsewhere is an error that
// names its holder, where the system tells; with wait, lock retries
// until the holder lets go or ctx is done. The lock goes with f's close.
func lock(ctx context.Context, f *os.File, path string, wait bool) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("coverage file %s: lock: %w", path, err)
		}
		if !wait {
			return fmt.Errorf("coverage file %s is being written by %s; record each shard to a file of its own and join them with 'arbor record merge', or wait for it with --wait", path, holder(f))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("coverage file %s: waiting for %s: %w", path, holder(f), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// holder names the process that holds a lock on f, read from
// /proc/locks on Linux, or says "another process".
func holder(f *os.File) string {
	const unknown = "another process"
	fi, err := f.Stat()
	if err != nil {
		return unknown
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return unknown
	}
	locks, err := os.Open("/proc/locks")
	if err != nil {
		return unknown
	}
	defer locks.Close()
	// "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF": the device as
	// major:minor in hex, then the inode.
	inode := ":" + strconv.FormatUint(uint64(st.Ino), 10)
	sc := bufio.NewScanner(locks)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || !strings.HasSuffix(fields[5], inode) {
			continue
		}
		pid := fields[4]
		if pid == strconv.Itoa(os.Getpid()) {
			return "this process (pid " + pid + ")"
		}
		cmd, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil || len(cmd) == 0 {
			return "process " + pid
		}
		args := strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " "))
		if len(args) > 6 {
			args = append(args[:6], "...")
		}
		return fmt.Sprintf("process %s (%s)", pid, strings.Join(args, " "))
	}
	return unknown
}

// alive reports whether a process with this id exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
