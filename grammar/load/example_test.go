package load_test

import (
	"fmt"
	"log"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/load"
)

func ExampleFile() {
	g, err := load.File("testdata/Sum.g4")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("start rule", g.Start, "with", len(g.Warnings), "warnings")
	for _, input := range []string{"1 + (2-3)", "1 +"} {
		tree, err := g.Parse([]byte(input))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%q: a tree of %d nodes\n", tree.String(), tree.Size())
	}
	// Output:
	// start rule sum with 0 warnings
	// "1 + (2-3)": a tree of 53 nodes
	// 1:4 (byte 3): unexpected end of input; expected one of "(", /[0-9]+/
}

func ExampleImport() {
	ast, warnings, err := load.Import("testdata/Sum.g4", load.Options{Start: "term"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(grammar.Format(ast))
	fmt.Println(len(warnings), "warnings")
	// Output:
	// term := _ (INT _ | "(" _ sum ")" _) ;
	// sum := term (("+" _ | "-" _) term)* ;
	// INT := /[0-9]+/ ;
	// _ := /(?:[\t\n\r ]+)*/ ;
	// 0 warnings
}
