package eval

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// E11Config configures E11.
type E11Config struct {
	Subjects []subject.Setup
	// Inputs is how many inputs of each side the subject judges (0
	// means 300); SpeedInputs how many each side generates, Reps times,
	// to time the generators (0 means 2,000 and 3).
	Inputs, SpeedInputs, Reps int
	Seed                      uint64
	MaxDepth                  int
	Timeout                   time.Duration
	CacheDir                  string
	Progress                  func(string)
}

func (cfg *E11Config) setDefaults() {
	setPositive(&cfg.Inputs, 300)
	setPositive(&cfg.SpeedInputs, 2000)
	setPositive(&cfg.Reps, 3)
	fuzzDefaults(&cfg.Timeout, &cfg.MaxDepth)
}

// E11Side is one side of E11: grammar-random inputs without the
// grammar's constraints, with them, or with them and drawn by a guide
// that learns from the checker (synth.GenerateOptions.Guided).
type E11Side struct {
	// Of the Inputs judged: how many the program accepted, how many
	// satisfy every constraint (checked, whatever made them), and how
	// many are distinct.
	Accepted   int     `json:"accepted"`
	Share      float64 `json:"accepted_share"`
	Satisfying int     `json:"satisfying"`
	Distinct   int     `json:"distinct"`
	// Unrepaired is how many the search could not repair (with
	// constraints only).
	Unrepaired int `json:"unrepaired"`
	// Generation speed, median of Reps runs of SpeedInputs inputs:
	// microseconds of CPU per input, and the inputs that satisfy every
	// constraint per CPU-second (without constraints: random generation
	// filtered by the checker, the rejection-sampling baseline).
	MicrosPerInput      float64 `json:"cpu_us_per_input"`
	SatisfyingPerSecond float64 `json:"satisfying_per_cpu_second"`
	// AcceptedPerSecond is SatisfyingPerSecond's counterpart for the
	// program's verdict: the accepted share times the inputs per
	// CPU-second.
	AcceptedPerSecond float64 `json:"accepted_per_cpu_second"`
	MeanBytes         float64 `json:"mean_bytes"`
	// Paths2 and AcceptedPaths2 are the distinct 2-paths of the grammar
	// (features.Coverage) that the Inputs judged hold, all of them and
	// those the program accepted: what they say, not only whether they
	// pass. A constrained generator can reach a high accepted share by
	// writing a narrow part of the language (graphql's repair turns most
	// fields into __typename); the accepted 2-paths show it.
	Paths2         int `json:"paths_2"`
	AcceptedPaths2 int `json:"accepted_paths_2"`
}

// E11Subject is E11 on one subject.
type E11Subject struct {
	Subject string `json:"subject"`
	Clauses int    `json:"clauses"`
	// Paths2Total is the number of the grammar's 2-paths.
	Paths2Total int64   `json:"paths_2_total"`
	Off         E11Side `json:"without"`
	On          E11Side `json:"with"`
	Guided      E11Side `json:"guided"`
	Error       string  `json:"error,omitempty"`
}

// E11Result is E11 on every subject whose grammar has constraints.
type E11Result struct {
	Inputs      int          `json:"inputs"`
	SpeedInputs int          `json:"speed_inputs"`
	Reps        int          `json:"reps"`
	Seed        uint64       `json:"seed"`
	Subjects    []E11Subject `json:"subjects"`
}

