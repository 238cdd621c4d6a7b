package antlr_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
)

// TestLeftRecursion converts directly left-recursive rules of several
// shapes and checks that every input has exactly one tree, grouped as
// ANTLR's precedence climbing groups it. In the groupings, [ ] enclose
// each labelled alternative whose label is listed in group.
func TestLeftRecursion(t *testing.T) {
	tests := []struct {
		name  string
		g4    string
		group string
		want  map[string]string // input -> grouping
	}{
		{name: "arithmetic",
			g4: `e : <assoc=right> e '^' e # Pow | e ('*'|'/') e # Mul | e ('+'|'-') e # Add
			       | INT # Int | '(' e ')' # Par ;`,
			group: "Pow Mul Add",
			want: map[string]string{
				"1+2*3":   "[1+[2*3]]",
				"1*2+3":   "[[1*2]+3]",
				"1-2-3":   "[[1-2]-3]",
				"1/2*3":   "[[1/2]*3]",
				"2^3^4":   "[2^[3^4]]",
				"1+2^3*4": "[1+[[2^3]*4]]",
				"(1+2)*3": "[([1+2])*3]",
				"7":       "7",
			}},
		{name: "separate-alternatives",
			// Two alternatives are two levels: ANTLR gives a/b*c as a/(b*c).
			g4:    `e : e '*' e # Mul | e '/' e # Div | INT # Int ;`,
			group: "Mul Div",
			want: map[string]string{
				"1/2*3": "[1/[2*3]]",
				"1*2/3": "[[1*2]/3]",
			}},
		{name: "prefix-between",
			// Neg binds looser than ! but tighter than * and +.
			g4:    `e : e '!' # Fact | '-' e # Neg | e '*' e # Mul | e '+' e # Add | INT # Int ;`,
			group: "Fact Neg Mul Add",
			want: map[string]string{
				"-1*2":   "[[-1]*2]",
				"-1!":    "[-[1!]]",
				"1*-2+3": "[[1*[-2]]+3]",
				"--1!":   "[-[-[1!]]]",
				"1!*2!":  "[[1!]*[2!]]",
			}},
		{name: "prefix-loosest",
			// As in a grammar that lists unary minus last: its operand
			// takes every operator.
			g4:    `e : e '*' e # Mul | e '+' e # Add | '-' e # Neg | INT # Int ;`,
			group: "Mul Add Neg",
			want: map[string]string{
				"-1+2":    "[-[1+2]]",
				"1*-2+3":  "[1*[-[2+3]]]",
				"1+-2*3":  "[1+[-[2*3]]]",
				"-1*2":    "[-[1*2]]",
				"1*2+-3":  "[[1*2]+[-3]]",
				"1+2*3+4": "[[1+[2*3]]+4]",
			}},
		{name: "suffixes-and-ternary",
			g4: `e : e '[' e ']' # Index | e '.' ID # Field | e '(' (e (',' e)*)? ')' # Call
			       | '!' e # Not | e '&&' e # And | <assoc=right> e '?' e ':' e # Cond | ID # Id ;`,
			group: "Index Field Call Not And Cond",
			want: map[string]string{
				"a.b[c]":     "[[a.b][c]]",
				"!a.b":       "[![a.b]]",
				"!a&&b":      "[[!a]&&b]",
				"a?b:c?d:e":  "[a?b:[c?d:e]]",
				"a&&b?c:d":   "[[a&&b]?c:d]",
				"a?b&&c:d":   "[a?[b&&c]:d]",
				"f(a,b)(c)":  "[[f(a,b)](c)]",
				"a[b].c":     "[[a[b]].c]",
				"f(a[b&&c])": "[f([a[[b&&c]]])]",
			}},
		{name: "suffix-between",
			// A suffix looser than * applies to a product; a suffix
			// applies to whatever the loop has built.
			g4:    `e : e '*' e # Mul | e '.' ID # Field | e '+' e # Add | ID # Id ;`,
			group: "Mul Field Add",
			want: map[string]string{
				"a.b*c":   "[[a.b]*c]",
				"a*b.c":   "[[a*b].c]",
				"a+b.c":   "[a+[b.c]]",
				"a+b*c.d": "[a+[[b*c].d]]",
				"a.b.c":   "[[a.b].c]",
			}},
		{name: "ternary-left",
			// Without <assoc=right> a ternary groups to the left, as ANTLR's.
			g4:    `e : e '?' e ':' e # Cond | ID # Id ;`,
			group: "Cond",
			want: map[string]string{
				"a?b:c?d:e": "[[a?b:c]?d:e]",
				"a?b?c:d:e": "[a?[b?c:d]:e]",
			}},
		{name: "shared-label",
			g4:    `e : e '*' e # Bin | e '+' e # Bin | INT # Int | ID # Int ;`,
			group: "Bin Bin2",
			want: map[string]string{
				"1+2*3": "[1+[2*3]]",
				"a*b+c": "[[a*b]+c]",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// s, not e, starts: the start rule begins with the gap, which
			// e's references to itself would repeat.
			src := "grammar T;\ns : e ;\n" + tt.g4 + "\nINT : [0-9]+ ;\nID : [a-z]+ ;\nWS : ' '+ -> skip ;\n"
			ast := convertG4(t, "T.g4", src)
			g, err := grammar.Build(ast)
			if err != nil {
				t.Fatalf("%v\n%s", err, grammar.Format(ast))
			}
			group := map[string]bool{}
			for _, l := range strings.Fields(tt.group) {
				group[l] = true
			}
			for in, want := range tt.want {
				trees, err := g.ParseAll([]byte(in), 10)
				if err != nil {
					t.Errorf("%q does not parse: %v", in, err)
					continue
				}
				if len(trees) != 1 {
					var all []string
					for _, tr := range trees {
						all = append(all, grouping(tr, group))
					}
					t.Errorf("%q has %d trees, want 1: %s\n%s", in, len(trees), strings.Join(all, " "), grammar.Format(ast))
					continue
				}
				if got := grouping(trees[0], group); got != want {
					t.Errorf("%q groups as %s, want %s", in, got, want)
				}
			}
			checkGenerated(t, g, 100, 100)
		})
	}
}

