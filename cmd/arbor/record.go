package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/learn"
)

type recordFlags struct {
	subjectFlags
	memoryFlag
	constraints                  constraintsFlag
	inputs, out, shard, cacheDir string
	isolate, wait, showOutput    bool
	asJSON                       bool
	timeout                      time.Duration
}

func newRecordCmd() *cobra.Command {
	var f recordFlags
	cmd := &cobra.Command{
		Use:   "record (--subject NAME | --go IMPORTPATH.Func | --c SOURCES | --java pkg.Class.method | --python module:function | --cmd LINE --report FORMAT) --inputs DIR --out cov.jsonl",
		Short: "Record which functions of a program (Go, C, Java, Python or any command) each input makes run",
		Long: `record runs a program under test on every input below --inputs and appends
one line per input to the coverage file --out: the functions that ran, how
often their entry block ran, the outcome (ok, error, panic, timeout), the
error or panic text, a hash of the panicking frames, and the time taken.

The program is a bundled subject (--subject, see 'arbor subjects') or any
Go function func([]byte) error or func([]byte) (--go importpath.Func, run
from a directory of a module that can import it; --coverpkg chooses the
packages to record, by default the function's package and those it
depends on, as its help says; --dir names the
module directory if it is not the current one). arbor builds a
harness around it once with coverage instrumentation and caches it.
Or it is a function of another language that arbor's harness for it
runs in-process, built once and cached too: C sources defining the
libFuzzer entry point (--c), a static Java method (--java, recorded by
JaCoCo) or a Python function (--python, recorded by coverage.py); see
docs/languages.md.
Or it is any program, given as a command line (--cmd; {} is the input's
file, else the input goes to stdin) run once per input, with the coverage
tool that --report names: arbor runs gcov itself for a program built with
gcc --coverage (--report gcov or lcov), coverage.py for a python3 command
line (--report coveragepy) and the JaCoCo agent for a java one (--report
jacoco), so the command line is just the program and its arguments; any
other command must leave the report in its run's folder ({dir},
$ARBOR_RUN_DIR). Exit status 0 is ok, a nonzero one a rejection
(or, with --reject, only the statuses listed), a signal or --crash on
stderr a crash (docs/recording.md).

By default one process runs all inputs, 10,000 at a time (at most 64 MB
of them: memory stays bounded however large the corpus), each batch after
a warm-up pass over it, so that work a process does only once (type
caches) does not show in the first input's record. --isolate runs each input in a process of its
own, warmed up with the same input: exact labels and crash isolation, a
few milliseconds per input.

Recording is resumable: inputs already in --out (by sha256) are skipped,
and a line cut off by a killed run is dropped. --shard i/n records only
the inputs of shard i of n; 'arbor record merge' combines shard files.
One recording at a time writes a coverage file: a second one on the same
--out fails at once, naming the process that holds it, or, with --wait,
waits for it. To record shards in parallel, give each its own --out and
merge them.

The harness speaks to arbor over pipes of its own, so whatever the
program reads from stdin (nothing) or writes to stdout and stderr cannot
disturb the recording. That output is counted and dropped (stderr's
last 64 KB describe crashes); --show-output copies it to arbor's stderr
line by line, each line prefixed with "stdout| " or "stderr| ". An
input that makes the program allocate more than --memory ends as a
panic ("out of memory"): the limit is on the harness process's data
(enforced on Linux); 0 means none. A harness also ends when arbor does,
however arbor ends.

The inputs' grammar, a bundled subject's or the one --grammar names, may
have constraints (where clauses, docs/notation.md). Then the summary
also counts the inputs below --inputs that the file holds which break a
constraint, crossed with the outcome: inputs that break one and were
accepted say the constraints are stricter than the program, inputs that
keep them all and were rejected that the program checks more. An input
that does not parse is counted as such; the coverage file is the same
either way. --constraints off leaves the count out.`,
		Example: "  arbor record --subject json --inputs corpus/ --out cov.jsonl\n  arbor record --go encoding/json.Valid --inputs corpus/ --out valid.jsonl --isolate",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRecord(cmd, f)
		},
	}
	fl := cmd.Flags()
	f.subjectFlags.register(fl, true)
	fl.Lookup("grammar").Usage = "grammar of the inputs, whose constraints the summary counts the inputs against (default: a bundled subject's)"
	f.constraints.register(fl, "the summary counts the recorded inputs that break a constraint, by outcome")
	fl.StringVar(&f.inputs, "inputs", "", "folder (or file) of inputs")
	fl.StringVar(&f.out, "out", "cov.jsonl", "coverage file to append to")
	fl.BoolVar(&f.isolate, "isolate", false, "one process per input")
	fl.BoolVar(&f.wait, "wait", false, "if another recording is writing --out, wait for it instead of failing")
	fl.DurationVar(&f.timeout, "timeout", time.Second, "time limit per input")
	f.memoryFlag.register(fl)
	fl.BoolVar(&f.showOutput, "show-output", false, "copy what the program writes to stdout and stderr to arbor's stderr")
	fl.BoolVar(&f.asJSON, "json", false, "print the summary as JSON (docs/json.md), also after an interruption")
	fl.StringVar(&f.shard, "shard", "", "record only shard `i/n` of the inputs")
	fl.StringVar(&f.cacheDir, "cache", "", "folder for built harnesses (default: arbor/harness in the user's cache folder)")
	cmd.AddCommand(newRecordMergeCmd())
	return cmd
}

