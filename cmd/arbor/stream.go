package main

import (
	"bufio"
	"io"
	"runtime"
)

// outBufferSize is the buffer of the commands that print a line or more
// per input: one write to the output for every 64 KB, instead of one per
// line (printing a corpus line by line spent more time in system calls
// than in the work).
const outBufferSize = 64 << 10

// newOut buffers w. The caller flushes it before it returns, on errors
// and on Ctrl-C too, so that every line that was finished is written.
func newOut(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, outBufferSize) }

// flushed flushes out and returns err, or the flush's error if err is nil.
func flushed(out *bufio.Writer, err error) error {
	if ferr := out.Flush(); ferr != nil && err == nil {
		return ferr
	}
	return err
}

// workerCount is how many inputs a command works on at once: one per
// processor the Go runtime may use.
func workerCount() int { return max(1, runtime.GOMAXPROCS(0)) }
