// Package mine proposes constraints from recorded inputs: the where
// clauses (docs/notation.md) that separate the inputs a program accepted
// from those it rejected, for a person to review and adopt.
//
// Candidates are relations between two places of an input (features'
// Relation and Match kinds: a range's start past its end, a reference no
// definition names, a repeated name) that appear in rejected inputs and
// hardly in accepted ones. Each is written as the clause that forbids it
// (features.Where) and judged as a clause: checked on every input, with
// the rejected inputs it explains (support) and the share of the inputs
// breaking it that were rejected (precision).
//
//	rep, err := mine.Clauses(ctx, g, inputs, mine.Options{})
//	for _, c := range rep.Candidates {
//		fmt.Println(c.Clause, c.Support, c.Precision)
//	}
//
// ISLearn (Steinhöfel and Zeller, FSE 2022) mines invariants of valid
// inputs from patterns instantiated over the grammar; here the patterns
// are the relations arbor's features read off every input in one walk,
// and rejected inputs rank them.
package mine
