// Package antlr converts ANTLR 4 grammars (.g4) into arbor grammars and
// arbor grammars back into ANTLR's notation.
//
// Parse reads the syntax of one .g4 file; Convert turns a combined
// grammar, or a parser grammar with its lexer grammar, into a
// grammar.Grammar whose rules keep the names the grammar's author gave
// them; Load does both for a file, finding a parser grammar's lexer
// beside it. Format writes an arbor grammar as an ANTLR lexer grammar.
//
//	g, warnings, err := antlr.Load("JSON.g4")
//	if err != nil { ... } // file:line:col: message, unsupported constructs included
//	graph, err := grammar.Build(g)
//
// arbor parses without a lexer, so conversion approximates what ANTLR's
// lexer does. Tokens a lexer skips or hides (white space, comments)
// become one rule, Gap, that may follow every token of a parser rule.
// Where characters could extend the token before it into a longer one
// (an identifier after a keyword), the gap is SpaceGap, which requires
// hidden material, or WordGap, which allows none only before a character
// that is not a word character, so that ifx is not read as 'if' x.
// Where two tokens glued together would begin a hidden token ('-' '-1'
// a line comment), the gap is GlueGap, which the parser reads as Gap but
// from which a generator always draws hidden material. A token matching
// one character loses those that earlier one-character tokens match, as
// the first rule wins in ANTLR's lexer. Lexer rules keep their names,
// fragments included; what
// in them refers to no other rule becomes one regular expression, and a
// non-greedy loop followed by fixed text ('/*' .*? '*/') one that stops
// at the first such text. A keyword is not taken out of an identifier's
// language: the result accepts a little more than ANTLR does. A directly
// left-recursive rule keeps ANTLR's precedence and associativity: it
// becomes one rule per precedence level, and each input has the one tree
// ANTLR's parser builds (leftrec.go). An alternative labelled # Name
// becomes a rule Name. Lexer modes,
// semantic predicates and imports are refused as unsupported; actions
// are dropped with a warning. docs/importing.md has the whole list.
package antlr
