package fuzz

import (
	"context"
	"sync"
)

// loopParallel is loop with more than one worker, after Go's
// internal/fuzz: this goroutine is the coordinator, which alone chooses
// inputs and takes results (the corpus, the domains and the campaign's
// random source are its own), and each worker runs in a goroutine of
// its own on its own runner. The coordinator hands a job to every worker
// that is free and takes results as they come, except the seeds': they
// are taken in their order, before any other input is handed out, so
// that a campaign starts from its seeds as a campaign of one worker does.
// Which inputs it makes after them depends on the order results come
// back in.
func (f *campaign) loopParallel(ctx, runCtx context.Context) error {
	n := len(f.workers)
	jobs := make(chan job)
	// At most n jobs are out at once, so the workers never wait to hand
	// back a result, even after the coordinator has stopped taking them.
	results := make(chan outcome, n)
	var wg sync.WaitGroup
	for _, w := range f.workers {
		wg.Add(1)
		go func(jobs <-chan job) {
			defer wg.Done()
			for j := range jobs {
				results <- w.execute(runCtx, j)
			}
		}(jobs)
	}
	defer wg.Wait()
	seeds := len(f.opts.Seeds)
	var (
		handed, taken int                 // jobs handed out, results taken
		early         = map[int]outcome{} // seeds' results that came before their turn
		stopping      bool
		firstErr      error
	)
	take := func(o outcome) {
		taken++
		units, err := f.process(o)
		if err != nil {
			// The inputs still out come back, and are taken, before the
			// campaign ends with the first error.
			if firstErr == nil {
				firstErr = err
			}
			stopping = true
			return
		}
		f.trialDone(o.job, units)
		f.progress()
	}
	for {
		for !stopping && handed-taken < n {
			if ctx.Err() != nil || f.spent(handed-taken) {
				stopping = true
				break
			}
			if handed == seeds && taken < seeds {
				break // mutants are made once the seeds are in
			}
			j := f.next()
			j.n = handed
			jobs <- j
			handed++
		}
		if stopping && jobs != nil {
			close(jobs)
			jobs = nil
		}
		if taken == handed {
			break
		}
		o := <-results
		if o.n >= seeds {
			take(o)
			continue
		}
		early[o.n] = o
		for {
			o, ok := early[taken]
			if !ok {
				break
			}
			delete(early, taken)
			take(o)
		}
	}
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}
