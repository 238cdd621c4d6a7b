// Package testctx gives tests contexts that end at a point that depends
// on the work, not on timing: a test of cancellation asserts that work
// which looks at its context stops part way, with the context's error
// and what was done before, on a loaded machine as on an idle one.
//
//	ctx := testctx.Countdown(10) // done at the eleventh look
//	rows, err := learn.NewDatasetContext(ctx, ...)
//	// err wraps context.Canceled; rows holds what was read before
package testctx

import (
	"context"
	"sync"
	"sync/atomic"
)

// countdown is done once its Err has been asked for more than n times.
type countdown struct {
	context.Context // Background's Deadline and Value
	left            atomic.Int64
	once            sync.Once
	done            chan struct{}
}

// Countdown returns a context whose first n calls of Err return nil and
// every later one context.Canceled, its Done channel closed from then
// on. Work that only waits on Done, never asking Err, never sees it end.
func Countdown(n int64) context.Context {
	c := &countdown{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(n)
	return c
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		c.once.Do(func() { close(c.done) })
		return context.Canceled
	}
	return nil
}

func (c *countdown) Done() <-chan struct{} { return c.done }
