package testctx_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/arbor-fuzz/arbor/internal/testctx"
)

func TestCountdown(t *testing.T) {
	for _, n := range []int64{0, 1, 5} {
		ctx := testctx.Countdown(n)
		for i := range n {
			if err := ctx.Err(); err != nil {
				t.Fatalf("Countdown(%d): look %d: %v", n, i+1, err)
			}
			select {
			case <-ctx.Done():
				t.Fatalf("Countdown(%d): done after %d looks", n, i+1)
			default:
			}
		}
		if err := ctx.Err(); !errors.Is(err, context.Canceled) {
			t.Errorf("Countdown(%d): look %d: %v, want Canceled", n, n+1, err)
		}
		<-ctx.Done()
	}
}

func ExampleCountdown() {
	ctx := testctx.Countdown(3)
	done := 0
	for range 10 {
		if ctx.Err() != nil {
			break
		}
		done++
	}
	fmt.Println(done)
	// Output: 3
}