// grouping writes a tree's tokens without the hidden material between
// them, with [ ] around every subtree of a rule in group (a variant
// Add' counts as Add).
func grouping(t *grammar.Tree, group map[string]bool) string {
	var b strings.Builder
	var walk func(t *grammar.Tree)
	walk = func(t *grammar.Tree) {
		name, _, _ := strings.Cut(t.Node.Name, "'")
		switch {
		case t.Node.Kind == grammar.KindRef && (name == antlr.Gap || name == antlr.WordGap || name == antlr.SpaceGap):
			return
		case len(t.Children) == 0:
			b.WriteString(t.Value)
			return
		}
		bracket := t.Node.Kind == grammar.KindRef && group[name]
		if bracket {
			b.WriteByte('[')
		}
		for _, c := range t.Children {
			walk(c)
		}
		if bracket {
			b.WriteByte(']')
		}
	}
	walk(t)
	return b.String()
}

// TestOpenEnd pins what the conversion leaves ambiguous: a primary that
// ends in the rule inside a group, whose inner expression could take an
// operator after it (ANTLR's greedy loop gives it the operator).
func TestOpenEnd(t *testing.T) {
	src := "grammar T;\ns : e ;\ne : e '+' e # Add | 'if' e 'then' (e | 'skip') # If | INT # Int ;\nINT : [0-9]+ ;\nWS : ' '+ -> skip ;\n"
	ast := convertG4(t, "T.g4", src)
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	group := map[string]bool{"Add": true, "If": true}
	for in, want := range map[string][]string{
		"if 1 then skip + 2": {"[[if1thenskip]+2]"},
		"1 + 2 + 3":          {"[[1+2]+3]"},
		"if 1 then 2 + 3":    {"[if1then[2+3]]", "[[if1then2]+3]"},
	} {
		trees, err := g.ParseAll([]byte(in), 10)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		var got []string
		for _, tr := range trees {
			got = append(got, grouping(tr, group))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q has trees %v, want %v", in, got, want)
		}
	}
}

// TestIndirectLeftRecursion checks that a rule that reaches itself
// through another rule first is converted as written: the general
// parser takes it, ambiguities and all.
func TestIndirectLeftRecursion(t *testing.T) {
	src := "grammar T;\ns : a ;\na : b '+' a | INT ;\nb : a | '-' ;\nINT : [0-9]+ ;\n"
	ast := convertG4(t, "T.g4", src)
	text := grammar.Format(ast)
	for _, want := range []string{`a := b "+" a | INT ;`, `b := a | "-" ;`} {
		if !strings.Contains(text, want) {
			t.Errorf("converted grammar lacks %s:\n%s", want, text)
		}
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	trees, err := g.ParseAll([]byte("1+2+3"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(trees) != 2 {
		t.Errorf("1+2+3 has %d trees, want the 2 of the rule as written", len(trees))
	}
}

// TestLeftRecursiveStart checks that a left-recursive start rule keeps
// one tree per input: its leading gap is not repeated before its
// references to itself, which use its body's rule, e_0.
func TestLeftRecursiveStart(t *testing.T) {
	src := "grammar T;\ne : e '*' e # Mul | e '+' e # Add | '(' e ')' # Par | INT # Int ;\nINT : [0-9]+ ;\nWS : ' '+ -> skip ;\n"
	ast := convertG4(t, "T.g4", src)
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	if g.Start != "e" {
		t.Errorf("start %s, want e", g.Start)
	}
	for in, want := range map[string]string{" 1 + 2 * 3 ": "[1+[2*3]]", "( 1 +2)* 3": "[([1+2])*3]"} {
		trees, err := g.ParseAll([]byte(in), 10)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if len(trees) != 1 {
			t.Fatalf("%q has %d trees, want 1\n%s", in, len(trees), grammar.Format(ast))
		}
		if got := grouping(trees[0], map[string]bool{"Mul": true, "Add": true}); got != want {
			t.Errorf("%q groups as %s, want %s", in, got, want)
		}
	}
	checkGenerated(t, g, 50, 100)
}
