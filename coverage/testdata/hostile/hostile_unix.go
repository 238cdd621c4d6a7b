//go:build unix

package hostile

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// forgedReply is shaped like a reply of the harness protocol: a token
// of zeros, outcome panic, a duration, and empty message, stack and
// counters.
var forgedReply = make([]byte, 16+1+8+4+4+4)

func init() { forgedReply[16] = 2 }

// unixWord runs the behaviours that need a Unix system; handled is
// false for a word that is none of them.
func unixWord(word string) (handled bool, err error) {
	switch word {
	case "forge4":
		// A reply written where the protocol's replies once went.
		os.NewFile(4, "fd4").Write(forgedReply)
		return true, calm()
	case "forge":
		// A reply written to every pipe the process holds, wherever the
		// harness keeps its own.
		ents, _ := os.ReadDir("/proc/self/fd")
		for _, e := range ents {
			fd, _ := strconv.Atoi(e.Name())
			link, _ := os.Readlink("/proc/self/fd/" + e.Name())
			if fd > 2 && strings.HasPrefix(link, "pipe:") {
				syscall.Write(fd, forgedReply)
			}
		}
		return true, calm()
	case "sigtermfast":
		// Returns before the parent can have acted on the signal.
		syscall.Kill(os.Getppid(), syscall.SIGTERM)
		return true, calm()
	case "sigterm", "sigint", "sigstop":
		sig := map[string]syscall.Signal{"sigterm": syscall.SIGTERM, "sigint": syscall.SIGINT, "sigstop": syscall.SIGSTOP}[word]
		syscall.Kill(os.Getppid(), sig)
		time.Sleep(200 * time.Millisecond)
		return true, calm()
	case "setsid":
		// A child in a session of its own, out of the harness's process
		// group, that outlives the input.
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return true, err
		}
		return true, calm()
	case "shm":
		// 3 GiB of shared memory, which RLIMIT_DATA does not count. The
		// pages are not touched: where no limit holds, the mapping costs
		// nothing.
		b, err := syscall.Mmap(-1, 0, 3<<30, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
		if err != nil {
			panic("hostile: shared mapping: " + err.Error())
		}
		syscall.Munmap(b)
		return true, calm()
	}
	return false, nil
}
