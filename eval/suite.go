package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// SuiteConfig configures the generalization suite: E3 and E4 on many
// subjects with one protocol.
type SuiteConfig struct {
	Subjects []string // bundled subjects; nil means all of them
	Quick    bool     // small budgets
	Seed     uint64
	// NoConstraints runs E3 and E4 without the grammars' constraints
	// (E3Config.NoConstraints); by default their inputs satisfy them.
	NoConstraints bool
	Out           string // folder for work files, suite.csv and suite.json
	CacheDir      string
	// Shard and Shards run only shard Shard (1-based) of Shards of the
	// subjects: those at positions Shard-1, Shard-1+Shards, ... of the
	// list, so that shards can run as separate processes or machines and
	// MergeSuite joins their results into the whole suite's. 0 means 1/1.
	Shard, Shards int
	Progress      func(Step)
}

// SuiteBudgets are the suite's sizes; DefaultSuiteBudgets and
// QuickSuiteBudgets are the two presets.
type SuiteBudgets struct {
	Train, Test int // E3's random training and test inputs
	Inputs      int // E4's inputs asked for per function
	Budget      int // E4's executions per function at most
	BaseInputs  int // E4's base-rate sample
}

var (
	DefaultSuiteBudgets = SuiteBudgets{Train: 1000, Test: 1000, Inputs: 10, Budget: 100, BaseInputs: 1000}
	QuickSuiteBudgets   = SuiteBudgets{Train: 300, Test: 300, Inputs: 5, Budget: 30, BaseInputs: 300}
)

// SuiteRow is one subject's line of the suite.
type SuiteRow struct {
	Subject string        `json:"subject"`
	Library string        `json:"library"`
	Version string        `json:"version"`
	E3      *E3Result     `json:"e3,omitempty"`
	E4      *TargetResult `json:"e4,omitempty"`
	Error   string        `json:"error,omitempty"` // why the subject has no figures
}

// SuiteResult is the whole suite, or one shard of it.
type SuiteResult struct {
	Budgets       SuiteBudgets `json:"budgets"`
	Seed          uint64       `json:"seed"`
	NoConstraints bool         `json:"no_constraints,omitempty"`
	// All is the suite's whole list of subjects, in order; Shard, when
	// the result is one shard's ("i/n"), says which.
	All   []string   `json:"all_subjects"`
	Shard string     `json:"shard,omitempty"`
	Rows  []SuiteRow `json:"subjects"`
}

// Suite runs E3 and then E4 (on E3's model) on every subject, one after
// the other, and writes Out/suite.json and Out/suite.csv after each, so
// that a run stopped early keeps what it finished. A subject that fails
// gets a row with its error and the suite goes on; a cancelled context
// stops it.
func Suite(ctx context.Context, cfg SuiteConfig) (*SuiteResult, error) {
	b := DefaultSuiteBudgets
	if cfg.Quick {
		b = QuickSuiteBudgets
	}
	all := slices.Clone(cfg.Subjects)
	if len(all) == 0 {
		for _, s := range datasets.Subjects() {
			all = append(all, s.Name)
		}
	}
	var shard string
	var err error
	if cfg.Shard, cfg.Shards, shard, err = shardOf(cfg.Shard, cfg.Shards); err != nil {
		return nil, err
	}
	if dup := duplicate(all); dup != "" {
		return nil, fmt.Errorf("subject %s is named twice", dup)
	}
	var names []string
	for i, name := range all {
		if i%cfg.Shards == cfg.Shard-1 {
			names = append(names, name)
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	res := &SuiteResult{Budgets: b, Seed: cfg.Seed, NoConstraints: cfg.NoConstraints, All: all, Shard: shard, Rows: []SuiteRow{}}
	for i, name := range names {
		sub := func(text string) {
			if cfg.Progress != nil {
				cfg.Progress(Step{Done: i, Total: len(names), Text: name + ": " + text})
			}
		}
		row := SuiteRow{Subject: name}
		err := suiteSubject(ctx, cfg, b, &row, sub)
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			row.Error = err.Error()
		}
		res.Rows = append(res.Rows, row)
		if err := WriteSuite(cfg.Out, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func suiteSubject(ctx context.Context, cfg SuiteConfig, b SuiteBudgets, row *SuiteRow, progress func(string)) error {
	s, err := subject.Load(ctx, row.Subject)
	if err != nil {
		return err
	}
	if bs, err := datasets.LookupSubject(row.Subject); err == nil {
		row.Library, row.Version = bs.Library, bs.Version()
	}
	work := filepath.Join(cfg.Out, "work-"+row.Subject)
	e3 := E3Config{Subject: s.Name, GrammarName: s.GrammarName, Grammar: s.Grammar, Target: s.Target,
		Train: b.Train, Test: b.Test, Seed: cfg.Seed, NoConstraints: cfg.NoConstraints, WorkDir: work, CacheDir: cfg.CacheDir, Progress: progress}
	r3, err := E3(ctx, e3)
	if err != nil {
		return fmt.Errorf("E3: %w", err)
	}
	row.E3 = r3
	if r3.FunctionsTrainable == 0 {
		return errors.New("E4: no trainable function")
	}
	m, err := learn.LoadModel(r3.Model)
	if err != nil {
		return err
	}
	r4, err := Targeted(ctx, TargetConfig{E3Config: e3, Model: m, Solve: synth.SolveOptions{Seed: cfg.Seed}, Inputs: b.Inputs, Budget: b.Budget, BaseInputs: b.BaseInputs})
	if err != nil {
		return fmt.Errorf("E4: %w", err)
	}
	row.E4 = r4
	return nil
}

// WriteSuite writes suite.json and suite.csv into dir.
func WriteSuite(dir string, r *SuiteResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	header, rows := r.CSVTable()
	if err := writeCSV(filepath.Join(dir, "suite.csv"), header, rows); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "suite.json"), r)
}

// Beats reports whether arbor beats its baselines on the subject:
// prediction beats the majority class on mid-rate functions (balanced
// accuracy above 0.5 and accuracy above the baseline), and targeted
// inputs reach at least as many functions as random ones are expected to
// at the same executions.
func (r SuiteRow) Beats() (prediction, targeting bool) {
	if r.E3 != nil {
		mr := r.E3.MidRate
		prediction = mr.Functions > 0 && mr.Accuracy > mr.Baseline && mr.Balanced > 0.5
	}
	if r.E4 != nil {
		targeting = r.E4.Absolute.Targeted >= r.E4.ExpectedRandom
	}
	return prediction, targeting
}
