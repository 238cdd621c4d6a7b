package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/parallel"
	"github.com/arbor-fuzz/arbor/learn"
)

// predictOptions are predict's flags that shape what it prints.
type predictOptions struct {
	function     string
	all, asJSON  bool
	stdin        io.Reader
	stdout, errs io.Writer
}

// predicted is what predict prints for one input: its lines, or its error.
type predicted struct {
	text []byte
	err  error
}

// predictFiles predicts every file and prints the predictions in the
// order of files. The inputs are parsed and predicted on every processor,
// each with a predictor of its own (a Predictor is not safe for
// concurrent use); the lines go out through one buffer. It returns how
// many inputs could not be predicted.
func predictFiles(ctx context.Context, p *learn.Predictor, files []string, o predictOptions) (failed int, err error) {
	workers := workerCount()
	if len(files) < 2 || countOf(files, "-") > 1 {
		// Standard input twice: the first reads it all, as before.
		workers = 1
	}
	predictors := []*learn.Predictor{p}
	for len(predictors) < min(workers, len(files)) {
		q, err := learn.NewPredictor(p.Model, p.Graph)
		if err != nil {
			return 0, err
		}
		q.Reasons = p.Reasons
		predictors = append(predictors, q)
	}
	out := newOut(o.stdout)
	err = parallel.Ordered(ctx, len(files), len(predictors), func(w, i int) predicted {
		return predictOne(ctx, predictors[w], files[i], o)
	}, func(i int, r predicted) error {
		if r.err == nil {
			_, err := out.Write(r.text)
			return err
		}
		failed++
		if o.asJSON {
			json.NewEncoder(out).Encode(map[string]string{"file": files[i], "error": r.err.Error()})
		}
		// The error goes after the lines printed before it.
		if err := out.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(o.errs, r.err)
		return nil
	})
	return failed, flushed(out, err)
}

func predictOne(ctx context.Context, p *learn.Predictor, file string, o predictOptions) predicted {
	data, err := readInput(file, o.stdin)
	if err != nil {
		return predicted{err: err}
	}
	// An ambiguous input parses for up to the parse budget: Ctrl-C
	// ends it.
	preds, err := p.PredictContext(ctx, data)
	if err != nil {
		var pe *grammar.ParseError
		if errors.As(err, &pe) {
			pe.Pos.Filename = file
		}
		return predicted{err: err}
	}
	var b bytes.Buffer
	printPredictions(&b, file, preds, o.function, o.all, o.asJSON)
	return predicted{text: b.Bytes()}
}

func countOf(s []string, v string) int {
	n := 0
	for i := range s {
		if s[i] == v {
			n++
		}
	}
	return n
}
