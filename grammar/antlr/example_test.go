package antlr_test

import (
	"fmt"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
)

func ExampleConvert() {
	src := []byte(`
grammar Sum;
sum   : term ('+' term)* EOF ;
term  : INT          # Number
      | '(' sum ')'  # Group
      ;
INT   : [0-9]+ ;
WS    : [ \t\n]+ -> skip ;
`)
	file, err := antlr.Parse("Sum.g4", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	ast, warnings, err := antlr.Convert(file)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(grammar.Format(ast))
	fmt.Println(len(warnings), "warnings")
	g, err := grammar.Build(ast)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = g.Parse([]byte(" 1 + (2+3)\n"))
	fmt.Println(err == nil)
	// Output:
	// sum := _ (term ("+" _ term)*) ;
	// term := Number | Group ;
	// Number := INT _ ;
	// Group := "(" _ sum ")" _ ;
	// INT := /[0-9]+/ ;
	// _ := /(?:[\t\n ]+)*/ ;
	// 0 warnings
	// true
}
