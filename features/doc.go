// Package features provides k-paths: the input features arbor learns from.
//
// A k-path is a path of k symbolic nodes (Ref, Lit, Regex) in the grammar
// graph or in a derivation tree; the synthetic nodes in between are not
// counted (DESIGN.md §4). The k-paths of a grammar grow exponentially in
// k, so they are counted without being listed:
//
//	n := features.Count(g, 5) // the number of 5-paths of the graph
//
// The k-paths of an input are read off its derivation tree:
//
//	t, _ := g.Parse([]byte("x+42"))
//	for _, p := range features.Of(t, 2) {
//		fmt.Println(p.Format(g)) // AddExpr_0→AddExpr_5, ...
//	}
package features
