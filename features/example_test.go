package features_test

import (
	"fmt"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
)

func ExampleOf() {
	g, _ := datasets.Grammar("expr")
	t, _ := g.Parse([]byte("x+42"))
	for _, p := range features.Of(t, 3)[:4] {
		fmt.Println(p.Format(g))
	}
	fmt.Println(features.Count(g, 3), "3-paths in the grammar")
	// Output:
	// AddExpr_0→AddExpr_5→MultExpr_2
	// AddExpr_0→MultExpr_7→UnaryExpr_8
	// MultExpr_2→UnaryExpr_8→Identifier_16
	// AddExpr_5→MultExpr_2→UnaryExpr_8
	// 523 3-paths in the grammar
}
