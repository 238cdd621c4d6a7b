package fuzz

import (
	"context"
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
// parse, or its text is one the generator cannot write whatever it
// chooses (invalid UTF-8, or a case-folded regex literal in the other
// case: the draw writes [eE] as E), which the error names.
//
// An input the generator can make under b gets the decisions it would
// take (synth.Generator.ChoicesOf), and its mutants are like any other
// input's. One that breaks b (longer repetitions, in rules or inside a
// regex, deeper nesting, more distinct values, characters the draw does
// not write, such as a newline in white space) gets the decisions its
// tree takes whatever the bounds (synth.Generator.ExactChoicesOf): the
// campaign keeps them as exact values (see sequence), so that the seed
// runs as the file is, while mutations draw within the bounds. A seed is
// never approximated: a sequence that took another decision would run
// another input than the file.
//
// An ambiguous input whose first tree does not fit the bounds is
// derived from the first of its trees (up to grammar.DefaultTreeLimit)
// that does: the parser's choice among them (longest regex matches,
// one associativity) is not the generator's, and often needs a longer
// repetition or a deeper nesting than another tree of the same text.
// Enumerating the trees holds them all in memory at once, for the inputs
// that need it only. Where none fits, the parser's tree is kept exactly.
func SeedsFromInputs(g *grammar.Graph, inputs [][]byte, b Bounds) (seeds [][]int, errs []error) {
	seeds, errs, _ = SeedsFromInputsContext(context.Background(), g, inputs, b)
	return seeds, errs
}

// SeedsFromInputsContext is SeedsFromInputs stopped when ctx is done,
// between inputs and inside a parse (an input of an ambiguous grammar
// can take seconds): it then returns the seeds and errors of the inputs
// before the one it stopped at, and an error that wraps ctx.Err().
func SeedsFromInputsContext(ctx context.Context, g *grammar.Graph, inputs [][]byte, b Bounds) (seeds [][]int, errs []error, err error) {
	// The realizer's own generator, so that the seeds are derived with
	// exactly the settings that will replay them.
	gen := newRealizer(g, b, newStreams()).gen
	p := g.NewParser()
	for i, in := range inputs {
		if cerr := ctx.Err(); cerr != nil {
			return seeds, errs, fmt.Errorf("seeds from inputs: stopped before input %d of %d: %w", i+1, len(inputs), cerr)
		}
		choices, err := inputChoices(ctx, gen, p, in)
		if err != nil {
			if ctx.Err() != nil {
				// Not the input's fault: it gets no error of its own.
				return seeds, errs, fmt.Errorf("seeds from inputs: stopped in input %d of %d: %w", i+1, len(inputs), err)
			}
			errs = append(errs, &InputError{Index: i, Err: err})
			continue
		}
		seeds = append(seeds, choices)
	}
	return seeds, errs, nil
}

// inputChoices derives an input's decisions from its parse, or, where
// that tree does not fit the generator's bounds, from another tree of
// the input, or else exactly, whatever the bounds, from the parser's
// tree (or, if its text cannot be derived, another's). The parses stop
// when ctx is done, and the error then wraps ctx.Err().
func inputChoices(ctx context.Context, gen *synth.Generator, p *grammar.Parser, in []byte) ([]int, error) {
	tree, err := p.ParseContext(ctx, in, grammar.ParseOptions{})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err // stopped, which says nothing of the input
		}
		return nil, fmt.Errorf("does not parse: %w", err)
	}
	choices, err := gen.ChoicesOf(tree)
	if err == nil {
		return choices, nil
	}
	trees := []*grammar.Tree{tree}
	all, perr := gen.G.ParseAllContext(ctx, in, grammar.ParseOptions{Trees: grammar.DefaultTreeLimit})
	if perr != nil && ctx.Err() != nil {
		return nil, perr
	}
	if perr == nil && len(all) > 1 {
		// Otherwise the deterministic parser's tree is the input's only one.
		for _, t := range all {
			if choices, err := gen.ChoicesOf(t); err == nil {
				return choices, nil
			}
		}
		trees = append(trees, all...)
	}
	var exactErr error
	for _, t := range trees {
		if choices, exactErr = gen.ExactChoicesOf(t); exactErr == nil {
			return choices, nil
		}
	}
	if len(trees) > 1 {
		return nil, fmt.Errorf("cannot be derived: %w (nor can any other of its first %d parse trees)", exactErr, len(trees)-1)
	}
	return nil, fmt.Errorf("cannot be derived: %w", exactErr)
}
