// Package load reads grammar files in any notation arbor takes, its own
// (.grammar, docs/notation.md), ANTLR 4 (.g4) and the fuzzingbook's JSON
// (.json), and builds them into a grammar graph:
//
//	g, err := load.File("JSON.g4") // the warnings of the conversion are in g.Warnings
//	tree, err := g.Parse([]byte(`{"a": [1, 2]}`))
//
// The notation is told by the file's extension or else by its content
// (DetectFormat). Import returns the grammar's syntax and the
// conversion's warnings instead of a graph, with Options to choose the
// start rule and give an ANTLR parser grammar its lexer grammar; Source
// does the same for text already read, such as an embedded file.
//
// The package needs no more of arbor than grammar and its converters
// (grammar/antlr, grammar/bnf): a program that only parses inputs with
// its own grammar can load it without the subjects, harnesses and
// bundled grammars of package datasets.
package load
