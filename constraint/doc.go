// Package constraint compiles and evaluates a grammar's constraints: the
// where clauses of arbor's notation (docs/notation.md), which say what a
// context-free grammar cannot (a variable is declared before its use, a
// range's start is not past its end, a reference names a definition).
//
// A clause's expression is expr-lang (github.com/expr-lang/expr); rule
// names in it stand for the rule's occurrences in one occurrence of the
// clause's scope, as a Node or a list of them, and a Node's fields are
// its text, its value as a number, its length and its place in the
// input. Compile type-checks every clause against the grammar, so an
// error has the clause's file:line:col; a Checker evaluates them on
// derivation trees and reports each broken instance.
//
//	g, _ := grammar.Build(ast)        // ast.Where holds the clauses
//	set, err := constraint.Compile(g) // a grammar.ErrorList on error
//	tree, _ := g.Parse(input)
//	for _, v := range constraint.NewChecker(set).Check(tree) {
//		fmt.Println(v) // file:line:col: the clause, where it breaks
//	}
//
// The package only judges trees; making trees that satisfy constraints
// is synth.Satisfier's work. Its Nodes, with their values and places,
// are the vocabulary relational features and mined constraints build on.
package constraint
