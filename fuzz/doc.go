// Package fuzz is coverage- and validity-guided fuzzing over a grammar's
// choice sequences: Zest's search, with feedback as FuzzFactory's
// domains.
//
// Every input is realized by the grammar's generator from a sequence of
// raw values, one stream per kind of decision, so every input is
// a derivation of the grammar. The fuzzer mutates the sequences of the
// inputs it keeps (a geometric number of spans of consecutive decisions,
// each of geometric length, get random values), realizes and runs each
// mutant, and keeps it when it moves a domain: by default Zest's two,
// the functions any input ran (Coverage) and the functions valid inputs
// ran (ValidCoverage). Its mutator is its own, not synth.Mutator (the
// targeting loop's), for it mutates the streams rather than a flat
// choice sequence; the two share synth.Geometric and Zest's means.
//
//	s, _ := coverage.Open(ctx, target, cacheDir, coverage.RunOptions{})
//	res, err := fuzz.Fuzz(ctx, g, &coverage.SessionRunner{Session: s}, fuzz.Options{
//		Seed: 1, Execs: 10000,
//		Domains: []fuzz.Domain{fuzz.Coverage(), fuzz.ValidCoverage(), fuzz.Perf()},
//	})
//	// res.Corpus: the inputs kept, with their choice sequences;
//	// res.Failures: crashes by stack, and timeouts; res.Curve: coverage
//	// over executions and time.
//
// Options.Parallel adds workers, each running inputs on a runner of its
// own (a harness process per worker, as go test -fuzz has): the campaign
// keeps one corpus and one set of domains, chooses every input and takes
// every result, and the workers realize, repair and run. One worker is
// deterministic for a seed; more are as fast as the machine's cores
// allow and as reproducible as their timing.
//
// A domain maps each run to keys and values and reduces them with an
// idempotent, order-insensitive reducer (NewDomain): set union for
// coverage, the union of log2 classes for hit counts (Counts), the
// maximum for PerfFuzz's per-function work (Perf), and the grammar's
// k-paths for structural coverage (KPaths). A domain of one's own is a
// feedback function and a reducer.
package fuzz
