package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/bst"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

type rlcheckFlags struct {
	subjectFlags
	memoryFlag
	outputFormat
	oracleCmd, example, guide, state, out string
	trials, maxDepth                      int
	duration, timeout                     time.Duration
	seed                                  uint64
	published, asJSON                     bool
	constraints                           constraintsFlag
}

func stateKind(s string) (synth.StateKind, error) {
	switch s {
	case "parent", "tree":
		return synth.TreeState, nil
	case "window":
		return synth.WindowState, nil
	case "none":
		return synth.NoState, nil
	}
	return 0, usageError{fmt.Errorf("--state must be parent, window or none, not %q", s)}
}

func newRLCheckCmd() *cobra.Command {
	var f rlcheckFlags
	cmd := &cobra.Command{
		Use:   "rlcheck (--example bst | [--grammar G] (--subject S | --go F | ... | --cmd ... | --oracle-cmd CMD)) (--trials N | --time D)",
		Short: "Generate diverse valid inputs with a bandit guide (RLCheck)",
		Long: `rlcheck generates inputs and learns, from each input's validity, which
choices lead to new valid inputs: one tabular Monte Carlo control learner
per choice point, ε-greedy, rewards +20 for a valid input with a new
characteristic, 0 for a valid one seen before, -1 for an invalid one.

Generators: --example bst (RLCheck's binary search trees, values 0..10,
depth 4, valid when a BST), or --grammar G, whose choice points are its
alternatives, repetition counts and regex decisions. Validity: the
example's own check, a bundled --subject's outcome (ok is valid, a panic
is valid and a failure found; the characteristic is the coverage trace),
or --oracle-cmd (run with the input on stdin through sh -c; exit status 0
is valid; the characteristic is the input).

--timeout is the time limit per input, of the subject or the oracle
command. An input that runs out of it is counted as a timeout, apart from
the invalid ones (and rewarded as invalid). The oracle command runs in a
process group of its own, killed whole at the limit, on Ctrl-C and after
every input, so that nothing it starts outlives it. --memory limits the
subject's data, and the oracle command's virtual memory (ulimit -v, which
counts address space reserved and not used: a JVM or another runtime that
reserves much up front may need a higher limit, or 0 for none); an oracle
command that fails an allocation usually exits non-zero, which is invalid.

Ctrl-C (or SIGTERM) stops at once, the input in flight included: the
summary of the trials judged so far is printed and --out written, and
rlcheck exits 1.

--guide rl uses the improved settings (count-based exploration bonus and
decaying ε), --guide rl --published RLCheck's (ε = 0.25 throughout),
--guide random uniform choices. --state: the last 5 choices on the path
from the root (parent), of the whole input (window), or none. --out
writes the unique valid inputs.

--json prints {"trials":..,"valid":..,"invalid":..,"timeouts":..,"unique_valid":..,"diverse_valid":..,"failures":..,"unrepaired":..}
(trials = valid + invalid + timeouts; unrepaired: the inputs that broke
one of the grammar's constraints the search could not repair, run as
they were).

` + formatHelp,
		Example: "  arbor rlcheck --example bst --trials 100000\n  arbor rlcheck --grammar xml --subject xml --trials 3000 --out valid-xml/\n" +
			"  arbor rlcheck --subject xml --trials 3000 --format gofuzz --fuzz-target FuzzUnmarshal --out ./xmlpkg",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRLCheck(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.example, "example", "", "a built-in generator: bst")
	f.subjectFlags.register(fl, true) // the subject's outcome is the validity
	f.memoryFlag.register(fl)
	fl.StringVar(&f.oracleCmd, "oracle-cmd", "", "shell command judging the input on stdin (exit 0 = valid)")
	fl.IntVar(&f.trials, "trials", 0, "inputs to generate")
	fl.DurationVar(&f.duration, "time", 0, "or generate for this long")
	fl.DurationVar(&f.timeout, "timeout", subject.DefaultOracleTimeout, "time limit per input")
	fl.StringVar(&f.guide, "guide", "rl", "rl or random")
	fl.BoolVar(&f.published, "published", false, "with --guide rl: RLCheck's published settings")
	fl.StringVar(&f.state, "state", "parent", "state abstraction: parent, window or none")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed")
	fl.IntVar(&f.maxDepth, "max-depth", synth.DefaultMaxDepth, "depth bound of grammar generation")
	fl.StringVar(&f.out, "out", "", "folder for the unique valid inputs")
	f.constraints.register(fl, "with --grammar, every input satisfies them (repaired by local search after the guide's choices)")
	f.outputFormat.register(fl)
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	return cmd
}

// check validates the flags as usage errors, and returns the state
// abstraction and the guide they name (nil: uniformly random choices).
func (f *rlcheckFlags) check() (synth.StateKind, *synth.Guide, error) {
	st, err := stateKind(f.state)
	if err != nil {
		return 0, nil, err
	}
	if err := f.outputFormat.check(); err != nil {
		return 0, nil, err
	}
	if f.gofuzz() && f.out == "" {
		return 0, nil, usageError{errors.New("--format gofuzz writes files: give --out the Go package's folder")}
	}
	if (f.trials <= 0) == (f.duration <= 0) {
		return 0, nil, usageError{errors.New("give one of --trials and --time")}
	}
	if f.timeout <= 0 {
		return 0, nil, usageError{fmt.Errorf("--timeout must be positive, not %v", f.timeout)}
	}
	if err := f.constraints.check(); err != nil {
		return 0, nil, err
	}
	var guide *synth.Guide
	switch f.guide {
	case "rl":
		guide = synth.NewImprovedGuide(f.seed)
		if f.published {
			guide = synth.NewGuide(f.seed)
		}
	case "random":
	default:
		return 0, nil, usageError{fmt.Errorf("--guide must be rl or random, not %q", f.guide)}
	}
	return st, guide, nil
}

func runRLCheck(cmd *cobra.Command, f rlcheckFlags) error {
	st, guide, err := f.check()
	if err != nil {
		return err
	}
	bench, cleanup, err := f.benchmark(cmd, st)
	if err != nil {
		return err
	}
	defer cleanup()
	gen, unrepaired, oracle, err := bench.make(guide)
	if err != nil {
		return err
	}
	res, checkErr := synth.Check(contextOf(cmd), gen, guide, oracle, synth.CheckOptions{Trials: f.trials, Duration: f.duration, Keep: f.out != ""})
	if checkErr != nil && (res == nil || contextOf(cmd).Err() == nil) {
		return checkErr
	}
	// Interrupted: what was found is written and summed up before the
	// interruption is reported.
	if f.out != "" {
		if err := f.layout(f.grammarName()).WriteInputs(f.out, res.Unique); err != nil {
			return err
		}
	}
	broken := 0
	if unrepaired != nil {
		broken = unrepaired(res.Trials)
	}
	if err := printRLCheck(cmd.OutOrStdout(), bench.name, f, res, broken); err != nil {
		return err
	}
	return checkErr
}

// printRLCheck prints the summary of the trials, as JSON with --json.
func printRLCheck(w io.Writer, name string, f rlcheckFlags, res *synth.CheckResult, unrepaired int) error {
	if f.asJSON {
		return json.NewEncoder(w).Encode(struct {
			Trials       int `json:"trials"`
			Valid        int `json:"valid"`
			Invalid      int `json:"invalid"`
			Timeouts     int `json:"timeouts"`
			UniqueValid  int `json:"unique_valid"`
			DiverseValid int `json:"diverse_valid"`
			Failures     int `json:"failures"`
			Unrepaired   int `json:"unrepaired"`
		}{res.Trials, res.Valid, res.Invalid, res.Timeouts, res.UniqueValid, res.DiverseValid, res.Failures, unrepaired})
	}
	fmt.Fprintf(w, "%s, guide %s: %d trials in %.2fs: %d valid, %d invalid, %d timeouts, %d unique valid, %d diverse valid, %d failures\n",
		name, f.guide, res.Trials, res.Seconds, res.Valid, res.Invalid, res.Timeouts, res.UniqueValid, res.DiverseValid, res.Failures)
	if unrepaired > 0 {
		fmt.Fprintf(w, "%d inputs broke a constraint the search could not repair, and ran as they were (arbor generate names the clauses)\n", unrepaired)
	}
	for _, fl := range res.FailureList {
		fmt.Fprintf(w, "failure: %s\n", fl)
	}
	return nil
}

// grammarName is the grammar the inputs are written in: --grammar, or the
// bundled subject's.
func (f *rlcheckFlags) grammarName() string {
	if f.grammar == "" && f.subject != "" {
		if b, err := datasets.LookupSubject(f.subject); err == nil {
			return b.Grammar
		}
	}
	return f.grammar
}

// rlcheckSetup is a generator and oracle: make returns a fresh generator
// driven by the guide (nil: uniformly random choices) and, for a grammar
// with constraints, the count of its inputs that break one the search
// could not repair (nil: none can).
type rlcheckSetup struct {
	name string
	make func(guide *synth.Guide) (gen func() []byte, unrepaired func(judged int) int, oracle synth.Oracle, err error)
}

// benchmark builds the generator and oracle the flags describe.
func (f *rlcheckFlags) benchmark(cmd *cobra.Command, st synth.StateKind) (rlcheckSetup, func(), error) {
	nothing := func() {}
	switch {
	case f.example == "bst":
		return rlcheckSetup{name: "bst", make: func(guide *synth.Guide) (func() []byte, func(int) int, synth.Oracle, error) {
			gen, oracle := bst.Generator(guide, st, f.seed)
			return gen, nil, oracle, nil
		}}, nothing, nil
	case f.example != "":
		return rlcheckSetup{}, nothing, usageError{fmt.Errorf("unknown --example %q (there is bst)", f.example)}
	case f.grammar == "" && f.subject == "":
		return rlcheckSetup{}, nothing, usageError{errors.New("give --example bst, or --grammar with --subject, --go or --oracle-cmd")}
	}
	grammarArg := f.grammar
	if grammarArg == "" && f.subject != "" {
		b, err := datasets.LookupSubject(f.subject)
		if err != nil {
			return rlcheckSetup{}, nothing, err
		}
		grammarArg = b.Grammar
	}
	g, err := datasets.LoadGrammar(grammarArg)
	if err != nil {
		return rlcheckSetup{}, nothing, err
	}
	set, err := f.constraints.set(g)
	if err != nil {
		return rlcheckSetup{}, nothing, err
	}
	var oracle synth.Oracle
	cleanup := nothing
	hasSubject := f.hasSubject()
	switch {
	case hasSubject && f.oracleCmd == "":
		target, _, err := f.target(contextOf(cmd))
		if err != nil {
			return rlcheckSetup{}, nothing, err
		}
		run, err := f.runOptions()
		if err != nil {
			return rlcheckSetup{}, nothing, err
		}
		s, err := coverage.Open(contextOf(cmd), target, coverage.DefaultCacheDir(), run)
		if err != nil {
			return rlcheckSetup{}, nothing, err
		}
		cleanup = func() { s.Close() }
		oracle = &subject.SessionOracle{Session: s, Timeout: f.timeout}
	case f.oracleCmd != "" && !hasSubject:
		run, err := f.runOptions()
		if err != nil {
			return rlcheckSetup{}, nothing, err
		}
		// runOptions says -1 for no limit.
		oracle = subject.CommandOracle{Argv: []string{"sh", "-c", f.oracleCmd}, Timeout: f.timeout, Memory: max(run.Memory, 0)}
	default:
		return rlcheckSetup{}, nothing, usageError{errors.New("with --grammar give one of --subject, --go and --oracle-cmd")}
	}
	name := grammarArg
	return rlcheckSetup{name: name, make: func(guide *synth.Guide) (func() []byte, func(int) int, synth.Oracle, error) {
		gen, unrepaired := synth.ConstrainedGenerator(g, guide, st, f.seed, f.maxDepth, set)
		return gen, unrepaired, oracle, nil
	}}, cleanup, nil
}
