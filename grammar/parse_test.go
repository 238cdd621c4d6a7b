package grammar

import (
	"errors"
	"strings"
	"testing"
)

func TestParseConstructs(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // Format of the parsed grammar
	}{
		{"literal", `S := "a" ;`, `S := "a" ;`},
		{"escapes", `S := "\n\r\t\"\\\/\x41\u00e9" ;`, `S := "\n\r\t\"\\/A\xc3\xa9" ;`},
		{"empty literal", `S := "" ;`, `S := "" ;`},
		{"regex", `S := /[a-z_][a-z0-9_]*/ ;`, `S := /[a-z_][a-z0-9_]*/ ;`},
		{"regex with slash", `S := /a\/b/ ;`, `S := /a\/b/ ;`},
		{"sequence", `S := "a" B "c" ; B := "b" ;`, "S := \"a\" B \"c\" ;\nB := \"b\" ;"},
		{"alternation", `S := "a" | "b" | ;`, `S := "a" | "b" | "" ;`},
		{"group", `S := "a" ("b" | "c") "d" ;`, `S := "a" ("b" | "c") "d" ;`},
		{"optional", `S := "a"? ;`, `S := "a"? ;`},
		{"star", `S := ("a" "b")* ;`, `S := ("a" "b")* ;`},
		{"plus", `S := "a"+ ;`, `S := "a"+ ;`},
		{"exact", `S := "a"{3} ;`, `S := "a"{3} ;`},
		{"at least", `S := "a"{2,} ;`, `S := "a"{2,} ;`},
		{"at most", `S := "a"{,4} ;`, `S := "a"{,4} ;`},
		{"range", `S := "a"{2,5} ;`, `S := "a"{2,5} ;`},
		{"nested quantifiers", `S := ("a"?)+ ;`, `S := "a"?+ ;`},
		{"line comment", "// c\nS := \"a\" ; // trailing", `S := "a" ;`},
		{"block comment", "/* a\nb */ S := /* in */ \"a\" ;", `S := "a" ;`},
		{"names", `S' := A_b$1 ; A_b$1 := "x" ;`, "S' := A_b$1 ;\nA_b$1 := \"x\" ;"},
		{"whitespace insensitive", "S\n:=\n\"a\"\n|\n\"b\"\n;", `S := "a" | "b" ;`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Parse("t.grammar", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := strings.TrimSpace(Format(g)); got != tt.want {
				t.Errorf("Format = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		pos       string // file:line:col of the first error
		msg       string // part of its message
	}{
		{"no rules", "", "t.grammar:1:1", "no rules"},
		{"missing define", `S "a" ;`, "t.grammar:1:3", "expected ':=' after rule name S"},
		{"bnf define", `S ::= "a" ;`, "t.grammar:1:3", "use ':='"},
		{"missing semicolon", "S := \"a\"\nT := \"b\" ;", "t.grammar:2:1", "has no ';'"},
		{"missing semicolon at end", `S := "a"`, "t.grammar:1:9", "expected ';' to end rule S"},
		{"unclosed literal", `S := "abc ;`, "t.grammar:1:6", "literal is not closed"},
		{"bad escape", `S := "a\q" ;`, "t.grammar:1:8", `unknown escape \q`},
		{"short hex escape", `S := "\x4" ;`, "t.grammar:1:7", `\x needs exactly two hex digits`},
		{"bad unicode escape", `S := "\uZZZZ" ;`, "t.grammar:1:7", `\u needs exactly four hex digits`},
		{"unclosed regex", "S := /ab ;", "t.grammar:1:6", "regular expression is not closed"},
		{"bad regex", "S := /a(b/ ;", "t.grammar:1:6", "bad regular expression /a(b/: missing closing )"},
		{"unclosed group", `S := ("a" ;`, "t.grammar:1:11", "expected ')' to close the group opened at t.grammar:1:6"},
		{"dangling quantifier", `S := * "a" ;`, "t.grammar:1:6", "nothing to repeat"},
		{"min above max", `S := "a"{5,2} ;`, "t.grammar:1:9", "minimum above its maximum"},
		{"zero max", `S := "a"{,0} ;`, "t.grammar:1:9", "maximum of 0"},
		{"empty braces", `S := "a"{,} ;`, "t.grammar:1:9", "needs a bound"},
		{"huge count", `S := "a"{99999} ;`, "t.grammar:1:10", "too large"},
		{"unclosed brace", `S := "a"{2 ;`, "t.grammar:1:12", "expected '}'"},
		{"illegal char", `S := "a" @ ;`, "t.grammar:1:10", `illegal character "@"`},
		{"stray number", `S := 12 ;`, "t.grammar:1:6", "number may only appear in a repetition"},
		{"unclosed comment", "S := \"a\" ; /* x", "t.grammar:1:12", "block comment is not closed"},
		{"second line column", "S := \"a\" ;\nT := \"b\" | ) ;", "t.grammar:2:12", "expected ';' to end rule T"},
		{"rule name expected", `"a" := "b" ;`, "t.grammar:1:1", "expected a rule name"},
		{"deep nesting", "S := " + strings.Repeat("(", 300) + `"a"` + strings.Repeat(")", 300) + " ;", "t.grammar:1:206", "nested more than 200 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.grammar", []byte(tt.src))
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("Parse error = %v, want an ErrorList", err)
			}
			if got := list[0].Pos.String(); got != tt.pos {
				t.Errorf("position = %s, want %s (error: %v)", got, tt.pos, list[0])
			}
			if !strings.Contains(list[0].Msg, tt.msg) {
				t.Errorf("message = %q, want it to contain %q", list[0].Msg, tt.msg)
			}
		})
	}
}

