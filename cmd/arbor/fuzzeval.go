package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// fuzzExperiment holds what the fuzzing experiments (eval E7, E8, E10)
// share on the command line: their subjects and common flags, and how
// they run, save and print.
type fuzzExperiment struct {
	subjects []string
	out      string
	timeout  time.Duration
	maxDepth int
	reps     int
	seed     uint64
	asJSON   bool
}

func (f *fuzzExperiment) register(fl *pflag.FlagSet, repsUsage string, reps int) {
	fl.StringSliceVar(&f.subjects, "subjects", nil, "bundled subjects to run (default: all)")
	fl.IntVar(&f.reps, "reps", reps, repsUsage)
	fl.Uint64Var(&f.seed, "seed", 1, "random seed")
	fl.IntVar(&f.maxDepth, "max-depth", synth.DefaultMaxDepth, "depth bound of grammar generation")
	fl.DurationVar(&f.timeout, "timeout", time.Second, "time limit per input")
	fl.StringVar(&f.out, "out", "", "folder for the experiment's files")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
}

// setups resolves --subjects, every bundled subject by default.
func (f *fuzzExperiment) setups(ctx context.Context) ([]subject.Setup, error) {
	names := f.subjects
	if len(names) == 0 {
		for _, s := range datasets.Subjects() {
			names = append(names, s.Name)
		}
	}
	var setups []subject.Setup
	for _, name := range names {
		s, err := subject.Load(ctx, name)
		if err != nil {
			return nil, usageError{err}
		}
		setups = append(setups, s)
	}
	return setups, nil
}

// runFuzzExperiment runs an experiment on the subjects, with progress on
// a terminal, writes its files to --out and prints it: as JSON with
// --json, else as a table.
func runFuzzExperiment[R tabler](cmd *cobra.Command, f *fuzzExperiment,
	run func(ctx context.Context, subjects []subject.Setup, progress func(string)) (R, error),
	write func(dir string, r R) ([]string, error)) error {
	generatingGC()
	setups, err := f.setups(contextOf(cmd))
	if err != nil {
		return err
	}
	errOut := cmd.ErrOrStderr()
	// On a terminal, one line rewritten in place; elsewhere (a log, a
	// batch job) a line per step with the time, so that a run of hours
	// says where it is.
	progress := lineProgress(errOut)
	terminal := isTerminal(errOut)
	if terminal {
		progress = func(s string) { fmt.Fprintf(errOut, "\r\033[K%s", s) }
	}
	ctx := contextOf(cmd)
	res, err := run(ctx, setups, progress)
	if terminal {
		fmt.Fprintln(errOut)
	}
	var stopped error
	if err != nil {
		// Interrupted (Ctrl-C, SIGTERM): the subjects finished before
		// it are written and printed as a whole run's would be, and the
		// exit status says the run is not whole. (E7's write leaves its
		// checkpoint, which holds the unfinished subject's runs too.)
		done, ok := any(res).(interface{ Finished() []string })
		var names []string
		if ok {
			names = done.Finished()
		}
		if ctx.Err() == nil || len(names) == 0 {
			return err
		}
		where := ""
		if f.out != "" {
			where = " and written to " + f.out
		}
		stopped = fmt.Errorf("interrupted: the results of the subjects finished before it (%s) are printed%s; the others' are not: %w",
			strings.Join(names, ", "), where, err)
	}
	if f.out != "" {
		if _, err := write(f.out, res); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	if f.asJSON {
		err = json.NewEncoder(w).Encode(res)
	} else {
		err = printTable(w, res)
	}
	if stopped != nil {
		return stopped
	}
	return err
}
