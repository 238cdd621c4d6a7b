package constraint_test

import (
	"fmt"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
)

// A range's start must not be past its end.
func Example() {
	src := `Ranges := Range (" " Range)* ;
Range := Start "-" End ;
Start := Num ;
End := Num ;
Num := /[0-9]+/ ;
where Range: Start.num <= End.num ;
`
	ast, err := grammar.Parse("ranges.grammar", []byte(src))
	if err != nil {
		panic(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		panic(err)
	}
	set, err := constraint.Compile(g)
	if err != nil {
		panic(err)
	}
	tree, err := g.Parse([]byte("1-5 9-3 7-7"))
	if err != nil {
		panic(err)
	}
	for _, v := range constraint.NewChecker(set).Check(tree) {
		fmt.Printf("%s breaks %s\n", v.At.Text, v.Clause)
	}
	// Output:
	// 9-3 breaks where Range: Start.num <= End.num ;
}
