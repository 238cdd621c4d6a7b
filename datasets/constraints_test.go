package datasets_test

import (
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/datasets"
)

// A constraintCase is an input of a bundled grammar and the clauses it
// breaks: none for a valid input, else a substring of each broken
// clause, in the order Check reports them.
type constraintCase struct {
	input  string
	breaks []string
}

// checkConstraints parses each case's input with the bundled grammar
// name, which must derive it, and checks that its constraints report
// exactly the clauses the case names as broken.
func checkConstraints(t *testing.T, name string, cases []constraintCase) {
	t.Helper()
	g, err := datasets.Grammar(name)
	if err != nil {
		t.Fatal(err)
	}
	set, err := constraint.Compile(g)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if set.Len() == 0 {
		t.Fatalf("%s has no constraints", name)
	}
	check := constraint.NewChecker(set)
	for _, c := range cases {
		tree, err := g.Parse([]byte(c.input))
		if err != nil {
			t.Errorf("%s: %q does not parse: %v", name, c.input, err)
			continue
		}
		vs := check.Check(tree)
		var got []string
		for _, v := range vs {
			got = append(got, v.String())
		}
		ok := len(vs) == len(c.breaks)
		for i := 0; ok && i < len(vs); i++ {
			ok = strings.Contains(vs[i].Clause.String(), c.breaks[i])
		}
		if !ok {
			t.Errorf("%s: %q breaks\n\t%s\nwant clauses containing %q", name, c.input, strings.Join(got, "\n\t"), c.breaks)
		}
	}
}
