// Package hostile is a program under test that misbehaves on purpose, one
// way per input, for arbor's fault suite: it writes to stdout and stderr,
// reads stdin, forks, hangs, exits, exhausts memory, leaks goroutines and
// deadlocks; on Unix it also forges replies of the harness protocol,
// signals its parent, starts a child in a session of its own and maps
// shared memory (hostile_unix.go).
package hostile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Run behaves as its input's first word says; the rest of the input is
// ignored, so that many inputs can share a behaviour.
func Run(b []byte) error {
	word, _, _ := strings.Cut(string(b), " ")
	if handled, err := unixWord(word); handled {
		return err
	}
	switch word {
	case "ok":
		return calm()
	case "print":
		fmt.Print("x")
		return printed()
	case "println":
		fmt.Println("a line of the subject's own")
		return printed()
	case "frame":
		// Bytes shaped like a reply of the harness protocol: outcome
		// panic, a duration, and empty message, stack and counters.
		os.Stdout.Write([]byte{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
		return printed()
	case "stderr":
		fmt.Fprintln(os.Stderr, "a complaint on stderr")
		return printed()
	case "stdin":
		data, err := io.ReadAll(os.Stdin)
		if err != nil || len(data) > 0 {
			return fmt.Errorf("stdin held %d bytes (%v)", len(data), err)
		}
		return calm()
	case "child":
		// A child that holds stderr open and outlives the input.
		cmd := exec.Command("sleep", "300")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		return calm()
	case "sleep":
		time.Sleep(20 * time.Millisecond)
		return calm()
	case "loop":
		for {
		}
	case "exit":
		os.Exit(7)
	case "alloc":
		big := make([]byte, 20<<30)
		for i := 0; i < len(big); i += 4096 {
			big[i] = 1
		}
		return calm()
	case "leak":
		for range 100 {
			go func() { select {} }()
		}
		return calm()
	case "deadlock":
		var mu sync.Mutex
		mu.Lock()
		mu.Lock()
	case "panic":
		panic("hostile: " + word)
	}
	return errors.New("unknown word")
}

func calm() error { return nil }

func printed() error { return nil }
