package constraint

import (
	"errors"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
)

// FuzzCompile: a grammar file's constraints are untrusted text. Whatever
// the clause, Compile returns a Set or a grammar.ErrorList whose errors
// lie inside the file, never panics; and a compiled Set checks an input
// without panicking.
func FuzzCompile(f *testing.F) {
	for _, w := range []string{
		"where Range: Start.num <= End.num ;",
		"where all(Num, {let n = #; any(Num, {.text == n.text && before(#, n)})}) ;",
		"where Range: enclosing(Start, \"Ranges\") != nil && inside(Start, self) ;",
		"where len(uniq(map(Range, .text))) == len(Range) ;",
		"where Range: Start?.num ?? 0 > 1 ;",
		"where Q: true ;",
		"where Range: 1 ;",
	} {
		f.Add(w, "1-5 9-3")
	}
	base := "Ranges := Range (\" \" Range)* ;\nRange := Start \"-\" End ;\nStart := Num ;\nEnd := Num ;\nNum := /[0-9]+/ ;\n"
	f.Fuzz(func(t *testing.T, where, input string) {
		src := base + where
		ast, err := grammar.Parse("f.grammar", []byte(src))
		if err != nil {
			return
		}
		g, err := grammar.Build(ast)
		if err != nil {
			return
		}
		set, err := Compile(g)
		if err != nil {
			var list grammar.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty ErrorList: %v", err)
			}
			for _, e := range list {
				if !e.Pos.IsValid() || e.Pos.Offset > len(src) {
					t.Fatalf("error without a valid position in the file: %v", e)
				}
			}
			return
		}
		tree, err := g.Parse([]byte(input))
		if err != nil {
			return
		}
		NewChecker(set).Check(tree)
	})
}
