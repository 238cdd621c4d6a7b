package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

type generateFlags struct {
	outputFormat
	mode, closeOff, out string
	k, n, maxDepth      int
	maxRepeat           int
	seed                uint64
	absence, choices    bool
	force               bool
}

func newGenerateCmd() *cobra.Command {
	var f generateFlags
	cmd := &cobra.Command{
		Use:   "generate GRAMMAR",
		Short: "Generate inputs: random, shortest, k-path covering or forestation",
		Long: `generate produces inputs from a grammar. Every decision is seeded: the same
--seed gives the same inputs.

Modes:
  random    depth-bounded random expansion (--max-depth rule expansions,
            unbounded repetitions up to --max-repeat); regexes draw random
            strings of their language
  shortest  fewest expansions (ties broken at random)
  kpath     a k-path covering set: every k-path of the grammar in at least
            one input; as many inputs as that takes (-n is ignored)
  forest    -n inputs, each grown towards one k-path drawn at random; the
            prefixes of the sequence span the range of k-path coverage

kpath and forest fill what lies off the targeted path with --close-off
random (depth-bounded) or shortest. --absence makes the absence of each
optional part (x?, x*) a target too.

--out DIR writes one file per input (created if needed; a folder that
already holds files is refused, since two corpora would mix, unless
--force); --out - writes JSON Lines {"input":"..."} to standard output,
or {"bytes":"<base64>"} for an input that is not UTF-8, so that every
byte comes through. --choices adds each input's
recorded choice sequence (to DIR/choices.jsonl, or to each JSON line).
For kpath a summary with the k-path coverage goes to standard error.

` + formatHelp,
		Example: "  arbor generate json --mode random -n 1000 --seed 1 --out corpus/\n  arbor generate url --mode kpath --k 3 --out -\n" +
			"  arbor generate json --mode kpath --k 2 --format gofuzz --fuzz-target FuzzDecode --out ./decoder",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGenerate(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "mode", "random", "random, shortest, kpath or forest")
	fl.IntVar(&f.k, "k", 2, "path length `K` for kpath and forest")
	fl.IntVarP(&f.n, "n", "n", 10, "number of inputs (random, shortest, forest)")
	fl.Uint64Var(&f.seed, "seed", 1, "random `seed`")
	fl.StringVar(&f.out, "out", "-", "output folder, or - for JSON Lines on standard output")
	fl.IntVar(&f.maxDepth, "max-depth", synth.DefaultMaxDepth, "depth bound of random expansion, in rule expansions")
	fl.IntVar(&f.maxRepeat, "max-repeat", synth.DefaultMaxRepeat, "most repetitions of an unbounded quantifier")
	fl.StringVar(&f.closeOff, "close-off", "random", "kpath and forest: fill the rest with random or shortest expansion")
	fl.BoolVar(&f.absence, "absence", false, "kpath and forest: make the absence of optional parts a target")
	fl.BoolVar(&f.choices, "choices", false, "also write each input's choice sequence")
	fl.BoolVar(&f.force, "force", false, "write into an --out folder that already holds files")
	f.outputFormat.register(fl)
	return cmd
}

func runGenerate(cmd *cobra.Command, grammarArg string, f generateFlags) error {
	switch {
	case f.mode != "random" && f.mode != "shortest" && f.mode != "kpath" && f.mode != "forest":
		return usageError{fmt.Errorf("--mode must be random, shortest, kpath or forest, not %q", f.mode)}
	case f.closeOff != "random" && f.closeOff != "shortest":
		return usageError{fmt.Errorf("--close-off must be random or shortest, not %q", f.closeOff)}
	case f.n < 0:
		return usageError{fmt.Errorf("-n must not be negative")}
	case f.maxDepth < 1 || f.maxRepeat < 0:
		return usageError{fmt.Errorf("--max-depth must be at least 1 and --max-repeat not negative")}
	}
	if err := checkK("--k", f.k); err != nil {
		return err
	}
	if err := f.outputFormat.check(); err != nil {
		return err
	}
	if f.gofuzz() && f.out == "-" {
		return usageError{errors.New("--format gofuzz writes files: give --out the Go package's folder")}
	}
	if f.out != "-" && !f.force && !f.gofuzz() {
		if entries, err := os.ReadDir(f.out); err == nil && len(entries) > 0 {
			return usageError{fmt.Errorf("--out %s already holds %d files: generating into it would mix two corpora; give a new or empty folder, or --force", f.out, len(entries))}
		}
	}
	g, err := datasets.LoadGrammar(grammarArg)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	opts := synth.CoverOptions{K: f.k, Seed: f.seed, MaxDepth: f.maxDepth, MaxRepeat: f.maxRepeat}
	if f.closeOff == "shortest" {
		opts.CloseOff = synth.ShortestPolicy
	}
	target := g
	if f.absence {
		if target, err = synth.WithAbsence(g.Source); err != nil {
			return fmt.Errorf("rewrite for absence: %w", err)
		}
	}
	start := time.Now()
	stdout := cmd.OutOrStdout()
	var inputs []synth.Input
	switch f.mode {
	case "random", "shortest":
		// Random and shortest inputs are written as they are generated:
		// no tree outlives its writing, so memory does not grow with -n.
		sink, err := newInputSink(stdout, f, grammarArg, f.n)
		if err != nil {
			return err
		}
		if err := sink.close(generateStream(ctx, g, f, sink)); err != nil {
			return err
		}
		if f.gofuzz() {
			fmt.Fprintf(cmd.ErrOrStderr(), "%d inputs in %s\n", f.n, f.inputDir(f.out))
		}
		return nil
	case "kpath":
		res, err := synth.Cover(ctx, target, opts)
		if err != nil {
			return err
		}
		inputs = res.Inputs
	case "forest":
		if inputs, err = synth.Forest(ctx, target, f.n, opts); err != nil {
			return err
		}
	}
	elapsed := time.Since(start)
	sink, err := newInputSink(stdout, f, grammarArg, len(inputs))
	if err != nil {
		return err
	}
	for i, in := range inputs {
		if err := sink.write(i, in.Text, in.Choices); err != nil {
			return sink.close(err)
		}
	}
	if err := sink.close(nil); err != nil {
		return err
	}
	if f.gofuzz() {
		fmt.Fprintf(cmd.ErrOrStderr(), "%d inputs in %s\n", len(inputs), f.inputDir(f.out))
	}
	return reportSetCoverage(cmd.ErrOrStderr(), g, f, inputs, elapsed)
}

// generateStream generates f.n random or shortest inputs into sink, one
// at a time. Choices are recorded only when they are written (--choices):
// the recorder passes every decision on unchanged, so the inputs are the
// same either way.
func generateStream(ctx context.Context, g *grammar.Graph, f generateFlags, sink *inputSink) error {
	policy := synth.RandomPolicy
	if f.mode == "shortest" {
		policy = synth.ShortestPolicy
	}
	var chooser synth.Chooser = synth.NewRandom(f.seed)
	var rec *synth.Recorder
	if f.choices {
		rec = &synth.Recorder{C: chooser}
		chooser = rec
	}
	// Each tree is written before the next is made: one tree's memory.
	gen := &synth.Generator{G: g, Chooser: chooser, Policy: policy, MaxDepth: f.maxDepth, MaxRepeat: f.maxRepeat, Reuse: true}
	var choices []int
	for i := 0; i < f.n; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if rec != nil {
			// The choices are written before the next input: the slice
			// can be reused.
			rec.Choices = rec.Choices[:0]
		}
		text := gen.Generate().String()
		if rec != nil {
			choices = rec.Choices
		}
		if err := sink.write(i, text, choices); err != nil {
			return err
		}
	}
	return nil
}

