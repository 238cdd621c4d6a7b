package fuzz

import (
	"fmt"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// InputError is why one of the inputs given to SeedsFromInputs gave no
// seed. Index lets a caller name the input (a file) it came from.
type InputError struct {
	Index int // the input's position among the inputs
	Err   error
}

func (e *InputError) Error() string { return fmt.Sprintf("input %d: %v", e.Index, e.Err) }

func (e *InputError) Unwrap() error { return e.Err }

// SeedsFromInputs turns inputs (files a campaign is to start from) into
// choice sequences for Options.Seeds: the decisions with which the
// campaign's realizer, under bounds b, generates each input's derivation
// tree. The seeds are those of the inputs that have one, in the inputs'
// order; each other input gets an *InputError, in order too: it does not
// parse, or no tree of it fits the bounds (more repetitions, depth or
// distinct values than b allows, or a terminal value the generator
// cannot draw), which the error names. A seed is dropped rather than
// approximated, since a sequence that left a decision's options would
// run another input than the file.
//
// An ambiguous input whose first tree does not fit the bounds is
// derived from the first of its trees (up to grammar.DefaultTreeLimit)
// that does: the parser's choice among them (longest regex matches,
// one associativity) is not the generator's, and often needs a longer
// repetition or a deeper nesting than another tree of the same text.
// Enumerating the trees holds them all in memory at once, for the inputs
// that need it only.
func SeedsFromInputs(g *grammar.Graph, inputs [][]byte, b Bounds) (seeds [][]int, errs []error) {
	// The realizer's own generator, so that the seeds are derived with
	// exactly the settings that will replay them.
	gen := newRealizer(g, b).gen
	p := g.NewParser()
	for i, in := range inputs {
		choices, err := inputChoices(gen, p, in)
		if err != nil {
			errs = append(errs, &InputError{Index: i, Err: err})
			continue
		}
		seeds = append(seeds, choices)
	}
	return seeds, errs
}

// inputChoices derives an input's decisions from its parse, or, where
// that tree does not fit the generator's bounds, from another tree of
// the input.
func inputChoices(gen *synth.Generator, p *grammar.Parser, in []byte) ([]int, error) {
	tree, err := p.Parse(in)
	if err != nil {
		return nil, fmt.Errorf("does not parse: %w", err)
	}
	choices, err := gen.ChoicesOf(tree)
	if err == nil {
		return choices, nil
	}
	trees, perr := gen.G.ParseAll(in, grammar.DefaultTreeLimit)
	if perr != nil || len(trees) <= 1 {
		// The deterministic parser's tree is the input's only one.
		return nil, err
	}
	for _, t := range trees {
		if choices, terr := gen.ChoicesOf(t); terr == nil {
			return choices, nil
		}
	}
	return nil, fmt.Errorf("%w (and no other of its first %d parse trees fits the bounds)", err, len(trees))
}