func TestParseReportsSeveralErrors(t *testing.T) {
	_, err := Parse("t.grammar", []byte("A := \"a\" @ ;\nB := ( ;\nC := \"c\" ;\nD := \"\\q\" ;"))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want ErrorList, got %v", err)
	}
	var lines []int
	for _, e := range list {
		lines = append(lines, e.Pos.Line)
	}
	if len(list) != 3 || lines[0] != 1 || lines[1] != 2 || lines[2] != 4 {
		t.Fatalf("errors on lines %v, want [1 2 4]:\n%v", lines, err)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name, src string
		pos, msg  string
	}{
		{"undefined", "S := A B ;\nA := \"a\" ;", "t.grammar:1:8", "undefined symbol B"},
		{"undefined with suggestion", "S := Nmber ;\nNumber := \"1\" ;", "t.grammar:1:6", "did you mean Number?"},
		{"duplicate rule", "S := \"a\" ;\nS := \"b\" ;", "t.grammar:2:1", "rule S is defined twice (first at t.grammar:1:1)"},
		{"unreachable", "S := \"a\" ;\nT := \"b\" ;", "t.grammar:2:1", "rule T is unreachable from the start symbol S"},
		{"unproductive", "S := \"a\" | L ;\nL := \"(\" L \")\" ;", "t.grammar:2:1", "rule L is unproductive"},
		{"unproductive start", "S := S \"a\" ;", "t.grammar:1:1", "rule S is unproductive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ast, err := Parse("t.grammar", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Build(ast)
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("Build error = %v, want an ErrorList", err)
			}
			if got := list[0].Pos.String(); got != tt.pos {
				t.Errorf("position = %s, want %s (%v)", got, tt.pos, list[0])
			}
			if !strings.Contains(list[0].Msg, tt.msg) {
				t.Errorf("message = %q, want it to contain %q", list[0].Msg, tt.msg)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	g := mustBuild(t, "t.grammar", "S := \"a\" | B | \"a\" ;\nB := B \"b\" | \"c\" ;")
	var got []string
	for _, w := range g.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		`t.grammar:1:16: warning: in rule S, alternative 3 repeats alternative 1 ("a"); the grammar is ambiguous there`,
		`t.grammar:2:1: warning: rule B is left-recursive (arbor parses it, with the general parser)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
