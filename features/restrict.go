package features

import "github.com/arbor-fuzz/arbor/grammar"

// Restrict returns a vocabulary of the given features of v alone (ids in
// v, distinct), renumbered 0..len(ids)-1 in the order given. It reads
// only their kinds, and its k-path walks stop at the first path that
// none of its k-paths ends with, so that extracting a few features of a
// large vocabulary (those a model's trees test) costs little more than
// walking the input. A feature is present in an input for the restricted
// vocabulary exactly when it is for v.
func (v *Vocabulary) Restrict(ids []int) *Vocabulary {
	var kinds Kinds
	for _, id := range ids {
		kinds = kinds.With(v.feats[id].Kind)
	}
	if kinds == 0 {
		kinds = KPaths // nothing to find: the cheapest walk
	}
	o := v.opts
	o.Kinds = kinds
	r := NewVocabulary(v.g, o)
	for _, id := range ids {
		r.Intern(v.feats[id])
	}
	return r
}

// AppendParsedFeatures is ParsedFeatures, reusing dst's storage for the
// result (dst's elements are discarded): a caller that keeps one buffer
// from input to input extracts features without garbage of its own.
func (v *Vocabulary) AppendParsedFeatures(dst []int, p *grammar.Parsed) []int {
	return v.collect(dst[:0], forest{parsed: p}, false)
}
