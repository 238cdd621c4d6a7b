package parallel_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/arbor-fuzz/arbor/internal/parallel"
)

// Each word is upper-cased on one of four goroutines; the results come
// back in the words' order.
func ExampleOrdered() {
	words := []string{"parse", "record", "learn", "target"}
	parallel.Ordered(context.Background(), len(words), 4, func(_, i int) string {
		return strings.ToUpper(words[i])
	}, func(i int, s string) error {
		fmt.Println(i, s)
		return nil
	})
	// Output:
	// 0 PARSE
	// 1 RECORD
	// 2 LEARN
	// 3 TARGET
}
