// Package grammar reads context-free grammars, builds their grammar graph,
// and parses inputs into derivation trees.
//
// A grammar in arbor's notation (docs/notation.md) is parsed into syntax by
// Parse, and Build resolves it into a Graph: one node per occurrence of a
// symbol (Ref, Lit, Regex) or construct (Alt, Cat, Quant), right-hand sides
// shared between the Refs to them, ids assigned breadth-first from the
// root. Build also runs the static analyses: reachability, productivity,
// shortest derivations, minimum depths, distances, and lookahead tables.
//
//	ast, err := grammar.Parse("expr.grammar", src)
//	if err != nil { ... } // an ErrorList: file:line:col: message
//	g, err := grammar.Build(ast)
//	tree, err := g.Parse([]byte("x+42"))
//	fmt.Println(tree.String()) // x+42
//
// The input parser is scannerless (literals and regular expressions are
// its terminals) and general: left recursion, empty alternatives and
// ambiguity are all handled by an Earley parser. Inputs whose parse needs
// only one byte of lookahead at every decision take a deterministic
// linear-time parser instead; both give the same trees.
package grammar