// reportSetCoverage prints the k-path coverage of the generated set,
// measured by features on the inputs' derivation trees rather than taken
// from the generator's agenda. With --absence the trees belong to the
// rewritten grammar, so the inputs are parsed back with the original one.
func reportSetCoverage(w io.Writer, g *grammar.Graph, f generateFlags, inputs []synth.Input, elapsed time.Duration) error {
	cov := features.NewCoverage(g, f.k)
	bytes := 0
	for _, in := range inputs {
		bytes += len(in.Text)
		if !f.absence {
			cov.Add(in.Tree)
			continue
		}
		trees, err := g.ParseAll([]byte(in.Text), grammar.DefaultTreeLimit)
		if err != nil {
			return fmt.Errorf("generated input %q does not parse: %w", in.Text, err)
		}
		cov.Add(trees...)
	}
	fmt.Fprintf(w, "%s: %d inputs (mean %.1f bytes) in %v; %d-path coverage %.4f (%d of %v)\n",
		f.mode, len(inputs), float64(bytes)/float64(max(1, len(inputs))), elapsed.Round(time.Microsecond),
		f.k, cov.Fraction(f.k), cov.Covered(f.k), cov.Total(f.k))
	return nil
}

var extensions = map[string]string{"json": ".json", "xml": ".xml", "csv": ".csv", "ini": ".ini", "url": ".url", "expr": ".expr"}

