package bnf_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/bnf"
)

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		format string   // grammar.Format of the result
		accept []string // inputs the grammar must parse
		reject []string
	}{
		{"digits", `{"<start>": ["<number>"], "<number>": ["<digit>", "<digit><number>"], "<digit>": ["0", "1"]}`,
			"start := number ;\nnumber := digit | digit number ;\ndigit := \"0\" | \"1\" ;\n", []string{"0", "101"}, []string{"", "2"}},
		{"start moved first", `{"<a>": ["x"], "<start>": ["<a>-<a>"]}`,
			"start := a \"-\" a ;\na := \"x\" ;\n", []string{"x-x"}, []string{"x"}},
		{"first key without <start>", `{"<expr>": ["<term> + <expr>", "<term>"], "<term>": ["1"]}`,
			"expr := term \" + \" expr | term ;\nterm := \"1\" ;\n", []string{"1 + 1"}, []string{"1+1"}},
		{"options and empty", `{"<start>": [["<a>", {"prob": 0.5}], ""], "<a>": ["a"]}`,
			"start := a | \"\" ;\na := \"a\" ;\n", []string{"", "a"}, nil},
		{"brackets that are text", `{"<start>": ["<a b> < <> x>y"], "<>": ["e"]}`,
			"start := \"<a b> < \" _ \" x>y\" ;\n_ := \"e\" ;\n", []string{"<a b> < e x>y"}, nil},
		{"names sanitized", `{"<start>": ["<digit-1><1x><a.b><a_b>"], "<digit-1>": ["d"], "<1x>": ["x"], "<a.b>": ["y"], "<a_b>": ["z"]}`,
			"start := digit_1 _1x a_b a_b_2 ;\ndigit_1 := \"d\" ;\n_1x := \"x\" ;\na_b := \"y\" ;\na_b_2 := \"z\" ;\n", []string{"dxyz"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ast, err := bnf.ParseJSON("g.json", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := grammar.Format(ast); got != tt.format {
				t.Errorf("got\n%s\nwant\n%s", got, tt.format)
			}
			g, err := grammar.Build(ast)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range tt.accept {
				if _, err := g.Parse([]byte(in)); err != nil {
					t.Errorf("%q: %v", in, err)
				}
			}
			for _, in := range tt.reject {
				if _, err := g.Parse([]byte(in)); err == nil {
					t.Errorf("%q parses", in)
				}
			}
		})
	}
}

func TestParseJSONErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`[]`, "g.json:1:1: a grammar is a JSON object"},
		{`{"start": ["a"]}`, `g.json:1:2: key "start" is not a nonterminal`},
		{"{\n  \"<start>\": [\"<b>\"]\n}", "g.json:2:15: <b> is used but not defined"},
		{`{"<start>": "a"}`, "g.json:1:13: the expansions of <start> must be a list of strings"},
		{`{"<start>": [1]}`, "g.json:1:14: an expansion of <start> must be a string"},
		{`{"<start>": ["a"], "<start>": ["b"]}`, "g.json:1:20: nonterminal <start> is defined twice (first at g.json:1:2)"},
		{`{"<start>": ["a"]`, "g.json:1:18: JSON ends too early"},
		{`{"<start>": ["a"]} x`, "g.json:1:20: "},
		{`{}`, "g.json:1:1: the grammar has no nonterminals"},
		{`{"<start>": []}`, "g.json:1:2: nonterminal <start> has no expansions"},
		// An empty list as an expansion closed the list of expansions
		// too early, and the parser reported "JSON ends too early".
		{`{"<start>": [[]]}`, "g.json:1:14: an expansion of <start> is an empty list"},
		{`{"<start>": ["a", []], "<b>": ["c"]}`, "g.json:1:19: an expansion of <start> is an empty list"},
		{`{"<start>": ["<b>"], "<b>": []}`, "g.json:1:22: nonterminal <b> has no expansions"},
	}
	for _, tt := range tests {
		_, err := bnf.ParseJSON("g.json", []byte(tt.src))
		var list grammar.ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%s: error %v is not an ErrorList", tt.src, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
}

// TestFormatJSONText checks that text which reads as a nonterminal is
// written so that it does not.
func TestFormatJSONText(t *testing.T) {
	ast, err := grammar.Parse("t.grammar", []byte(`S := "<b>" T "<" "c>" ; T := /[<>]/ ;`))
	if err != nil {
		t.Fatal(err)
	}
	js, _ := bnf.FormatJSON(ast)
	back, err := bnf.ParseJSON("t.json", js)
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	g, err := grammar.Build(back)
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	for _, in := range []string{"<b><<c>", "<b>><c>"} {
		if _, err := g.Parse([]byte(in)); err != nil {
			t.Errorf("%q: %v\n%s", in, err, js)
		}
	}
}
