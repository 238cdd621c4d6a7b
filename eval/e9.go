package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/subject"
)

// E9 methods.
const (
	E9Zest   = "zest"   // one campaign with the generator's usual bounds
	E9Top    = "top"    // one campaign with the lattice's top bounds: is it the lattice or the bounds?
	E9Bonsai = "bonsai" // fuzz.Bonsai's lattice up to E9Config.Top
)

var e9Methods = []string{E9Zest, E9Top, E9Bonsai}

// E9Config configures E9.
type E9Config struct {
	Subjects []subject.Setup
	Execs    int // per run, the lattice's whole budget (0 means 20,000)
	Reps     int // 0 means 10
	Seed     uint64
	// MaxDepth bounds Zest's generator (0 means synth's default); Top is
	// the lattice's top (0s mean fuzz.BonsaiOptions's defaults: 3
	// distinct values per terminal, 3 repetitions, synth's depth), with
	// Levels per axis (0 means fuzz.DefaultBonsaiLevels).
	MaxDepth int
	Top      fuzz.Bounds
	Levels   int
	Timeout  time.Duration
	// NoConstraints runs the campaigns without the grammar's constraints
	// (where clauses); by default every input they run satisfies them,
	// repaired or dropped (E9Run.Repaired, Dropped).
	NoConstraints bool
	CacheDir      string
	Progress      func(string)
}

// setDefaults fills in the fields that have defaults.
func (cfg *E9Config) setDefaults() {
	setPositive(&cfg.Execs, 20000)
	setPositive(&cfg.Reps, 10)
	setPositive(&cfg.Levels, fuzz.DefaultBonsaiLevels)
	fuzzDefaults(&cfg.Timeout, &cfg.MaxDepth)
}

// E9Run is one campaign's outcome. Covered is what all its executions
// ran; CorpusCovered what its corpus's inputs run when run again, the
// coverage the corpus keeps for whoever uses it (blocks where the subject
// records them, else functions).
type E9Run struct {
	Method        string `json:"method"`
	Rep           int    `json:"rep"`
	Execs         int    `json:"executions"`
	Covered       int    `json:"covered"`
	CorpusCovered int    `json:"corpus_covered"`
	ValidCovered  int    `json:"corpus_valid_covered"`
	Files         int    `json:"files"`
	Bytes         int    `json:"bytes"`
	Largest       int    `json:"largest"` // the largest input's bytes
	// With the grammar's constraints, the inputs repaired before they ran
	// and dropped unrun, over all of the run's campaigns.
	Repaired int `json:"repaired,omitempty"`
	Dropped  int `json:"dropped,omitempty"`
}

// E9Row summarizes a method on a subject: medians over runs, and
// two-sided Mann–Whitney U tests of the corpus's coverage and bytes
// against Zest's (nil for Zest).
type E9Row struct {
	Method        string   `json:"method"`
	CorpusCovered float64  `json:"corpus_covered"`
	ValidCovered  float64  `json:"corpus_valid_covered"`
	Files         float64  `json:"files"`
	Bytes         float64  `json:"bytes"`
	Largest       float64  `json:"largest"`
	BytesPerUnit  float64  `json:"bytes_per_unit"` // median over runs of bytes / corpus coverage
	CoveredP      *float64 `json:"p_covered_vs_zest,omitempty"`
	BytesP        *float64 `json:"p_bytes_vs_zest,omitempty"`
}

// E9Subject is E9 on one subject.
type E9Subject struct {
	Subject string  `json:"subject"`
	Unit    string  `json:"unit"`
	Units   int     `json:"units"`
	Lattice int     `json:"lattice"` // bounded campaigns in the lattice
	Rows    []E9Row `json:"rows"`
	Runs    []E9Run `json:"runs"`
	Error   string  `json:"error,omitempty"`
}

// E9Result is E9 on every subject.
type E9Result struct {
	Execs    int         `json:"executions"`
	Reps     int         `json:"reps"`
	Top      fuzz.Bounds `json:"top"`
	Levels   int         `json:"levels"`
	Subjects []E9Subject `json:"subjects"`
}

// E9 compares Bonsai fuzzing with one unbounded campaign at an equal
// budget of executions (docs/evaluation.md): the size of the corpus each
// leaves (files and bytes) and the coverage that corpus keeps. A third
// method, one campaign with the lattice's top bounds, tells what the
// lattice adds to the bounds alone. All use Zest's domains and the same
// seed per repetition.
func E9(ctx context.Context, cfg E9Config) (*E9Result, error) {
	cfg.setDefaults()
	part := func(s subject.Setup, sess *fuzzSession) (E9Subject, error) { return e9Subject(ctx, cfg, s, sess) }
	failed := func(name string, err error) E9Subject { return E9Subject{Subject: name, Error: err.Error()} }
	subjects, err := eachSubject(ctx, cfg.Subjects, cfg.CacheDir, part, failed)
	return &E9Result{Execs: cfg.Execs, Reps: cfg.Reps, Top: cfg.Top, Levels: cfg.Levels, Subjects: subjects}, err
}