func runRecord(cmd *cobra.Command, f recordFlags) error {
	if err := f.check(); err != nil {
		return err
	}
	if err := f.constraints.check(); err != nil {
		return err
	}
	set, err := f.constraintSet()
	if err != nil {
		return err
	}
	errOut := cmd.ErrOrStderr()
	opts, err := f.options(errOut)
	if err != nil {
		return err
	}
	ctx := contextOf(cmd)
	files, err := corpus.List(f.inputs)
	if err != nil {
		return err
	}
	target, name, err := f.target(ctx)
	if err != nil {
		return err
	}
	opts.Subject = name
	if f.cacheDir == "" {
		f.cacheDir = coverage.DefaultCacheDir()
	}
	if target.Command == nil {
		fmt.Fprintf(errOut, "building the harness for %s ...\n", target)
	}
	bin, err := coverage.Build(ctx, target, f.cacheDir)
	if err != nil {
		return err
	}
	if f.goFunc != "" {
		fmt.Fprintf(errOut, "recording the functions of %s\n", strings.Join(bin.Target.CoverPkgs, ", "))
	}
	sum, err := coverage.RecordInputs(ctx, bin, files, f.out, opts)
	var conf *learn.Conformance
	if set != nil && err == nil {
		if conf, err = recordedConformance(ctx, set, f.out, files); err != nil && ctx.Err() == nil {
			return err
		}
	}
	var few func(int)
	if f.goFunc != "" {
		few = func(n int) { warnFewFunctions(errOut, bin.Target, n) }
	}
	return f.report(cmd, sum, conf, err, few)
}

// constraintSet is the constraints of the inputs' grammar, the one
// --grammar names or a bundled subject's: nil without one, without
// where clauses or with --constraints off.
func (f recordFlags) constraintSet() (*constraint.Set, error) {
	name := f.grammar
	if name == "" && f.subject != "" {
		b, err := datasets.LookupSubject(f.subject)
		if err != nil {
			return nil, nil // resolving the subject reports it
		}
		name = b.Grammar
	}
	if name == "" || f.constraints.off() {
		return nil, nil
	}
	g, err := datasets.LoadGrammar(name)
	if err != nil {
		return nil, err
	}
	return f.constraints.set(g)
}

