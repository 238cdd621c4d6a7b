package fuzz

import (
	"context"
	"math/rand/v2"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// A worker realizes a campaign's sequences into inputs, makes them
// satisfy the constraints and runs them on its runner. Everything it
// touches is its own but the stream numbering, which is shared and
// locked; the campaign keeps the corpus and the domains.
type worker struct {
	g      *grammar.Graph
	bounds Bounds
	ids    *streams
	runner coverage.Runner
	real   *realizer
	cons   *synth.Admitter // with Options.Constraints
	r      *rand.Rand
}

func newWorker(g *grammar.Graph, runner coverage.Runner, opts Options, ids *streams, r *rand.Rand, seed uint64) *worker {
	w := &worker{g: g, bounds: opts.Bounds, ids: ids, runner: runner, real: newRealizer(g, opts.Bounds, ids), r: r}
	if opts.Constraints.Len() > 0 {
		bounds := synth.NewGenerator(g, nil, synth.RandomPolicy)
		opts.Bounds.configure(bounds)
		w.cons = synth.NewAdmitter(opts.Constraints, seed, bounds)
	}
	return w
}

// An outcome is what a worker made of a job: the input it ran and the
// run's result or error, or that the input was dropped unrun; and what
// the constraint search did.
type outcome struct {
	job
	d                         *derivation
	r                         *coverage.Result
	err                       error
	repaired, broken, dropped bool
}

// execute realizes j's sequence, makes the input satisfy the
// constraints (a fresh input too large to mend is drawn again smaller,
// one that cannot be repaired is dropped) and runs it.
func (w *worker) execute(ctx context.Context, j job) outcome {
	o := outcome{job: j}
	d := w.real.realize(j.seq)
	if w.cons != nil {
		if len(j.seq.streams) == 0 && !j.seq.seed {
			d = w.fresh(d)
		}
		if d = w.admit(ctx, d, &o); d == nil {
			return o
		}
	}
	o.d = d
	o.r, o.err = w.runner.Run(ctx, d.text)
	return o
}

// seqOf is seqOf with the worker's random source.
func (w *worker) seqOf(choices []int) *sequence {
	return seqOf(w.g, w.bounds, w.ids, w.r.Uint64(), choices)
}
