// Package targeting generates inputs aimed at one function of a program,
// from a learned model (docs/algorithms.md, "Targeting").
//
// Offline turns a function's covering constraints (the decision paths of
// its tree that predict it runs; FromModel) into inputs, with synth's
// solver and without running anything:
//
//	res := targeting.Offline(ctx, g, model, fn, 10, learn.EveryLeaf, synth.SolveOptions{Seed: 1})
//	// res.Inputs satisfy the constraints; res.Unsolved could not be met.
//
// A Loop learns from running its inputs: Pursue solves a function's
// constraints, runs the inputs through a coverage.Runner (the program
// under test), refits the function's tree with what they covered and
// tries again, mutating the inputs that ran it, until enough inputs
// verifiably run it or the budget is spent.
//
//	loop, _ := targeting.NewLoop(predictor, &coverage.SessionRunner{Session: s})
//	p, _ := loop.Pursue(ctx, "encoding/json.unquote", targeting.PursueOptions{Want: 10, Budget: 100})
//	// p.Inputs ran the function; p.Executions is what they cost.
//
// Target and Rare are what arbor target runs: a loop for one function,
// or for every rare one in turn, with the inputs it keeps written with a
// manifest (WritePursuit) into an output folder laid out as package
// corpus says, and summed up (Summary):
//
//	opts := targeting.TargetOptions{
//		Pursue: targeting.PursueOptions{Want: 10, Budget: 100},
//		Layout: corpus.Layout{Ext: corpus.Extension(model.Grammar.Name)},
//		Out:    "rare",
//	}
//	sums, _ := loop.Rare(ctx, loop.RareFunctions(learn.RareRate), opts)
//	// rare/001-f/..., rare/summary.json; sums[i].Verified inputs ran function i.
//
// Offline's inputs have not run: WriteOffline writes them, and Verify
// runs the program on them and counts those that ran the function.
package targeting
