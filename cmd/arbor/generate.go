package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
Every mode writes each input as soon as it is made, so memory does not
grow with -n. With --out DIR, a line on standard error says how many
inputs went where, from which seed; for kpath and forest a summary with
the k-path coverage of the set follows it (with --out - too).

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
	stdout := cmd.OutOrStdout()
	if f.mode == "kpath" || f.mode == "forest" {
		return generateSet(ctx, stdout, cmd.ErrOrStderr(), g, target, grammarArg, f, opts)
	}
	// Random and shortest inputs are written as they are generated: no
	// tree outlives its writing, so memory does not grow with -n.
	sink, err := newInputSink(stdout, f, grammarArg, f.n)
	if err != nil {
		return err
	}
	if err := sink.close(generateStream(ctx, g, f, sink)); err != nil {
		return err
	}
	f.summarizeFiles(cmd.ErrOrStderr(), f.n)
	return nil
}

// summarizeFiles says on stderr, when the inputs went to files, how many
// went where and from which seed, so that --out DIR does not finish
// silently; with --out - the data on stdout says it.
func (f generateFlags) summarizeFiles(w io.Writer, count int) {
	if f.out == "-" {
		return
	}
	fmt.Fprintf(w, "%d inputs in %s (seed %d)", count, f.inputDir(f.out), f.seed)
	if f.choices {
		fmt.Fprintf(w, "; their choices in %s", f.sideFile(f.out, "choices.jsonl"))
	}
	fmt.Fprintln(w)
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
			return fmt.Errorf("generate: stopped after %d of %d inputs (those are written): %w", i, f.n, err)
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

// generateSet generates a k-path covering set (kpath) or a forest into
// the output as the inputs are made: each tree is written and its memory
// goes to the next (synth.CoverOptions.Reuse), so a forest's memory does
// not grow with -n and a covering set's is that of its agenda. The output
// is what generating the whole set first and then writing it gave, byte
// for byte.
//
// The summary on stderr measures the set's k-paths in g by features on
// derivation trees, not by the generator's agenda: a covering set of g
// comes with those of its trees (synth.CoverResult.Paths); a forest's
// are taken here, and with --absence, where the trees are of target (g
// rewritten), those of the inputs parsed back with g.
func generateSet(ctx context.Context, stdout, stderr io.Writer, g, target *grammar.Graph, grammarArg string, f generateFlags, opts synth.CoverOptions) error {
	// A covering set's size is known only at its end: its files get the
	// names of the narrowest width and are renamed at the end if it
	// needed a wider one.
	n := f.n
	if f.mode == "kpath" {
		n = unknownCount
	}
	// The sink is opened at the first input, or at the end if there is
	// none, so that a grammar refused by the generator leaves no output
	// folder behind, as when the set was written only once complete.
	var sink *inputSink
	open := func() error {
		var err error
		if sink == nil {
			sink, err = newInputSink(stdout, f, grammarArg, n)
		}
		return err
	}
	own := f.mode == "forest" || f.absence
	var cov *features.Coverage
	if own {
		cov = features.NewCoverage(g, f.k)
	}
	// Once every k-path is covered the summary cannot change, so the
	// k-paths of later inputs are not taken: a forest covers all long
	// before its end, and their walk costs as much as the generation.
	full := false
	measure := func(in synth.Input) error {
		trees := []*grammar.Tree{in.Tree}
		if f.absence {
			// Parsed back even once the coverage is full: every input
			// of the rewritten grammar must be one of g.
			var err error
			if trees, err = g.ParseAllContext(ctx, []byte(in.Text), grammar.ParseOptions{Trees: grammar.DefaultTreeLimit}); err != nil {
				if ctx.Err() != nil {
					return err
				}
				return fmt.Errorf("generated input %q does not parse: %w", in.Text, err)
			}
		}
		if !full {
			cov.Add(trees...)
			total := cov.Total(f.k)
			full = total.IsInt64() && int64(cov.Covered(f.k)) == total.Int64()
		}
		return nil
	}
	count, bytes := 0, 0
	// The summary's time is the generator's, as it was when the set was
	// made before it was written: writing and measuring are taken out.
	var outside time.Duration
	emit := func(in synth.Input) error {
		begin := time.Now()
		defer func() { outside += time.Since(begin) }()
		if err := open(); err != nil {
			return err
		}
		if err := sink.write(count, in.Text, in.Choices); err != nil {
			return err
		}
		count++
		bytes += len(in.Text)
		if own {
			return measure(in)
		}
		return nil
	}
	opts.Reuse, opts.NoChoices = true, !f.choices
	start := time.Now()
	var err error
	if f.mode == "kpath" {
		var res *synth.CoverResult
		if res, err = synth.CoverFunc(ctx, target, opts, emit); err == nil && !own {
			cov = res.Paths
		}
	} else {
		err = synth.ForestFunc(ctx, target, f.n, opts, emit)
	}
	elapsed := time.Since(start) - outside
	if sink == nil {
		if err != nil {
			return err
		}
		if err := open(); err != nil {
			return err
		}
	}
	if err := sink.close(err); err != nil {
		return err
	}
	f.summarizeFiles(stderr, count)
	fmt.Fprintf(stderr, "%s: %d inputs (mean %.1f bytes) in %v; %d-path coverage %.4f (%d of %v)\n",
		f.mode, count, float64(bytes)/float64(max(1, count)), elapsed.Round(time.Microsecond),
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
	return paddedName(i, n, minNameWidth, ext)
}

// minNameWidth is the fewest digits of an input's file name.
const minNameWidth = 5

// paddedName is inputName with at least width digits.
func paddedName(i, n, width int, ext string) string {
	return fmt.Sprintf("%0*d%s", max(len(fmt.Sprint(n)), width), i+1, ext)
}

// inputSink writes generated inputs as they come: as JSON Lines through
// one buffer, or one file each (and a line of choices.jsonl with
// --choices) into the output folder.
type inputSink struct {
	f       generateFlags
	n       int // inputs in all, for the width of file names, or unknownCount
	written int // inputs written
	ext     string
	dir     string
	out     *bufio.Writer // JSON Lines, or choices.jsonl
	enc     *json.Encoder // on out
	side    *os.File      // choices.jsonl
	// width is the fewest digits of a file name: minNameWidth, or fewer
	// in a test of the renaming that a set of unknown size may need.
	width int
}

// unknownCount is an inputSink's n when the number of inputs is known
// only once they are all written (a k-path covering set).
const unknownCount = -1

func newInputSink(stdout io.Writer, f generateFlags, grammarArg string, n int) (*inputSink, error) {
	s := &inputSink{f: f, n: n, ext: extensionOf(grammarArg), width: minNameWidth}
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
	s.written = max(s.written, i+1)
	if len(choices) == 0 {
		// A generator that reuses its recorder's slice hands over an
		// empty one where a fresh recorder had none: both are written
		// as a fresh recorder's (null in choices.jsonl).
		choices = nil
	}
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
	n := s.n
	if n == unknownCount {
		// The narrowest name for now; close renames the file if the
		// count turns out to need a wider one.
		n = i + 1
	}
	name, err := s.f.write(s.dir, paddedName(i, n, s.width, s.ext), []byte(text))
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
	if s.n == unknownCount && s.dir != "" && !s.f.gofuzz() {
		// Also after an error: the files written are then named as
		// those of a set of their number.
		if rerr := s.settleNames(); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// settleNames gives the files of a set whose size was unknown while it
// was written the names inputName gives them for its final size, and
// rewrites choices.jsonl to match. Names are at least 5 digits wide, so
// only a set of 100,000 inputs or more has files to rename: those written
// under a narrower name than the count needs. No new name is an old one
// (each new name that differs is wider than the minimum with a leading
// zero, which no old name has), so the renames cannot collide.
func (s *inputSink) settleNames() error {
	first := func(i int) string { return paddedName(i, i+1, s.width, s.ext) }
	final := func(i int) string { return paddedName(i, s.written, s.width, s.ext) }
	if s.written == 0 || first(0) == final(0) {
		return nil
	}
	for i := 0; i < s.written && first(i) != final(i); i++ {
		if err := os.Rename(filepath.Join(s.dir, first(i)), filepath.Join(s.dir, final(i))); err != nil {
			return fmt.Errorf("rename input: %w", err)
		}
	}
	if s.side == nil {
		return nil
	}
	return rewriteChoices(s.side.Name(), final)
}

// rewriteChoices rewrites choices.jsonl at path with line i's file named
// name(i), through a temporary file renamed over it.
func rewriteChoices(path string, name func(i int) string) (err error) {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".choices-*.jsonl")
	if err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 64<<10)
	enc := json.NewEncoder(w) // as newInputSink's, so that the lines stay byte for byte
	r := bufio.NewReaderSize(in, 64<<10)
	for i := 0; ; i++ {
		line, rerr := r.ReadBytes('\n')
		if len(line) > 0 {
			var rec struct {
				File    string `json:"file"`
				Choices []int  `json:"choices"`
			}
			if err := json.Unmarshal(line, &rec); err != nil {
				return fmt.Errorf("choices line %d: %w", i+1, err)
			}
			rec.File = name(i)
			if err := enc.Encode(rec); err != nil {
				return fmt.Errorf("choices: %w", err)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("choices: %w", rerr)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	return nil
}
