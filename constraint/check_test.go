package constraint

import (
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
)

// build parses and builds a grammar and compiles its constraints.
func build(t testing.TB, src string) (*grammar.Graph, *Set, error) {
	t.Helper()
	ast, err := grammar.Parse("t.grammar", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(g)
	return g, s, err
}

const rangesGrammar = `
Ranges := Range (" " Range)* ;
Range := Start "-" End ;
Start := Num ;
End := Num ;
Num := /[0-9]{1,2}/ ;
where Range: Start.num <= End.num ;
`

const varsGrammar = `
Prog := Stmt (";" Stmt)* ;
Stmt := "let " VarDecl | "print " VarUse | "{" Prog "}" ;
VarDecl := Name ;
VarUse := Name ;
Name := "a" | "b" | "c" ;
where all(VarUse, {let u = #; any(VarDecl, {.text == u.text && before(#, u)})}) ;
`

func TestCheck(t *testing.T) {
	tests := []struct {
		grammar, input string
		want           []string // the text of each violating node
	}{
		{rangesGrammar, "1-2", nil},
		{rangesGrammar, "3-2", []string{"3-2"}},
		{rangesGrammar, "1-1 9-10 10-9 5-50 7-6", []string{"10-9", "7-6"}},
		{varsGrammar, "let a;print a", nil},
		{varsGrammar, "print a;let a", []string{"a"}},
		{varsGrammar, "let a;print b;{let b;print b;print c}", []string{"b", "c"}},
		// == between nodes is the same occurrence (a node whose text
		// is no number has num NaN, and expr-lang's own == compared
		// fields: self == self was false).
		{rangesGrammar + "where Range: self == self && enclosing(Start, \"Range\") == self ;\n", "1-2 3-4", nil},
		{rangesGrammar + "where Range: Start != End && !(Start == End) ;\n", "1-1 22-22", nil},
		// x ?? y hands the functions a Node value, not a pointer.
		{rangesGrammar + "where Range: inside(Start ?? End, self) ;\n", "1-2 3-4", nil},
		{rangesGrammar + "where Range: enclosing(Start ?? End, \"Range\").text == self.text ;\n", "1-2", nil},
	}
	for _, tc := range tests {
		g, s, err := build(t, tc.grammar)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := g.Parse([]byte(tc.input))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range NewChecker(s).Check(tree) {
			if v.Err != nil {
				t.Errorf("%q: evaluation error %v", tc.input, v.Err)
			}
			got = append(got, v.At.Text)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: violations at %q, want %q", tc.input, got, tc.want)
		}
		// CheckWithin 0 is Check stopped at the first broken instance,
		// and a Recheck after it still sees the whole tree.
		c := NewChecker(s)
		if _, got := c.CheckWithin(tree, 0); got != (len(tc.want) == 0) {
			t.Errorf("%q: CheckWithin(0) = %v, want %v", tc.input, got, len(tc.want) == 0)
		}
		if got := len(c.Recheck(tree, nil)); got != len(tc.want) {
			t.Errorf("%q: Recheck after Holds finds %d instances, want %d", tc.input, got, len(tc.want))
		}
	}
}

func TestCompileErrors(t *testing.T) {
	base := "S := A B* ;\nA := /[a-z]/ ;\nB := \"b\" ;\n"
	tests := []struct {
		where string
		want  string
	}{
		{"where Q: true ;", "t.grammar:4:7: the constraint's scope Q is not a rule of the grammar"},
		{"where S: A.txt == \"a\" ;", "t.grammar:4:12: type constraint.Node has no field txt"},
		{"where S: Ax.text == \"a\" ;", "t.grammar:4:10: Ax is neither a rule of the grammar nor a variable"},
		{"where S: A.text == ;", "t.grammar:4:"},
		{"where S: A.num ;", "t.grammar:4:10: expected bool"},
		{"where A: len(B) > 0 ;", "t.grammar:4:14: B cannot occur inside A"},
		{"where S: enclosing(A, \"Q\") != nil ;", "t.grammar:4:23: enclosing: \"Q\" is not a rule of the grammar"},
		{"where S:\n  A.text ==\n  B ;", "t.grammar:5:10: invalid operation: == (mismatched types string and []*constraint.Node)"},
	}
	for _, tc := range tests {
		_, _, err := build(t, base+tc.where)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one starting %q", tc.where, err, tc.want)
		}
	}
}

func TestCompileBounds(t *testing.T) {
	base := "S := A B* ;\nA := /[a-z]/ ;\nB := \"b\" ;\n"
	tests := []struct{ where, want string }{
		{"where all(B, {all(B, {all(B, {true})})}) ;", ""},
		{"where all(B, {all(B, {all(B, {all(B, {true})})})}) ;", "t.grammar:4:14: the expression nests 4 predicates"},
		{"where now() != nil ;", "t.grammar:4:7:"},
		{"where timezone(\"Europe/Berlin\") != nil ;", "t.grammar:4:7:"},
	}
	for _, tc := range tests {
		_, _, err := build(t, base+tc.where)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.where, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one starting %q", tc.where, err, tc.want)
		}
	}
}

func TestDescendants(t *testing.T) {
	src := `File := Record ("\n" Record)* ;
Record := Field ("," Field)* ;
Field := /[a-z]*/ ;
where all(Record, {len(descendants(#, "Field")) == len(descendants(first(Record), "Field"))}) ;
where Record: descendant(self, "Field").text != "x" ;
`
	g, s, err := build(t, src)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]int{"a,b\nc,d": 0, "a,b\nc": 1, "a\nb,c\nd,e,f": 2, "x,a\nb,c": 1, "a,b\nx\nc": 3} {
		tree, err := g.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(NewChecker(s).Check(tree)); got != want {
			t.Errorf("%q: %d violations, want %d", in, got, want)
		}
	}
}

// TestLetConstants: a let-bound pattern, inlined, matches as a literal
// would.
func TestLetConstants(t *testing.T) {
	src := `S := W (" " W)* ;
W := /[a-z0-9]+/ ;
where W: (let p = "^[a-z]+$"; self.text matches p) ;
where W: (let q = "^[0-9]+$"; self.text matches q || self.text matches "^[a-z]+$") ;
`
	g, s, err := build(t, src)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]int{"ab cd": 0, "ab 12": 1, "a1": 2} {
		tree, err := g.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(NewChecker(s).Check(tree)); got != want {
			t.Errorf("%q: %d violations, want %d", in, got, want)
		}
	}
}
