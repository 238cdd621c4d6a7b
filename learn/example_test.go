package learn_test

import (
	"fmt"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
)

func ExampleFit() {
	// Six inputs, three binary features; the function runs when feature 1
	// is present and feature 2 absent.
	rows := [][]int{{0, 1}, {1}, {1, 2}, {0}, {0, 2}, {1}}
	cols := []features.Bitset{features.NewBitset(6), features.NewBitset(6), features.NewBitset(6)}
	label, all := features.NewBitset(6), features.NewBitset(6)
	for r, fs := range rows {
		all.Set(r)
		for _, f := range fs {
			cols[f].Set(r)
		}
		if cols[1].Has(r) && !cols[2].Has(r) {
			label.Set(r)
		}
	}
	t := learn.Fit(cols, label, all, []int{0, 1, 2}, learn.Options{MaxDepth: 5})
	for _, n := range t.Nodes {
		fmt.Printf("feature %d: %d covered, %d not\n", n.Feature, n.Pos, n.Neg)
	}
	// Output:
	// feature 1: 3 covered, 3 not
	// feature -1: 0 covered, 2 not
	// feature 2: 3 covered, 1 not
	// feature -1: 3 covered, 0 not
	// feature -1: 0 covered, 1 not
}