// E11 measures what the grammar's constraints buy generation
// (docs/evaluation.md): on each subject whose grammar has where clauses,
// the share of grammar-random inputs the program accepts without and
// with them (the same seed), and how fast each side makes inputs that
// satisfy every constraint, per CPU-second. Subjects without clauses
// are left out.
func E11(ctx context.Context, cfg E11Config) (*E11Result, error) {
	cfg.setDefaults()
	res := &E11Result{Inputs: cfg.Inputs, SpeedInputs: cfg.SpeedInputs, Reps: cfg.Reps, Seed: cfg.Seed}
	var with []subject.Setup
	for _, s := range cfg.Subjects {
		if s.Grammar != nil && s.Grammar.Source != nil && len(s.Grammar.Source.Where) > 0 {
			with = append(with, s)
		}
	}
	part := func(s subject.Setup, sess *fuzzSession) (E11Subject, error) { return e11Subject(ctx, cfg, s, sess) }
	failed := func(name string, err error) E11Subject { return E11Subject{Subject: name, Error: err.Error()} }
	subjects, err := eachSubject(ctx, with, cfg.CacheDir, part, failed)
	res.Subjects = subjects
	return res, err
}

func e11Subject(ctx context.Context, cfg E11Config, s subject.Setup, sess *fuzzSession) (E11Subject, error) {
	set, err := constraint.Compile(s.Grammar)
	if err != nil {
		return E11Subject{}, err
	}
	out := E11Subject{Subject: s.Name, Clauses: set.Len()}
	oracle := &subject.SessionOracle{Session: sess.Session, Timeout: cfg.Timeout}
	check := constraint.NewChecker(set)
	// satisfies tells whether an input satisfies every clause: what the
	// constrained generator found already, or, without constraints, a
	// check (which the baseline pays for, as a filter would).
	satisfies := func(constrained bool, in synth.Input) bool {
		if constrained {
			return in.Broken == 0
		}
		return len(check.Check(in.Tree)) == 0
	}
	for _, side := range []struct {
		name   string
		set    *constraint.Set
		guided bool
		to     *E11Side
	}{{"without constraints", nil, false, &out.Off}, {"with constraints", set, false, &out.On}, {"with constraints, guided", set, true, &out.Guided}} {
		if cfg.Progress != nil {
			cfg.Progress(fmt.Sprintf("E11 %s: %s", s.Name, side.name))
		}
		// The inputs the program judges.
		opts := synth.GenerateOptions{Seed: cfg.Seed, MaxDepth: cfg.MaxDepth, Constraints: side.set, Guided: side.guided}
		bytes := 0
		all, accepted := features.NewCoverage(s.Grammar, 2), features.NewCoverage(s.Grammar, 2)
		distinct := map[[sha256.Size]byte]bool{} // by hash: inputs may be large
		err := synth.GenerateFunc(ctx, s.Grammar, cfg.Inputs, opts, func(in synth.Input) error {
			bytes += len(in.Text)
			distinct[sha256.Sum256([]byte(in.Text))] = true
			all.Add(in.Tree)
			if in.Broken > 0 {
				side.to.Unrepaired++
			}
			if satisfies(side.set != nil, in) {
				side.to.Satisfying++
			}
			v, err := oracle.JudgeContext(ctx, []byte(in.Text))
			if err != nil {
				return err
			}
			if v.Valid {
				side.to.Accepted++
				accepted.Add(in.Tree)
			}
			return nil
		})
		if err != nil {
			return out, err
		}
		side.to.Share = float64(side.to.Accepted) / float64(cfg.Inputs)
		side.to.Distinct = len(distinct)
		side.to.MeanBytes = float64(bytes) / float64(cfg.Inputs)
		side.to.Paths2, side.to.AcceptedPaths2 = all.Covered(2), accepted.Covered(2)
		if total := all.Total(2); total.IsInt64() {
			out.Paths2Total = total.Int64()
		}
		// The generator's speed, apart from the program's.
		var micros, perSecond []float64
		for rep := range cfg.Reps {
			satisfying := 0
			opts := synth.GenerateOptions{Seed: cfg.Seed + 1000 + uint64(rep), MaxDepth: cfg.MaxDepth, Constraints: side.set, Guided: side.guided}
			start := cpuTime()
			err := synth.GenerateFunc(ctx, s.Grammar, cfg.SpeedInputs, opts, func(in synth.Input) error {
				if satisfies(side.set != nil, in) {
					satisfying++
				}
				return nil
			})
			if err != nil {
				return out, err
			}
			cpu := (cpuTime() - start).Seconds()
			micros = append(micros, 1e6*cpu/float64(cfg.SpeedInputs))
			perSecond = append(perSecond, float64(satisfying)/max(cpu, 1e-9))
		}
		side.to.MicrosPerInput = Median(micros)
		side.to.SatisfyingPerSecond = Median(perSecond)
		side.to.AcceptedPerSecond = side.to.Share * 1e6 / max(side.to.MicrosPerInput, 1e-9)
	}
	return out, nil
}

