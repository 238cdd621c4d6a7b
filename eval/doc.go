// Package eval runs arbor's experiments (DESIGN.md §9): metrics,
// statistics, the studies that reproduce the published tables, reports and
// plots.
//
// The package is laid out now so that the pipeline's folders exist from the
// start; the experiments are the subject of their own issues.
package eval
