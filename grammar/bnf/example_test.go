package bnf_test

import (
	"fmt"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/bnf"
)

func ExampleParseJSON() {
	src := []byte(`{
  "<start>": ["<number>"],
  "<number>": ["<digit>", "<digit><number>"],
  "<digit>": ["0", "1", "2"]
}`)
	ast, err := bnf.ParseJSON("number.json", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(grammar.Format(ast))
	g, err := grammar.Build(ast)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = g.Parse([]byte("2012"))
	fmt.Println(err == nil)
	// Output:
	// start := number ;
	// number := digit | digit number ;
	// digit := "0" | "1" | "2" ;
	// true
}
