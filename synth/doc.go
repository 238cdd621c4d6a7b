// Package synth holds arbor's input generators (DESIGN.md §5, §7, §8):
// random, shortest, k-path covering, forestation, constraint-targeted and
// the bandit guide, all making their decisions through one Chooser.
//
// The package is laid out now so that the pipeline's folders exist from the
// start; the generators are the subject of their own issues.
package synth
