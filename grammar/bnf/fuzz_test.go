package bnf_test

import (
	"errors"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/bnf"
)

// FuzzParseJSONGrammar checks that no bytes make ParseJSON panic, that
// every error is an ErrorList with valid positions, and that a grammar
// read is written back by FormatJSON into JSON that reads again.
func FuzzParseJSONGrammar(f *testing.F) {
	f.Add([]byte(`{"<start>": ["<a> b", ["c", {"prob": 1}]], "<a>": ["", "<<a>>"]}`))
	f.Add([]byte(`{"<x y>": ["<>"], "<>": ["\u00e9"]}`))
	f.Add([]byte(`{"<start>": [[[]]]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		ast, err := bnf.ParseJSON("fuzz.json", src)
		if err != nil {
			var list grammar.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty ErrorList: %v", err)
			}
			for _, e := range list {
				if !e.Pos.IsValid() || e.Pos.Offset > len(src) {
					t.Fatalf("error without a valid position: %v", e)
				}
			}
			return
		}
		if _, err := grammar.Parse("fuzz.grammar", []byte(grammar.Format(ast))); err != nil {
			t.Fatalf("formatted grammar does not parse: %v\n%s", err, grammar.Format(ast))
		}
		js, _ := bnf.FormatJSON(ast)
		if _, err := bnf.ParseJSON("fuzz2.json", js); err != nil {
			t.Fatalf("written back, it does not read: %v\n%s", err, js)
		}
	})
}
