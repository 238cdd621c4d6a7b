package datasets_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
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
	g, set := compiled(t, name)
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

// compiled is the bundled grammar name and its constraints, of which it
// must have some.
func compiled(t *testing.T, name string) (*grammar.Graph, *constraint.Set) {
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
	return g, set
}

// A clauseCase is an input and the clauses it breaks, named as the
// test's label function names them, in clause order: nil for an input
// that breaks none.
type clauseCase struct {
	input string
	want  []string
}

// checkClauses checks that the named grammar's where clauses tell the
// inputs that break none from those that break some, and which: label
// names the clause at a line of the grammar's source (by the section
// its comment cites, say). Every clause must be broken by some input.
func checkClauses(t *testing.T, name string, cases []clauseCase, label func(lines []string, line int) string) {
	t.Helper()
	g, set := compiled(t, name)
	src, err := datasets.GrammarSource(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	check := constraint.NewChecker(set)
	tested := map[string]bool{}
	for _, tc := range cases {
		tree, err := g.Parse([]byte(tc.input))
		if err != nil {
			t.Errorf("%q does not parse: %v", tc.input, err)
			continue
		}
		var got []string
		for _, v := range check.Check(tree) {
			if v.Err != nil {
				t.Errorf("%q: %s: %v", tc.input, v.Clause.Where.Pos, v.Err)
			}
			got = append(got, label(lines, v.Clause.Where.Pos.Line))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q breaks %q, want %q", tc.input, got, tc.want)
		}
		for _, s := range tc.want {
			tested[s] = true
		}
	}
	for _, c := range set.Clauses() {
		if s := label(lines, c.Where.Pos.Line); !tested[s] {
			t.Errorf("no input breaks the clause %q at line %d", s, c.Where.Pos.Line)
		}
	}
}
