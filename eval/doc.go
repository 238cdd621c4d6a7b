// Package eval runs arbor's experiments (docs/evaluation.md), computes their
// statistics and writes their reports.
//
//   - E1 runs k-path covering sets against grammar-random sets of the same
//     size and compares their function and block coverage (Mann–Whitney U).
//   - E2 correlates k-path coverage with block coverage over forestation
//     sets (Spearman's ρ).
//   - E3 measures association quality: how well per-function trees learned
//     from recorded coverage predict which functions new inputs run.
//   - E4 and E5 (Targeted) compare inputs solved for a function's calling
//     condition with random inputs.
//   - E6 compares the bandit generator with uniformly random choices.
//   - E7 compares coverage over time of random generation, the bandit,
//     Zest-style fuzzing and Go's fuzzer at equal wall time.
//   - E8 compares FairFuzz's and PerfFuzz's feedback with plain Zest.
//   - E9 compares Bonsai's bounded lattice with unbounded fuzzing.
//   - E10 measures seeding a campaign from the bandit generator (Kummer).
//
// All runs them all on the bundled subjects and writes a Markdown report
// linking CSV, JSON and SVG plots:
//
//	path, err := eval.All(ctx, eval.AllConfig{Out: "results", Quick: true})
//
// Every result prints as tables of text cells, built once: Table is the
// summary arbor eval prints and report.md lays out, CSVTable the rows of
// its CSV file:
//
//	header, rows := r.Table()
//
// Demo runs the demo (arbor demo): E3, one function's explanation and
// inputs aimed at it, verified, and E4, telling its caller each step as
// it happens.
//
// The statistics (Mean, Median, Quantile, Ranks, Spearman, MannWhitney,
// Wilcoxon, CohensD) are usable on their own.
package eval
