package parallel

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestOrdered: results come out in order whatever order the workers
// finish in; an error of emit stops the work; a cancelled context keeps
// the items started, in order, and reports the cancellation.
func TestOrdered(t *testing.T) {
	const n = 2000
	work := func(_, i int) int {
		// Uneven work, so that workers finish out of order.
		s := 0
		for j := range (i * 7919) % 3000 {
			s += j
		}
		_ = s
		return i
	}
	for _, workers := range []int{1, 2, 8} {
		next := 0
		err := Ordered(context.Background(), n, workers, work, func(i, r int) error {
			if i != next || r != i {
				return fmt.Errorf("got item %d (result %d), want %d", i, r, next)
			}
			next++
			return nil
		})
		if err != nil || next != n {
			t.Errorf("%d workers: %v after %d items", workers, err, next)
		}

		stop := errors.New("stop")
		emitted := 0
		err = Ordered(context.Background(), n, workers, work, func(i, _ int) error {
			emitted++
			if i == 10 {
				return stop
			}
			return nil
		})
		if err != stop || emitted != 11 {
			t.Errorf("%d workers: emit's error: %v after %d items", workers, err, emitted)
		}

		ctx, cancel := context.WithCancel(context.Background())
		next = 0
		err = Ordered(ctx, n, workers, work, func(i, r int) error {
			if i != next || r != i {
				return fmt.Errorf("got item %d (result %d), want %d", i, r, next)
			}
			next++
			if i == 100 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) || next <= 100 || next == n {
			t.Errorf("%d workers: cancelled: %v after %d items", workers, err, next)
		}
	}
}
