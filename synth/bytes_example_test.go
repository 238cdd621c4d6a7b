package synth_test

import (
	"fmt"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/synth"
)

// Every byte string is a JSON document: in a fuzz target, the fuzzer's
// bytes become gen.FromBytes(data), and its byte mutations changes of
// the document's structure.
func ExampleByteGenerator() {
	g, err := datasets.Grammar("json")
	if err != nil {
		fmt.Println(err)
		return
	}
	gen := synth.NewByteGenerator(g)
	for _, data := range [][]byte{nil, {0, 1}, {0, 1, 0, 1}, {0, 1, 0, 1, 0, 3}, {0, 0, 0, 1, 0, 0, 0, 0, 2, 9, 200}, {0, 0, 0, 1, 0, 0, 0, 0, 2, 9, 201, 1}} {
		fmt.Printf("%v\t%s\n", data, gen.FromBytes(data))
	}
	// Output:
	// []	true
	// [0 1]	[]
	// [0 1 0 1]	[true]
	// [0 1 0 1 0 3]	[{   }]
	// [0 0 0 1 0 0 0 0 2 9 200]	{"":	 true}
	// [0 0 0 1 0 0 0 0 2 9 201 1]	{"":		[]}
}
