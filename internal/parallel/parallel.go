// Package parallel runs per-item work on several goroutines and hands the
// results back in item order, with bounded memory:
//
//	err := parallel.Ordered(ctx, len(files), runtime.GOMAXPROCS(0),
//		func(worker, i int) Result { return parse(files[i]) },
//		func(i int, r Result) error { return print(r) })
//
// It is what the commands that work on a corpus input by input, and the
// building of a training set, share.
package parallel

import (
	"context"
	"runtime"
	"sync"
)

// Ordered computes work(w, i) for i = 0..n-1 on up to workers goroutines
// (w, from 0, names the goroutine, for state of its own such as a
// predictor that is not safe for concurrent use) and hands each result to
// emit in order of i, on the caller's goroutine. At most a few results per
// worker wait for emit: memory stays bounded whatever n is.
//
// When ctx is cancelled no new item is started; the items started are
// still emitted, in order, and Ordered returns ctx's error, so that a
// command interrupted by Ctrl-C keeps every line it finished. An error of
// emit stops the work and is returned. Ordered returns after every worker
// has returned.
func Ordered[R any](ctx context.Context, n, workers int, work func(w, i int) R, emit func(i int, r R) error) error {
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

// ForEach calls f(0..n-1) on workers goroutines (0: one per core), in
// no particular order, and stops handing out work when ctx is done.
func ForEach(ctx context.Context, n, workers int, f func(i int)) error {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				f(i)
			}
		}()
	}
	var err error
	for i := range n {
		if err = ctx.Err(); err != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return err
}
