package mine_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/mine"
)

// A program that rejects ranges running backwards: mining its verdicts
// on a few inputs proposes the clause it checks.
func ExampleClauses() {
	ast, _ := grammar.Parse("ranges.grammar", []byte(`
List  := Range ("," Range)* ;
Range := Start "-" End ;
Start := /[0-9]/ ;
End   := /[0-9]/ ;
`))
	g, _ := grammar.Build(ast)
	var inputs []mine.Input
	for _, s := range []string{"1-2", "3-1", "2-2,5-9", "4-8,9-3", "0-7", "8-6,1-1", "6-6"} {
		accepted := true
		for _, r := range strings.Split(s, ",") {
			accepted = accepted && r[0] <= r[2]
		}
		inputs = append(inputs, mine.Input{Data: []byte(s), Accepted: accepted})
	}
	rep, err := mine.Clauses(context.Background(), g, inputs, mine.Options{Max: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range rep.Candidates {
		fmt.Printf("%s\nbreaks %d inputs, %d of them rejected, of %d rejected\n", c.Clause, c.Breaks, c.Support, rep.Rejected)
	}
	// Output:
	// where Range: !(Start != nil && End != nil && Start.num > End.num) ;
	// breaks 3 inputs, 3 of them rejected, of 3 rejected
}
