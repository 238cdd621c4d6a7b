package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrammarConvert runs 'arbor grammar convert' on ANTLR and JSON
// grammars in and out, and checks that other commands read .g4 and
// .json grammars as GRAMMAR.
func TestGrammarConvert(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeInput(t, dir, name, []byte(text)) }
	sum := write("Sum.g4", "grammar Sum;\nsum : term ('+' term)* ;\nterm : INT # Number | '(' sum ')' # Group ;\nINT : [0-9]+ ;\nWS : ' '+ -> skip ;\n")
	parser := write("PairParser.g4", "parser grammar PairParser;\npair : KEY '=' KEY ;\n")
	lexer := write("PairLexer.g4", "lexer grammar PairLexer;\nKEY : [a-z]+ ;\nEQ : '=' ;\n")
	other := write("other.g4", "lexer grammar L;\nKEY : [a-z]+ ;\nEQ : '=' ;\n")
	noExt := write("sum-grammar", "// no extension: told by its content\ngrammar Sum;\ns : 'x' ;\n")
	digits := write("digits.json", `{"<start>": ["<d>", "<d><start>"], "<d>": ["0", "1"]}`)
	modes := write("Modes.g4", "lexer grammar Modes;\nA : 'a' -> pushMode(M) ;\nmode M;\nB : 'b' ;\n")
	action := write("Act.g4", "grammar Act;\ns : A {print();} ;\nA : 'a' ;\n")
	badJSON := write("bad.json", "{\"<start>\": [\"<x>\"]}")
	out := filepath.Join(dir, "sum.grammar")

	runCases(t, []cliCase{
		{"g4 to arbor", "", []string{"grammar", "convert", sum}, 0,
			[]string{"sum := _ (term (\"+\" _ term)*) ;", "Number := INT _ ;", "Group := \"(\" _ sum \")\" _ ;", "INT := /[0-9]+/ ;"}, nil},
		{"g4 to json", "", []string{"grammar", "convert", sum, "--to", "json"}, 0, []string{`"<sum>": [`, `"<Number>": ["<INT><_>"]`}, nil},
		{"arbor to g4", "", []string{"grammar", "convert", "expr", "--to", "g4"}, 0,
			[]string{"lexer grammar Expr;", "Expr : AddExpr ;", "fragment DecDigits : DecDigit+ ;"},
			[]string{"warning: rule AddExpr is left-recursive, which ANTLR does not allow in lexer rules"}},
		{"parser grammar finds its lexer", "", []string{"grammar", "convert", parser}, 0, []string{"pair := KEY \"=\" KEY ;"}, nil},
		{"lexer given", "", []string{"grammar", "convert", parser, other}, 0, []string{"KEY := /[a-z]+/ ;"}, nil},
		{"content sniffed", "", []string{"grammar", "convert", noExt}, 0, []string{`s := "x" ;`}, nil},
		{"start", "", []string{"grammar", "convert", sum, "--start", "term"}, 0, []string{"term := _ (Number | Group) ;", "sum := term"}, nil},
		{"json start", "", []string{"grammar", "convert", digits, "--start", "d"}, 0, []string{"d := \"0\" | \"1\" ;\n"}, []string{"warning: rule start is not reachable from d; left out"}},
		{"out file", "", []string{"grammar", "convert", sum, "--out", out}, 0, nil, nil},
		{"unsupported", "", []string{"grammar", "convert", modes}, 1, nil, []string{"Modes.g4:2:12: unsupported: lexer command pushMode"}},
		{"warning", "", []string{"grammar", "convert", action}, 0, []string{"s := A ;"}, []string{"Act.g4:2:7: warning: action {...} dropped"}},
		{"bad json", "", []string{"grammar", "convert", badJSON}, 1, nil, []string{"bad.json:1:14: <x> is used but not defined"}},
		{"bad to", "", []string{"grammar", "convert", sum, "--to", "yacc"}, 2, nil, []string{"--to must be arbor, g4 or json"}},
		{"no args", "", []string{"grammar", "convert"}, 2, nil, []string{"accepts between 1 and 2 arg(s)"}},
		{"lexer for a non-g4", "", []string{"grammar", "convert", digits, lexer}, 2, nil, []string{"only taken as the lexer of an ANTLR parser grammar"}},
		{"no start rule", "", []string{"grammar", "convert", sum, "--start", "nope"}, 1, nil, []string{"no rule named nope"}},
		{"help", "", []string{"grammar", "convert", "--help"}, 0, []string{"Approximations", "unsupported", "tokenVocab"}, nil},
		{"parse a g4 grammar's input", " 1 + (2+3)", []string{"parse", sum, "-"}, 0, []string{"Group_"}, nil},
		{"check a json grammar", "", []string{"grammar", "check", digits}, 0, []string{"digits.json: ok"}, nil},
		{"generate from g4", "", []string{"generate", sum, "-n", "3", "--seed", "1", "--out", filepath.Join(dir, "gen")}, 0, nil, nil},
	})
	text, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(text), "term := Number | Group ;") {
		t.Errorf("--out wrote %q, %v", text, err)
	}
	// What was generated from the .g4 grammar parses with it.
	files, _ := filepath.Glob(filepath.Join(dir, "gen", "*"))
	if len(files) != 3 {
		t.Fatalf("generated %v", files)
	}
	if _, errOut, code := runArbor(t, "", append([]string{"parse", sum}, files...)...); code != 0 {
		t.Errorf("generated inputs do not parse back: %s", errOut)
	}
}
