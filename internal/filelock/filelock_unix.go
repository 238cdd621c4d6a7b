//go:build unix

package filelock

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

// LockFile takes the lock on an open file f, which stays the caller's to
// close; closing it lets go of the lock.
func LockFile(ctx context.Context, f *os.File, o Options) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%s: lock: %w", o.What, err)
		}
		if !o.Wait {
			msg := fmt.Sprintf("%s is being written by %s", o.What, Holder(f))
			if o.Hint != "" {
				msg += "; " + o.Hint
			}
			return errors.New(msg)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: waiting for %s: %w", o.What, Holder(f), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// Holder names the process that holds a lock on f, read from /proc/locks
// on Linux, or says "another process".
func Holder(f *os.File) string {
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
