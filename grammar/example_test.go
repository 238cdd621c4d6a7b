package grammar_test

import (
	"fmt"
	"os"

	"github.com/arbor-fuzz/arbor/grammar"
)

func ExampleGraph_Parse() {
	src := []byte(`
List  := "[" Items? "]" ;
Items := Item ("," Item)* ;
Item  := /[0-9]+/ | List ;
`)
	ast, err := grammar.Parse("list.grammar", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := grammar.Build(ast)
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := g.Parse([]byte("[1,[2]]"))
	if err != nil {
		fmt.Println(err)
		return
	}
	tree.WriteText(os.Stdout, true)

	_, err = g.Parse([]byte("[1,]"))
	fmt.Println(err)
	// Output:
	// "["_1
	// Items_4
	//   Item_6
	//     /[0-9]+/_10 "1"
	//   ","_12
	//   Item_13
	//     List_11
	//       "["_1
	//       Items_4
	//         Item_6
	//           /[0-9]+/_10 "2"
	//       "]"_3
	// "]"_3
	// 1:4 (byte 3): unexpected ']'; expected one of "[", /[0-9]+/
}