func e9Subject(ctx context.Context, cfg E9Config, s subject.Setup, sess *fuzzSession) (E9Subject, error) {
	es := E9Subject{Subject: s.Name, Unit: sess.unit, Units: sess.units, Lattice: len(fuzz.Lattice(s.Grammar, cfg.Top, cfg.Levels))}
	set, err := constraintsOf(s.Grammar, cfg.NoConstraints)
	if err != nil {
		return E9Subject{}, err
	}
	runner := &coverage.SessionRunner{Session: sess.Session, Timeout: cfg.Timeout}
	for rep := range cfg.Reps {
		seed := cfg.Seed + uint64(rep)*1000003
		for _, method := range e9Methods {
			if cfg.Progress != nil {
				cfg.Progress(fmt.Sprintf("E9 %s: %s, run %d of %d", s.Name, method, rep+1, cfg.Reps))
			}
			covered := map[int]bool{}
			obs := &observingRunner{SessionRunner: *runner, observe: func(r *coverage.Result) {
				for _, u := range sess.unitsOf(r) {
					covered[u] = true
				}
			}}
			var corpus []fuzz.Entry
			var execs, repaired, dropped int
			switch method {
			case E9Zest:
				res, err := fuzz.Fuzz(ctx, s.Grammar, obs, fuzz.Options{Seed: seed, Execs: cfg.Execs, Domains: sess.zestDomains(),
					Bounds: fuzz.Bounds{MaxDepth: cfg.MaxDepth}, Constraints: set})
				if err != nil {
					return E9Subject{}, err
				}
				corpus, execs, repaired, dropped = res.Corpus, res.Execs, res.Repaired, res.Dropped
			case E9Top:
				res, err := fuzz.Fuzz(ctx, s.Grammar, obs, fuzz.Options{Seed: seed, Execs: cfg.Execs, Domains: sess.zestDomains(),
					Bounds: fuzz.TopBounds(cfg.Top), Constraints: set})
				if err != nil {
					return E9Subject{}, err
				}
				corpus, execs, repaired, dropped = res.Corpus, res.Execs, res.Repaired, res.Dropped
			case E9Bonsai:
				res, err := fuzz.Bonsai(ctx, s.Grammar, obs, fuzz.BonsaiOptions{
					Options:    fuzz.Options{Seed: seed, Execs: cfg.Execs, Bounds: cfg.Top, Constraints: set},
					NewDomains: sess.zestDomains, Levels: cfg.Levels,
				})
				if err != nil {
					return E9Subject{}, err
				}
				corpus, execs = res.Corpus, res.Execs
				// The lattice's result does not add up its campaigns'
				// repairs: its steps hold each campaign's.
				for _, st := range res.Steps {
					repaired, dropped = repaired+st.Stats.Repaired, dropped+st.Stats.Dropped
				}
			}
			run := E9Run{Method: method, Rep: rep, Execs: execs, Covered: len(covered), Files: len(corpus), Repaired: repaired, Dropped: dropped}
			all, valid := map[int]bool{}, map[int]bool{}
			for _, e := range corpus {
				run.Bytes += len(e.Input)
				run.Largest = max(run.Largest, len(e.Input))
				r, err := runner.Run(ctx, e.Input)
				if err != nil {
					return E9Subject{}, err
				}
				for _, u := range sess.unitsOf(r) {
					all[u] = true
					if r.Outcome == coverage.OK {
						valid[u] = true
					}
				}
			}
			run.CorpusCovered, run.ValidCovered = len(all), len(valid)
			es.Runs = append(es.Runs, run)
		}
	}
	es.Rows = e9Rows(es.Runs)
	return es, nil
}

func e9Rows(runs []E9Run) []E9Row {
	by := groupBy(runs, func(r E9Run) string { return r.Method })
	series := column[E9Run]
	covered := func(r E9Run) float64 { return float64(r.CorpusCovered) }
	bytes := func(r E9Run) float64 { return float64(r.Bytes) }
	var rows []E9Row
	for _, m := range e9Methods {
		rs := by[m]
		if len(rs) == 0 {
			continue
		}
		row := E9Row{
			Method:        m,
			CorpusCovered: Median(series(rs, covered)),
			ValidCovered:  Median(series(rs, func(r E9Run) float64 { return float64(r.ValidCovered) })),
			Files:         Median(series(rs, func(r E9Run) float64 { return float64(r.Files) })),
			Bytes:         Median(series(rs, bytes)),
			Largest:       Median(series(rs, func(r E9Run) float64 { return float64(r.Largest) })),
			BytesPerUnit:  Median(series(rs, func(r E9Run) float64 { return float64(r.Bytes) / float64(max(1, r.CorpusCovered)) })),
		}
		if m != E9Zest && len(by[E9Zest]) > 0 {
			_, p := MannWhitney(series(rs, covered), series(by[E9Zest], covered))
			_, q := MannWhitney(series(rs, bytes), series(by[E9Zest], bytes))
			row.CoveredP, row.BytesP = &p, &q
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteE9 writes e9.json and e9.csv (every run).
func WriteE9(dir string, r *E9Result) ([]string, error) {
	header, rows := r.CSVTable()
	return writeJSONAndCSV(dir, "e9", r, header, rows)
}
