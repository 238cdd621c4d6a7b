package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// E8 variants of the fuzzer, in the order they are run and reported.
const (
	E8Zest     = "zest"     // blocks and valid blocks (functions where there are no blocks)
	E8FairFuzz = "fairfuzz" // the same, with Options.Rare
	E8PerfFuzz = "perffuzz" // the same, with the perf domain added
)

// E8Config configures E8.
type E8Config struct {
	Subjects []subject.Setup
	Execs    int // per run (0 means 5,000)
	Reps     int // runs per variant and subject (0 means 10)
	// BaseInputs is the size of the random sample that gives each
	// function's base rate (0 means 1,000); a function is rare when its
	// base rate is below RareLimit.
	BaseInputs int
	Seed       uint64
	MaxDepth   int
	Timeout    time.Duration
	// NoConstraints runs the base sample and the campaigns without the
	// grammar's constraints (where clauses); by default every input
	// satisfies them (the campaigns repair or drop theirs, E8Run.Repaired,
	// Dropped).
	NoConstraints bool
	CacheDir      string
	Progress      func(string)
}

// setDefaults fills in the fields that have defaults.
func (cfg *E8Config) setDefaults() {
	setPositive(&cfg.Execs, 5000)
	setPositive(&cfg.Reps, 10)
	setPositive(&cfg.BaseInputs, 1000)
	fuzzDefaults(&cfg.Timeout, &cfg.MaxDepth)
}

// E8Run is one variant's run on a subject.
type E8Run struct {
	Variant string `json:"variant"`
	Rep     int    `json:"rep"`
	// RareReached is how many rare functions some input of the run ran.
	RareReached int `json:"rare_reached"`
	// MaxCalls is the most calls one input made of one function, and
	// Costliest that function.
	MaxCalls  uint32 `json:"max_calls"`
	Costliest string `json:"costliest"`
	Functions int    `json:"functions_covered"`
	// With the grammar's constraints, the inputs repaired before they ran
	// and dropped unrun (fuzz.Stats.Repaired, Dropped).
	Repaired int `json:"repaired,omitempty"`
	Dropped  int `json:"dropped,omitempty"`
}

// E8Row summarizes a variant on a subject: medians over repetitions and
// two-sided Mann–Whitney U tests against zest (nil for zest).
type E8Row struct {
	Variant     string   `json:"variant"`
	RareReached float64  `json:"rare_reached"`
	MaxCalls    float64  `json:"max_calls"`
	Functions   float64  `json:"functions_covered"`
	RareP       *float64 `json:"rare_p_vs_zest,omitempty"`
	CallsP      *float64 `json:"max_calls_p_vs_zest,omitempty"`
}

// E8Subject is E8 on one subject.
type E8Subject struct {
	Subject string   `json:"subject"`
	Rare    []string `json:"rare_functions"` // base rate below RareLimit
	// BaseUnrepaired counts the inputs of the base sample that broke a
	// grammar constraint the search could not repair: they ran as they
	// were.
	BaseUnrepaired int     `json:"base_unrepaired,omitempty"`
	Rows           []E8Row `json:"rows"`
	Runs           []E8Run `json:"runs"`
	Error          string  `json:"error,omitempty"`
}

// E8Result is E8 on every subject.
type E8Result struct {
	Execs      int         `json:"executions_per_run"`
	Reps       int         `json:"reps"`
	BaseInputs int         `json:"base_inputs"`
	Subjects   []E8Subject `json:"subjects"`
}

// E8 compares the fuzzer's FairFuzz and PerfFuzz variants with plain
// Zest-style fuzzing at the same number of executions (docs/evaluation.md):
// how many rare functions (base rate in random inputs below RareLimit)
// each reaches, and the most calls one input makes of one function.
func E8(ctx context.Context, cfg E8Config) (*E8Result, error) {
	cfg.setDefaults()
	part := func(s subject.Setup, sess *fuzzSession) (E8Subject, error) { return e8Subject(ctx, cfg, s, sess) }
	failed := func(name string, err error) E8Subject { return E8Subject{Subject: name, Error: err.Error()} }
	subjects, err := eachSubject(ctx, cfg.Subjects, cfg.CacheDir, part, failed)
	return &E8Result{Execs: cfg.Execs, Reps: cfg.Reps, BaseInputs: cfg.BaseInputs, Subjects: subjects}, err
}

