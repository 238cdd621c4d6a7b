package features_test

import (
	"fmt"
	"log"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

func ExampleVocabulary_Add() {
	ast, err := grammar.Parse("list.grammar", []byte(`
List  := "[" Items? "]" ;
Items := Item ("," Item)* ;
Item  := /[0-9]+/ | List ;
`))
	if err != nil {
		log.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		log.Fatal(err)
	}
	v, m := features.NewVocabulary(g, features.Options{MaxK: 2}), features.NewMatrix()
	for _, input := range []string{"[1,[2]]", "[3]", "[]"} {
		t, err := g.Parse([]byte(input))
		if err != nil {
			log.Fatal(err)
		}
		m.AddRow(v.Add(t)) // the ids of the input's k-paths, k ≤ 2
	}
	cols := m.Columns(v.Len()) // per feature, the inputs that have it
	for id := range v.Len() {
		if path := v.Feature(id).Path; len(path) == 2 {
			fmt.Printf("%d of %d inputs have %s\n", cols[id].Count(), m.Rows(), path.Format(g))
		}
	}
	// Output:
	// 2 of 3 inputs have Items_4→Item_6
	// 2 of 3 inputs have Item_6→/[0-9]+/_10
	// 1 of 3 inputs have Items_4→","_12
	// 1 of 3 inputs have Items_4→Item_13
	// 1 of 3 inputs have Item_13→List_11
	// 1 of 3 inputs have List_11→"["_1
	// 1 of 3 inputs have List_11→Items_4
	// 1 of 3 inputs have List_11→"]"_3
}
