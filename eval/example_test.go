package eval_test

import (
	"fmt"

	"github.com/arbor-fuzz/arbor/eval"
)

// Spearman's ρ depends only on ranks: any increasing relation gives 1.
func ExampleSpearman() {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{1, 4, 9, 16, 25}
	fmt.Printf("%.2f\n", eval.Spearman(x, y))
	u, p := eval.MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	fmt.Printf("U = %.0f, p = %.4f\n", u, p)
	// Output:
	// 1.00
	// U = 0, p = 0.0079
}
