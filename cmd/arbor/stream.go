package main

import (
	"bufio"
	"context"
	"io"
	"runtime"
	"sync"
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

// ordered computes work(w, i) for i = 0..n-1 on up to workers goroutines
// (w, from 0, names the goroutine, for state of its own such as a
// predictor that is not safe for concurrent use) and hands each result to
// emit in order of i, on the caller's goroutine. At most a few results per
// worker wait for emit: memory stays bounded whatever n is.
//
// When ctx is cancelled no new item is started; the items started are
// still emitted, in order, and ordered returns ctx's error, so that a
// command interrupted by Ctrl-C keeps every line it finished. An error of
// emit stops the work and is returned. ordered returns after every worker
// has returned.
func ordered[R any](ctx context.Context, n, workers int, work func(w, i int) R, emit func(i int, r R) error) error {
	if workers <= 1 || n <= 1 {
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := emit(i, work(0, i)); err != nil {
				return err
			}
		}
		return nil
	}
	type job struct {
		i   int
		res chan R
	}
	jobs := make(chan job)
	// pending holds the result slots in order of i; its capacity is the
	// window of items started but not yet emitted.
	pending := make(chan chan R, 4*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.res <- work(w, j.i) // never blocks: the slot holds one
			}
		}()
	}
	go func() {
		defer close(pending)
		defer close(jobs)
		for i := range n {
			if ctx.Err() != nil {
				return
			}
			res := make(chan R, 1)
			select {
			case pending <- res:
			case <-stop:
				return
			}
			// The slot is pending: the job must run, or emit would wait
			// for it forever.
			jobs <- job{i, res}
		}
	}()
	var err error
	emitted := 0
	for res := range pending {
		if err != nil {
			continue // drain, so that the producer ends
		}
		if err = emit(emitted, <-res); err != nil {
			close(stop)
		}
		emitted++
	}
	wg.Wait()
	if err == nil && emitted < n {
		err = ctx.Err()
	}
	return err
}
