// Package bnf reads and writes grammars in the JSON form of the
// fuzzingbook and Fandango: an object from nonterminals in angle
// brackets to lists of expansions, in which text in angle brackets
// without spaces is a nonterminal and everything else literal text.
//
//	{"<start>": ["<number>"], "<number>": ["<digit>", "<digit><number>"],
//	 "<digit>": ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]}
//
// ParseJSON turns such a grammar into a grammar.Grammar, keeping the
// nonterminals' names without their brackets; FormatJSON writes an arbor
// grammar in that form, with the notation's groups, repetitions and
// regular expressions made into nonterminals of their own.
package bnf
