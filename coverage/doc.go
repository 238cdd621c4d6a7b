// Package coverage runs a program under test on inputs and records which
// functions each input made run (DESIGN.md §6): a Go harness built with
// -cover, per-input counters, outcomes, and the cov.jsonl file format.
//
// The package is laid out now so that the pipeline's folders exist from the
// start; its recorder is the subject of its own issue.
package coverage