// extensionOf is the file extension of inputs of a grammar: the format's
// own for the bundled grammars that have one, else .txt.
func extensionOf(grammarName string) string {
	if ext := extensions[grammarName]; ext != "" {
		return ext
	}
	return ".txt"
}

// inputName names input i (from 0) of n written to a folder, the same way
// in every command that writes inputs: 00001.json, 00002.json, ..., wider
// when n needs it, so that names sort in order.
func inputName(i, n int, ext string) string {
	return fmt.Sprintf("%0*d%s", max(len(fmt.Sprint(n)), 5), i+1, ext)
}

// inputSink writes generated inputs as they come: as JSON Lines through
// one buffer, or one file each (and a line of choices.jsonl with
// --choices) into the output folder.
type inputSink struct {
	f    generateFlags
	n    int // inputs in all, for the width of file names
	ext  string
	dir  string
	out  *bufio.Writer // JSON Lines, or choices.jsonl
	enc  *json.Encoder // on out
	side *os.File      // choices.jsonl
}

func newInputSink(stdout io.Writer, f generateFlags, grammarArg string, n int) (*inputSink, error) {
	s := &inputSink{f: f, n: n, ext: extensionOf(grammarArg)}
	if f.out == "-" {
		s.out = newOut(stdout)
		s.enc = json.NewEncoder(s.out)
		s.enc.SetEscapeHTML(false)
		return s, nil
	}
	s.dir = f.inputDir(f.out)
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	if f.choices {
		mf, err := f.openSide(f.sideFile(f.out, "choices.jsonl"))
		if err != nil {
			return nil, err
		}
		s.side, s.out = mf, newOut(mf)
		s.enc = json.NewEncoder(s.out)
	}
	return s, nil
}

// write writes input i: its text, and its choices with --choices.
func (s *inputSink) write(i int, text string, choices []int) error {
	if s.f.out == "-" {
		// JSON strings hold UTF-8 only: other bytes would come out as
		// U+FFFD, so such an input goes as base64 under "bytes".
		rec := struct {
			Input   *string `json:"input,omitempty"`
			Bytes   []byte  `json:"bytes,omitempty"`
			Choices []int   `json:"choices,omitempty"`
		}{}
		if utf8.ValidString(text) {
			rec.Input = &text
		} else {
			rec.Bytes = []byte(text)
		}
		if s.f.choices {
			rec.Choices = choices
		}
		return s.enc.Encode(rec)
	}
	name, err := s.f.write(s.dir, inputName(i, s.n, s.ext), []byte(text))
	if err != nil {
		return err
	}
	if s.enc != nil {
		return s.enc.Encode(struct {
			File    string `json:"file"`
			Choices []int  `json:"choices"`
		}{name, choices})
	}
	return nil
}

// close flushes what was written, whatever err is (Ctrl-C keeps the
// inputs finished), and returns err or else the first error of writing.
func (s *inputSink) close(err error) error {
	if s.out != nil {
		err = flushed(s.out, err)
	}
	if s.side != nil {
		if cerr := s.side.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}
