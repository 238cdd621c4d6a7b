// Package learn fits one decision tree per function on k-path features
// (DESIGN.md §7): bitset CART, per-function training, model files,
// prediction and covering constraints.
//
// The package is laid out now so that the pipeline's folders exist from the
// start; the learner is the subject of its own issue.
package learn
