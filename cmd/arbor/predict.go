package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/datasets"
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
		q, err := p.Clone()
		if err != nil {
			return 0, err
		}
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

func loadPredictor(modelPath, grammarArg string) (*learn.Predictor, error) {
	m, err := learn.LoadModel(modelPath)
	if err != nil {
		return nil, err
	}
	var g *grammar.Graph
	if grammarArg != "" {
		if g, err = datasets.LoadGrammar(grammarArg); err != nil {
			return nil, err
		}
	}
	return learn.NewPredictor(m, g)
}

func newPredictCmd(stdin io.Reader) *cobra.Command {
	var modelPath, function, grammarArg string
	var asJSON, all, why bool
	cmd := &cobra.Command{
		Use:   "predict --model M FILE...",
		Short: "Predict which functions inputs run, without running the program",
		Long: `predict parses each FILE ('-' for standard input) with the model's grammar,
extracts its features, and evaluates every function's tree. It prints the
functions predicted to run, each with the purity of the leaf reached (the
share of the training rows there of the predicted class); --all also
lists the functions predicted not to run; --function F asks about one.
An input outside the language gets an error line; the others are still
predicted. --grammar checks that the model was trained on that grammar.
--why adds the tests on each tree's path to its leaf, as readable
patterns ("has ...", "not ...").

--json prints one object per input and line:
{"file":...,"predictions":[{"function":...,"covered":true,"purity":0.98,"leaf":3},...]}
(with --why, each prediction has "why":["has ...","not ..."]).`,
		Example: "  arbor predict --model json.model.gz input.json\n  arbor predict --model json.model.gz --function 'encoding/json.(*decodeState).object' corpus/*",
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if modelPath == "" {
				return usageError{errors.New("--model is required")}
			}
			p, err := loadPredictor(modelPath, grammarArg)
			if err != nil {
				return err
			}
			p.Reasons = why
			if function != "" {
				if _, err := p.Model.Function(function); err != nil {
					return err
				}
			}
			errOut := cmd.ErrOrStderr()
			in := stdin
			if slices.Contains(args, "-") {
				// Read first, and given to the predictions as read: a
				// read of standard input can wait for ever (a terminal,
				// a pipe whose writer neither writes nor closes), and
				// Ctrl-C must end it.
				data, err := readContext(contextOf(cmd), func() ([]byte, error) { return io.ReadAll(stdin) })
				if err != nil {
					return fmt.Errorf("read standard input: %w", err)
				}
				in = bytes.NewReader(data)
			}
			failed, err := predictFiles(contextOf(cmd), p, args, predictOptions{function: function, all: all, asJSON: asJSON,
				stdin: in, stdout: cmd.OutOrStdout(), errs: errOut})
			if err != nil {
				return err
			}
			if failed > 0 {
				fmt.Fprintf(errOut, "%d of %d inputs could not be predicted\n", failed, len(args))
				return errReported
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&modelPath, "model", "", "model file from 'arbor train'")
	cmd.Flags().StringVar(&function, "function", "", "predict only this `function`")
	cmd.Flags().StringVar(&grammarArg, "grammar", "", "refuse the model unless it was trained on this grammar")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON, one line per input")
	cmd.Flags().BoolVar(&all, "all", false, "also list the functions predicted not to run")
	cmd.Flags().BoolVar(&why, "why", false, "show the tests that led to each prediction")
	return cmd
}

func readInput(file string, stdin io.Reader) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(stdin)
	}
	b, err := corpus.Read(file)
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	return b, nil
}

func printPredictions(w io.Writer, file string, preds []learn.Prediction, function string, all, asJSON bool) {
	var keep []learn.Prediction
	for _, p := range preds {
		if function != "" && p.Function != function || function == "" && !all && !p.Covered {
			continue
		}
		keep = append(keep, p)
	}
	if asJSON {
		if keep == nil {
			keep = []learn.Prediction{}
		}
		json.NewEncoder(w).Encode(struct {
			File        string             `json:"file"`
			Predictions []learn.Prediction `json:"predictions"`
		}{file, keep})
		return
	}
	fmt.Fprintf(w, "== %s: %d functions predicted to run\n", file, countCovered(preds))
	for _, p := range keep {
		verdict := "runs   "
		if !p.Covered {
			verdict = "skipped"
		}
		fmt.Fprintf(w, "%s  %.2f  %s\n", verdict, p.Purity, p.Function)
		for _, why := range p.Why {
			fmt.Fprintf(w, "                 %s\n", why)
		}
	}
}

func countCovered(preds []learn.Prediction) int {
	n := 0
	for _, p := range preds {
		if p.Covered {
			n++
		}
	}
	return n
}
