// Package synth holds arbor's input generators (docs/algorithms.md). Every
// decision a generator makes, down to the characters of a regex draw, goes
// through one Chooser, so any generated input can be replayed from its
// recorded choice sequence.
//
//	gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
//	t := gen.Generate()                     // depth-bounded random tree
//
//	rec := &synth.Recorder{C: synth.NewRandom(seed)}
//	t = synth.NewGenerator(g, rec, synth.RandomPolicy).Generate()
//	again := synth.NewGenerator(g, &synth.Replay{Choices: rec.Choices}, synth.RandomPolicy).Generate()
//	// again.String() == t.String()
//
// Generators: random (depth-bounded, DefaultMaxDepth 30 rule expansions,
// unbounded repetitions up to DefaultMaxRepeat 5), shortest (fewest
// expansions), k-path covering (Cover, with shortest or random close-off
// and, through WithAbsence, absence of optional parts as a target) and
// forestation (Forest), constraint-directed (Solve: an input whose
// features satisfy a Constraint, checked by Satisfies), and the bandit
// guide (Guide, RLCheck's Monte Carlo control) that drives a grammar
// (GuideChooser) or hand-written generator (Select) towards diverse
// valid inputs (Check, with an Oracle that judges them).
//
// GenerateFunc makes random or shortest inputs one at a time, and
// GenerateSet streams a covering set or forest, for callers (the
// generate command) that write them as they come.
//
// synth runs no program and reads no model: it imports only grammar and
// features. Targeting, which turns a learned model into constraints and
// learns from running its inputs, is package targeting; the oracles that
// run a program are in package subject.
//
// A Mutator makes new sequences out of old ones, Zest's way: span
// mutation and subtree splicing over flat choice sequences, realized by
// the grammar's own generator so that every mutant is a derivation. The
// targeting loop mutates with it; package fuzz has its own mutator over
// per-kind streams, and the two share only the geometric draw
// (Geometric) and Zest's means.
//
// A ByteGenerator reads any byte string as a choice sequence (Zest's
// parametric generator), so that every byte string is an input of the
// grammar and a Go fuzz target becomes grammar-aware: Go's fuzzer
// mutates bytes, which the generator turns into structural changes.
//
//	gen := synth.NewByteGenerator(g)
//	f.Fuzz(func(t *testing.T, data []byte) {
//		parse(gen.FromBytes(data))
//	})
package synth