// recordedConformance checks the inputs among files that the coverage
// file out holds a record of (by sha256, each once) against set, with
// the outcome recorded for each. The inputs are read again, one at a
// time, so that memory stays bounded as in the recording.
func recordedConformance(ctx context.Context, set *constraint.Set, out string, files []string) (*learn.Conformance, error) {
	cov, err := coverage.ReadFile(out)
	if err != nil {
		return nil, err
	}
	outcomes := make(map[string]coverage.Outcome, len(cov.Records))
	for _, r := range cov.Records {
		outcomes[r.SHA256] = r.Outcome
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	return learn.CheckInputs(ctx, set, len(files), func(i int) (learn.RecordedInput, bool) {
		data, err := corpus.Read(files[i])
		if err != nil {
			return learn.RecordedInput{}, false // the recording warned of it
		}
		sum := sha256.Sum256(data)
		sha := hex.EncodeToString(sum[:])
		o, ok := outcomes[sha]
		if !ok {
			return learn.RecordedInput{}, false // another shard's, or not recorded
		}
		mu.Lock()
		dup := seen[sha]
		seen[sha] = true
		mu.Unlock()
		return learn.RecordedInput{Data: data, Outcome: o}, !dup
	})
}

// options are the recording's options the flags give, with its
// warnings, the program's output if shown, and its progress where errOut
// is a terminal, all on errOut.
func (f recordFlags) options(errOut io.Writer) (coverage.Options, error) {
	if f.inputs == "" {
		return coverage.Options{}, usageError{errors.New("--inputs is required")}
	}
	if f.timeout <= 0 {
		return coverage.Options{}, usageError{errors.New("--timeout must be positive")}
	}
	run, err := f.runOptions()
	if err != nil {
		return coverage.Options{}, err
	}
	opts := coverage.Options{Timeout: f.timeout, Isolate: f.isolate, Wait: f.wait, RunOptions: run}
	if f.shard != "" {
		if opts.Shard, opts.Shards, err = parseShard(f.shard); err != nil {
			return coverage.Options{}, usageError{err}
		}
	}
	opts.Warn = func(err error) { fmt.Fprintln(errOut, "arbor:", err) }
	if f.showOutput {
		opts.Output = &lockedWriter{w: errOut}
	}
	if isTerminal(errOut) {
		last := time.Time{}
		opts.Progress = func(pass string, done, total int) {
			if time.Since(last) > 200*time.Millisecond || done == total {
				last = time.Now()
				fmt.Fprintf(errOut, "\r%s %d/%d", pass, done, total)
				if done == total {
					fmt.Fprintln(errOut)
				}
			}
		}
	}
	return opts, nil
}

// report prints a recording's summary, as text or JSON, with how its
// inputs conform to the grammar's constraints if conf is set, and
// returns the recording's error; few, if set, warns when few functions
// are recorded.
func (f recordFlags) report(cmd *cobra.Command, sum *coverage.Summary, conf *learn.Conformance, err error, few func(n int)) error {
	errOut := cmd.ErrOrStderr()
	if sum != nil && f.asJSON {
		res := recordSummary(f.out, sum)
		res.Constraints = conf
		if jerr := writeJSON(cmd.OutOrStdout(), res); jerr != nil && err == nil {
			err = jerr
		}
	} else if sum != nil {
		printSummary(cmd.OutOrStdout(), f.out, sum)
		if conf != nil {
			printConformance(cmd.OutOrStdout(), conf)
		}
		if sum.OutputBytes > 0 && !f.showOutput {
			fmt.Fprintf(errOut, "arbor: the program wrote %d bytes to stdout and stderr; --show-output shows them\n", sum.OutputBytes)
		}
		if few != nil {
			few(sum.Functions)
		}
	}
	return err
}

// fewFunctions is the number of instrumented functions under which a
// recording is unlikely to be what the user meant.
const fewFunctions = 5

// warnFewFunctions warns when a harness records so few functions that the
// packages doing the work were probably left out.
func warnFewFunctions(w io.Writer, t coverage.Target, n int) {
	if n < fewFunctions {
		noun := "functions are"
		if n == 1 {
			noun = "function is"
		}
		fmt.Fprintf(w, "arbor: warning: only %d %s instrumented (packages %s); name the packages that do the work with --coverpkg\n",
			n, noun, strings.Join(t.CoverPkgs, ", "))
	}
}

// recordResult is record's summary, as --json prints it.
type recordResult struct {
	Out         string                   `json:"out"`
	Recorded    int                      `json:"recorded"`         // inputs recorded by this run
	Skipped     int                      `json:"already_there"`    // inputs the file already held
	Duplicates  int                      `json:"duplicates"`       // inputs repeating an earlier one of this run
	OtherShard  int                      `json:"other_shards"`     // inputs left to other shards
	Unreadable  int                      `json:"unreadable"`       // input files that could not be read
	Outcomes    map[coverage.Outcome]int `json:"outcomes"`         // of the inputs recorded by this run
	SubjectUS   float64                  `json:"subject_us"`       // mean time per input in the function, microseconds
	RecordUS    float64                  `json:"record_us"`        // mean time per input recorded, microseconds
	OutputBytes int64                    `json:"output_bytes"`     // written by the program to stdout and stderr
	Inputs      int                      `json:"inputs_in_file"`   // over the whole file:
	Functions   int                      `json:"functions"`        // instrumented
	Ever        int                      `json:"functions_ever"`   // covered by some input
	Always      int                      `json:"functions_always"` // covered by every input
	Never       int                      `json:"functions_never"`  // covered by none
	// Constraints counts the inputs that break the grammar's
	// constraints, by outcome; absent without any or with --constraints off.
	Constraints *learn.Conformance `json:"constraints,omitempty"`
}

func recordSummary(out string, s *coverage.Summary) recordResult {
	outcomes := map[coverage.Outcome]int{coverage.OK: 0, coverage.Error: 0, coverage.Panic: 0, coverage.Timeout: 0}
	for o, n := range s.Outcomes {
		outcomes[o] = n
	}
	return recordResult{out, s.Recorded, s.Skipped, s.Duplicates, s.OtherShard, s.Unreadable, outcomes,
		float64(s.SubjectTime.Nanoseconds()) / 1e3, float64(s.RecordTime.Nanoseconds()) / 1e3, s.OutputBytes,
		s.Inputs, s.Functions, s.EverCovered, s.AlwaysCovered, s.NeverCovered, nil}
}

func printSummary(w io.Writer, out string, s *coverage.Summary) {
	fmt.Fprintf(w, "%s: %d inputs recorded now, %d already there", out, s.Recorded, s.Skipped)
	if s.Duplicates > 0 {
		fmt.Fprintf(w, ", %d duplicates", s.Duplicates)
	}
	if s.OtherShard > 0 {
		fmt.Fprintf(w, ", %d left to other shards", s.OtherShard)
	}
	if s.Unreadable > 0 {
		fmt.Fprintf(w, ", %d unreadable", s.Unreadable)
	}
	fmt.Fprintln(w)
	var parts []string
	for _, o := range []coverage.Outcome{coverage.OK, coverage.Error, coverage.Panic, coverage.Timeout} {
		parts = append(parts, fmt.Sprintf("%s %d", o, s.Outcomes[o]))
	}
	fmt.Fprintf(w, "outcomes: %s\n", strings.Join(parts, ", "))
	if s.Recorded > 0 {
		fmt.Fprintf(w, "time per input: subject %v, recorded run %v\n", s.SubjectTime.Round(time.Microsecond), s.RecordTime.Round(time.Microsecond))
	}
	fmt.Fprintf(w, "functions (over all %d inputs in the file): %d instrumented, %d ever covered, %d always covered, %d never covered\n",
		s.Inputs, s.Functions, s.EverCovered, s.AlwaysCovered, s.NeverCovered)
}

// printConformance prints how inputs conform to a grammar's constraints
// (record's and train's summaries): the cross-tabulation with the
// program's outcomes, the count of each clause some input breaks, each
// on one line, and what the counts say.
func printConformance(w io.Writer, c *learn.Conformance) {
	fmt.Fprintf(w, "constraints (%s, %s", plural(c.Clauses, "where clause", "where clauses"), plural(c.Inputs, "input", "inputs"))
	if c.NotParsed > 0 {
		fmt.Fprintf(w, ", %d not parsed", c.NotParsed)
	}
	fmt.Fprintf(w, "): %d break one (%d accepted, %d rejected), %d satisfy all (%d accepted, %d rejected)\n",
		c.Broken, c.BrokenAccepted, c.BrokenRejected, c.Inputs-c.NotParsed-c.Broken, c.SatisfiedAccepted, c.SatisfiedRejected)
	for _, cl := range c.ByClause {
		if cl.Broken > 0 { // JSON has every clause; text, those that matter
			fmt.Fprintf(w, "  broken by %d (%d accepted): %s: %s\n", cl.Broken, cl.Accepted, cl.Pos, strings.Join(strings.Fields(cl.Clause), " "))
		}
	}
	if c.BrokenAccepted > 0 {
		fmt.Fprintf(w, "  the program accepted %s breaking a constraint: the constraints are stricter than the program\n", plural(c.BrokenAccepted, "input", "inputs"))
	}
	if c.SatisfiedRejected > 0 {
		fmt.Fprintf(w, "  the program rejected %s satisfying every constraint: it checks more than the constraints say\n", plural(c.SatisfiedRejected, "input", "inputs"))
	}
}

func newRecordMergeCmd() *cobra.Command {
	var out string
	var wait bool
	cmd := &cobra.Command{
		Use:   "merge --out cov.jsonl FILE...",
		Short: "Merge coverage files of the same subject (such as shards)",
		Long: `merge combines coverage files recorded from the same subject and build,
such as the shards of one corpus: each input once (by sha256), sorted by
input name. Files of different subjects or builds are refused.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError{errors.New("--out is required")}
			}
			f, err := coverage.Merge(contextOf(cmd), out, args, wait)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d inputs of %s from %d files\n", out, len(f.Records), f.Subject, len(args))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "merged coverage file")
	cmd.Flags().BoolVar(&wait, "wait", false, "if a recording is writing --out, wait for it instead of failing")
	return cmd
}

// isTerminal reports whether w is a terminal (progress lines go only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// parseShard reads --shard i/n, all of it: "1/2/3" or "1/2x" are
// refused, not read as 1/2.
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, errI := strconv.Atoi(a)
	n, errN := strconv.Atoi(b)
	if !ok || errI != nil || errN != nil || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard must be i/n with 1 <= i <= n, not %q", s)
	}
	return i, n, nil
}

// parseSize reads a number of bytes such as 512MiB, 4GB, 1.5G or 1000000.
func parseSize(s string) (int64, error) {
	text := strings.TrimSpace(s)
	units := []struct {
		suffix string
		scale  float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
	}
	scale := 1.0
	for _, u := range units {
		if rest, ok := strings.CutSuffix(text, u.suffix); ok {
			text, scale = strings.TrimSpace(rest), u.scale
			break
		}
	}
	n, err := strconv.ParseFloat(text, 64)
	if err != nil || !(n >= 0 && n*scale < 1<<62) { // NaN fails every comparison
		return 0, fmt.Errorf("%q is not a size (such as 512MiB or 4GB)", s)
	}
	return int64(n * scale), nil
}

// lockedWriter serializes writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
