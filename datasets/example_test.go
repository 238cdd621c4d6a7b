package datasets_test

import (
	"fmt"

	"github.com/arbor-fuzz/arbor/datasets"
)

func ExampleLoadGrammar() {
	g, err := datasets.LoadGrammar("json")
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := g.Parse([]byte(`{"answer": 42}`))
	fmt.Println(g.Start, len(g.Nodes), tree.Size(), err)
	// Output: JSON 129 48 <nil>
}
