// Package lib is a program under test for arbor's coverage recorder.
package lib

import (
	"errors"
	"os"
	"sort"
	"strings"
	"time"
)

var cache map[string]int

// Parse accepts "a...", rejects "x...", panics on "p", hangs on "h",
// crashes the process on "c", and sorts the bytes of "s...".
func Parse(b []byte) error {
	s := string(b)
	switch {
	case s == "":
		return errors.New("empty input")
	case s == "p":
		var m map[string]int
		m["boom"] = 1 // panics: assignment to entry in nil map
	case s == "h":
		for {
			time.Sleep(time.Millisecond)
		}
	case s == "c":
		os.Exit(3)
	case strings.HasPrefix(s, "x"):
		return reject(s)
	case strings.HasPrefix(s, "s"):
		sortBytes(b)
	default:
		return accept(s)
	}
	return nil
}

func accept(s string) error {
	if cache == nil {
		cache = fill() // runs once per process
	}
	cache[s]++
	return nil
}

func fill() map[string]int { return map[string]int{} }

func reject(s string) error { return errors.New("rejected " + s) }

func sortBytes(b []byte) {
	c := append([]byte(nil), b...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
}

// Wrong has the wrong signature for a subject.
func Wrong(s string) bool { return s == "" }

// NoError is a subject without an error result.
func NoError(b []byte) { _ = len(b) }
