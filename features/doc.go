// Package features provides k-paths: the input features arbor learns from.
//
// A k-path is a path of k symbolic nodes (Ref, Lit, Regex) in the grammar
// graph or in a derivation tree; the synthetic nodes in between are not
// counted (docs/algorithms.md). The k-paths of a grammar grow exponentially in
// k, so they are counted without being listed, and listed lazily:
//
//	n := features.Count(g, 5)              // |paths_5(G)|
//	features.Enumerate(g, 3, func(p features.Path) bool { ...; return true })
//
// The k-paths of an input are read off its derivation tree, for every k up
// to K in one walk, and a corpus becomes a column-bitset feature matrix
// through a Vocabulary of interned k-paths:
//
//	v, m := features.NewVocabulary(g, features.Options{MaxK: 4}), features.NewMatrix()
//	for _, t := range trees {
//		m.AddRow(v.Add(t))
//	}
//	cols := m.Columns(v.Len()) // one bitset over the inputs per feature
//
// Coverage accumulates pathcov_k of a set of inputs and lists what is
// missing; Pattern renders a k-path as readable grammar text.
package features