func e8Subject(ctx context.Context, cfg E8Config, s subject.Setup, sess *fuzzSession) (E8Subject, error) {
	names := sess.Funcs.Names
	set, err := constraintsOf(s.Grammar, cfg.NoConstraints)
	if err != nil {
		return E8Subject{}, err
	}
	// Base rates from a separate random sample (seed+1, as E4's).
	hits := make([]int, len(names))
	gen, unrepaired := synth.ConstrainedGenerator(s.Grammar, nil, synth.TreeState, cfg.Seed+1, cfg.MaxDepth, set)
	for range cfg.BaseInputs {
		if err := ctx.Err(); err != nil {
			return E8Subject{}, err
		}
		r, err := sess.Record(gen(), cfg.Timeout)
		if err != nil {
			return E8Subject{}, err
		}
		for _, f := range r.Covered {
			hits[f]++
		}
	}
	rare := map[int]bool{}
	es := E8Subject{Subject: s.Name, Rare: []string{}, BaseUnrepaired: unrepaired(cfg.BaseInputs)}
	for f, h := range hits {
		if float64(h)/float64(cfg.BaseInputs) < RareLimit {
			rare[f] = true
			es.Rare = append(es.Rare, names[f])
		}
	}
	for rep := range cfg.Reps {
		seed := cfg.Seed + uint64(rep)*1000003
		for _, variant := range []string{E8Zest, E8FairFuzz, E8PerfFuzz} {
			if cfg.Progress != nil {
				cfg.Progress(fmt.Sprintf("E8 %s: %s, repetition %d of %d", s.Name, variant, rep+1, cfg.Reps))
			}
			domains := sess.zestDomains()
			if variant == E8PerfFuzz {
				domains = append(domains, fuzz.Perf())
			}
			run := E8Run{Variant: variant, Rep: rep}
			covered := map[int]bool{}
			observe := func(r *coverage.Result) {
				for i, f := range r.Covered {
					covered[f] = true
					if r.Counts[i] > run.MaxCalls {
						run.MaxCalls, run.Costliest = r.Counts[i], names[f]
					}
				}
			}
			runner := &observingRunner{SessionRunner: coverage.SessionRunner{Session: sess.Session, Timeout: cfg.Timeout}, observe: observe}
			res, err := fuzz.Fuzz(ctx, s.Grammar, runner, fuzz.Options{Seed: seed, Execs: cfg.Execs, Domains: domains,
				Rare: variant == E8FairFuzz, Bounds: fuzz.Bounds{MaxDepth: cfg.MaxDepth}, Constraints: set})
			if err != nil {
				return E8Subject{}, fmt.Errorf("%s: %w", variant, err)
			}
			run.Repaired, run.Dropped = res.Repaired, res.Dropped
			for f := range covered {
				if rare[f] {
					run.RareReached++
				}
			}
			run.Functions = len(covered)
			es.Runs = append(es.Runs, run)
		}
	}
	es.Rows = e8Rows(es.Runs)
	return es, nil
}

func e8Rows(runs []E8Run) []E8Row {
	by := groupBy(runs, func(r E8Run) string { return r.Variant })
	series := column[E8Run]
	rareOf := func(r E8Run) float64 { return float64(r.RareReached) }
	callsOf := func(r E8Run) float64 { return float64(r.MaxCalls) }
	var rows []E8Row
	for _, v := range []string{E8Zest, E8FairFuzz, E8PerfFuzz} {
		rs := by[v]
		if len(rs) == 0 {
			continue
		}
		row := E8Row{Variant: v, RareReached: Median(series(rs, rareOf)), MaxCalls: Median(series(rs, callsOf)),
			Functions: Median(series(rs, func(r E8Run) float64 { return float64(r.Functions) }))}
		if v != E8Zest {
			_, p := MannWhitney(series(rs, rareOf), series(by[E8Zest], rareOf))
			_, q := MannWhitney(series(rs, callsOf), series(by[E8Zest], callsOf))
			row.RareP, row.CallsP = &p, &q
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteE8 writes e8.json and e8.csv (every run).
func WriteE8(dir string, r *E8Result) ([]string, error) {
	header, rows := r.CSVTable()
	return writeJSONAndCSV(dir, "e8", r, header, rows)
}