// Table is E11's rows: per subject, each side's accepted share and
// generation speed.
func (r *E11Result) Table() (header []string, rows [][]string) {
	header = []string{"subject", "clauses", "accepted without", "accepted with", "guided", "unrepaired",
		"µs/input without", "µs/input with", "guided", "satisfying/CPU-s without", "satisfying/CPU-s with", "guided",
		"accepted 2-paths without", "accepted 2-paths with", "guided", "distinct with", "guided"}
	for _, s := range r.Subjects {
		if s.Error != "" {
			row := make([]string, len(header))
			row[0], row[2] = s.Subject, "error: "+s.Error
			rows = append(rows, row)
			continue
		}
		rows = append(rows, []string{s.Subject, strconv.Itoa(s.Clauses),
			fmt.Sprintf("%.2f", s.Off.Share), fmt.Sprintf("%.2f", s.On.Share), fmt.Sprintf("%.2f", s.Guided.Share), strconv.Itoa(s.On.Unrepaired),
			fmt.Sprintf("%.0f", s.Off.MicrosPerInput), fmt.Sprintf("%.0f", s.On.MicrosPerInput), fmt.Sprintf("%.0f", s.Guided.MicrosPerInput),
			fmt.Sprintf("%.0f", s.Off.SatisfyingPerSecond), fmt.Sprintf("%.0f", s.On.SatisfyingPerSecond), fmt.Sprintf("%.0f", s.Guided.SatisfyingPerSecond),
			fmt.Sprintf("%d/%d", s.Off.AcceptedPaths2, s.Paths2Total), fmt.Sprintf("%d/%d", s.On.AcceptedPaths2, s.Paths2Total), fmt.Sprintf("%d/%d", s.Guided.AcceptedPaths2, s.Paths2Total),
			strconv.Itoa(s.On.Distinct), strconv.Itoa(s.Guided.Distinct)})
	}
	return header, rows
}

// CSVTable is e11.csv: every figure of both sides.
func (r *E11Result) CSVTable() (header []string, rows [][]string) {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, s := range r.Subjects {
		for _, side := range []struct {
			name string
			v    E11Side
		}{{"without", s.Off}, {"with", s.On}, {"guided", s.Guided}} {
			rows = append(rows, []string{s.Subject, side.name, strconv.Itoa(s.Clauses), strconv.Itoa(side.v.Accepted), f(side.v.Share),
				strconv.Itoa(side.v.Satisfying), strconv.Itoa(side.v.Distinct), strconv.Itoa(side.v.Unrepaired), f(side.v.MicrosPerInput), f(side.v.SatisfyingPerSecond),
				f(side.v.AcceptedPerSecond), f(side.v.MeanBytes),
				strconv.Itoa(side.v.Paths2), strconv.Itoa(side.v.AcceptedPaths2), strconv.FormatInt(s.Paths2Total, 10), s.Error})
		}
	}
	return []string{"subject", "constraints", "clauses", "accepted", "accepted_share", "satisfying", "distinct", "unrepaired", "cpu_us_per_input",
		"satisfying_per_cpu_second", "accepted_per_cpu_second", "mean_bytes", "paths_2", "accepted_paths_2", "paths_2_total", "error"}, rows
}

// WriteE11 writes e11.json and e11.csv into dir.
func WriteE11(dir string, r *E11Result) ([]string, error) {
	header, rows := r.CSVTable()
	return writeJSONAndCSV(dir, "e11", r, header, rows)
}
