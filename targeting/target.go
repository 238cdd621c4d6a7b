package targeting

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/arbor-fuzz/arbor/corpus"
)

// TargetOptions shape Target and Rare: each function's loop, and where
// and how the inputs it keeps are written.
type TargetOptions struct {
	Pursue PursueOptions
	Layout corpus.Layout // the extension of raw files is the model grammar's
	Out    string        // the output folder
	// Pursued, if set, is called by Rare after each function's loop,
	// with the function's index, the number of functions and its
	// summary.
	Pursued func(i, n int, s Summary)
}

// Target pursues one function (Pursue) and writes the inputs the loop
// kept into opts.Out, with their manifest (WritePursuit), those of a
// loop stopped by an error too. A function the model has no tree for is
// an error, unless it is one of the recorded functions no training
// input ran (Functions), whose base rate is 0.
func (l *Loop) Target(ctx context.Context, function string, opts TargetOptions) (Summary, error) {
	m := l.p.Model
	rate := 0.0
	if fn, err := m.Function(function); err == nil {
		rate = BaseRate(m, fn)
	} else if !slices.Contains(l.Functions(), function) {
		return Summary{}, err
	}
	pr, err := l.Pursue(ctx, function, opts.Pursue)
	if pr != nil {
		if werr := WritePursuit(opts.Layout, opts.Out, pr); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return Summary{}, err
	}
	return Summarize(pr, rate, opts.Layout.InputDir(opts.Out)), nil
}

// A RareFunction is a function Rare pursues.
type RareFunction struct {
	Name     string
	BaseRate float64 // BaseRate's
	Never    bool    // no training input ran it
}

// RareFunctions are the functions of the loop's model whose base rate is
// below below, rarest first and then by name, followed by the recorded
// functions no training input ran (Functions), which the model has no
// tree for.
func (l *Loop) RareFunctions(below float64) []RareFunction {
	m := l.p.Model
	var rare []RareFunction
	for i := range m.Functions {
		if r := BaseRate(m, &m.Functions[i]); r < below {
			rare = append(rare, RareFunction{m.Functions[i].Name, r, false})
		}
	}
	slices.SortStableFunc(rare, func(a, b RareFunction) int {
		switch {
		case a.BaseRate < b.BaseRate:
			return -1
		case a.BaseRate > b.BaseRate:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, name := range l.Functions()[len(m.Functions):] {
		rare = append(rare, RareFunction{name, 0, true})
	}
	return rare
}

// Rare pursues each function in turn and returns their summaries. Each
// function's inputs go to a folder of their own under opts.Out
// (corpus.FunctionFolder), which appears whole once they are written
// (corpus.ReplaceFolder), or in Go's format all into the one seed
// corpus. After each function it calls opts.Pursued and then, but in
// Go's format, replaces opts.Out/summary.json with the summaries so far,
// so that a run stopped midway leaves a summary of the folders it made.
func (l *Loop) Rare(ctx context.Context, funcs []RareFunction, opts TargetOptions) ([]Summary, error) {
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	var sums []Summary
	for i, f := range funcs {
		dir := filepath.Join(opts.Out, corpus.FunctionFolder(i, f.Name))
		if opts.Layout.GoFuzz() {
			dir = opts.Out
		}
		pr, err := l.Pursue(ctx, f.Name, opts.Pursue)
		if pr != nil {
			if werr := writeFunction(opts.Layout, dir, pr); werr != nil && err == nil {
				err = werr
			}
		}
		if err != nil {
			return sums, err
		}
		s := Summarize(pr, f.BaseRate, opts.Layout.InputDir(dir))
		s.Never = f.Never
		sums = append(sums, s)
		if opts.Pursued != nil {
			opts.Pursued(i, len(funcs), s)
		}
		if opts.Layout.GoFuzz() {
			continue
		}
		if err := corpus.WriteJSON(filepath.Join(opts.Out, "summary.json"), sums); err != nil {
			return sums, err
		}
	}
	return sums, nil
}

// writeFunction writes a function's inputs and manifest for Rare into
// dir, at once (corpus.ReplaceFolder), or in Go's format into the seed
// corpus.
func writeFunction(l corpus.Layout, dir string, pr *Pursuit) error {
	if l.GoFuzz() {
		return WritePursuit(l, dir, pr)
	}
	return corpus.ReplaceFolder(dir, func(tmp string) error { return WritePursuit(l, tmp, pr) })
}
