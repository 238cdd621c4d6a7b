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

func ExamplePattern() {
	g, _ := datasets.Grammar("expr")
	fmt.Println(features.Pattern(g, features.Path{15, 36, 11}))
	// Output: MultExpr (* | / | %) ( AddExpr - MultExpr )
}

func ExampleVocabulary() {
	g, _ := datasets.Grammar("json")
	v, m := features.NewVocabulary(g, features.Options{MaxK: 2}), features.NewMatrix()
	for _, doc := range []string{`[1]`, `[true]`, `{}`} {
		t, _ := g.Parse([]byte(doc))
		m.AddRow(v.Add(t))
	}
	cols := m.Columns(v.Len())
	id, _ := v.ID(features.Feature{Path: features.Path{7}}) // Array_7: present in the first two inputs
	fmt.Println(v.Len(), "features;", cols[id].Count(), "inputs have", features.Pattern(g, v.Feature(id).Path))
	// Output: 43 features; 2 inputs have Array
}
