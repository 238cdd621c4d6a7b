// Package synth holds arbor's input generators (DESIGN.md §5). Every
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
// forestation (Forest), constraint-targeted (Solve, Target: inputs that
// satisfy a function's learned covering constraints), and the bandit
// guide (Guide, RLCheck's Monte Carlo control) that drives a grammar
// (GuideChooser) or hand-written generator (Select, the BST example)
// towards diverse valid inputs (Check).
package synth
