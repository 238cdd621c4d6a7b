package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/subject"
)

// E10Config configures E10.
type E10Config struct {
	Subjects []subject.Setup
	// Trials of the bandit generator that makes the candidate seeds, and
	// Seeds, how many of them a filter keeps (0 means 2,000 and 20).
	Trials, Seeds int
	// Execs bounds the seedless campaign that tries to catch up (0 means
	// 20,000).
	Execs    int
	Reps     int // 0 means 10
	Seed     uint64
	MaxDepth int
	Timeout  time.Duration
	// NoConstraints runs E10 without the grammar's constraints (where
	// clauses). By default the seedless campaign's inputs satisfy them,
	// repaired or dropped, and the candidates that break one are left
	// out before the filters choose (the bandit generator cannot repair
	// them: E10Subject.LeftOut).
	NoConstraints bool
	CacheDir      string
	Progress      func(string)
}

// setDefaults fills in the fields that have defaults.
func (cfg *E10Config) setDefaults() {
	setPositive(&cfg.Trials, 2000)
	setPositive(&cfg.Seeds, 20)
	setPositive(&cfg.Execs, 20000)
	setPositive(&cfg.Reps, 10)
	fuzzDefaults(&cfg.Timeout, &cfg.MaxDepth)
}

// E10Run is one filter's seeds against the seedless campaign, in one
// repetition.
type E10Run struct {
	Filter string `json:"filter"`
	Rep    int    `json:"rep"`
	// Covered is what the seeds ran (blocks where the subject records
	// them, else functions).
	Covered int `json:"covered"`
	// Reached is how many executions the seedless campaign took to run as
	// much, or -1 if it did not within the budget.
	Reached int `json:"reached"`
}

// E10Row summarizes a filter on a subject: median coverage of its seeds,
// the share of repetitions the seedless campaign caught up in, and the
// median executions it took when it did.
type E10Row struct {
	Filter      string  `json:"filter"`
	Covered     float64 `json:"covered"`
	CaughtUp    float64 `json:"caught_up"`
	ExecsToMeet float64 `json:"executions_to_meet"`
}

// E10Subject is E10 on one subject.
type E10Subject struct {
	Subject    string `json:"subject"`
	Unit       string `json:"unit"`
	Candidates []int  `json:"candidates"` // per repetition: distinct valid inputs the generator made (and, with constraints, that satisfy them)
	// With the grammar's constraints: the candidates left out because
	// they break one (not in Candidates), and the seedless campaigns'
	// inputs repaired before they ran and dropped unrun, over all
	// repetitions.
	LeftOut  int      `json:"candidates_left_out,omitempty"`
	Repaired int      `json:"repaired,omitempty"`
	Dropped  int      `json:"dropped,omitempty"`
	Rows     []E10Row `json:"rows"`
	Runs     []E10Run `json:"runs"`
	Error    string   `json:"error,omitempty"`
}

// E10Result is E10 on every subject.
type E10Result struct {
	Trials   int          `json:"trials"`
	Seeds    int          `json:"seeds"`
	Execs    int          `json:"seedless_executions"`
	Reps     int          `json:"reps"`
	Subjects []E10Subject `json:"subjects"`
}

// E10 measures Kummer's seeding (docs/evaluation.md): per repetition, the
// bandit generator makes candidates, each filter keeps Seeds of them,
// and a seedless campaign (Zest's domains, the same seed) runs until it
// has run as much of the program as each filter's seeds ran, counting
// its executions. The seeds' own cost is Trials executions of the
// generator plus Seeds.
func E10(ctx context.Context, cfg E10Config) (*E10Result, error) {
	cfg.setDefaults()
	part := func(s subject.Setup, sess *fuzzSession) (E10Subject, error) { return e10Subject(ctx, cfg, s, sess) }
	failed := func(name string, err error) E10Subject { return E10Subject{Subject: name, Error: err.Error()} }
	subjects, err := eachSubject(ctx, cfg.Subjects, cfg.CacheDir, part, failed)
	return &E10Result{Trials: cfg.Trials, Seeds: cfg.Seeds, Execs: cfg.Execs, Reps: cfg.Reps, Subjects: subjects}, err
}

func e10Subject(ctx context.Context, cfg E10Config, s subject.Setup, sess *fuzzSession) (E10Subject, error) {
	es := E10Subject{Subject: s.Name, Unit: sess.unit}
	bounds := fuzz.Bounds{MaxDepth: cfg.MaxDepth}
	set, err := constraintsOf(s.Grammar, cfg.NoConstraints)
	if err != nil {
		return E10Subject{}, err
	}
	runner := &coverage.SessionRunner{Session: sess.Session, Timeout: cfg.Timeout}
	for rep := range cfg.Reps {
		seed := cfg.Seed + uint64(rep)*1000003
		if cfg.Progress != nil {
			cfg.Progress(fmt.Sprintf("E10 %s: candidates, repetition %d of %d", s.Name, rep+1, cfg.Reps))
		}
		cands, err := fuzz.BanditCandidates(ctx, s.Grammar, runner, cfg.Trials, seed, bounds)
		if err != nil {
			return E10Subject{}, err
		}
		cands, leftOut, err := satisfyingCandidates(s.Grammar, cands, bounds, set)
		if err != nil {
			return E10Subject{}, err
		}
		es.LeftOut += leftOut
		es.Candidates = append(es.Candidates, len(cands))
		var runs []E10Run
		for _, filter := range fuzz.Filters() {
			chosen, err := fuzz.SelectSeeds(cands, cfg.Seeds, filter, seed)
			if err != nil {
				return E10Subject{}, err
			}
			covered := map[int]bool{}
			for _, c := range chosen {
				r, err := runner.Run(ctx, c.Input)
				if err != nil {
					return E10Subject{}, err
				}
				for _, u := range sess.unitsOf(r) {
					covered[u] = true
				}
			}
			runs = append(runs, E10Run{Filter: filter, Rep: rep, Covered: len(covered), Reached: -1})
		}
		// One seedless campaign per repetition serves every filter: it
		// records when its coverage first reached each level.
		if cfg.Progress != nil {
			cfg.Progress(fmt.Sprintf("E10 %s: seedless fuzzing, repetition %d of %d", s.Name, rep+1, cfg.Reps))
		}
		c := newCoverageCurve(sess)
		obs := &observingRunner{SessionRunner: *runner, observe: c.observe}
		res, err := fuzz.Fuzz(ctx, s.Grammar, obs, fuzz.Options{Seed: seed, Execs: cfg.Execs, Domains: sess.zestDomains(), Bounds: bounds, Constraints: set})
		if err != nil {
			return E10Subject{}, err
		}
		es.Repaired, es.Dropped = es.Repaired+res.Repaired, es.Dropped+res.Dropped
		for i := range runs {
			for _, p := range c.curve {
				if p.Covered >= runs[i].Covered {
					runs[i].Reached = p.Execs
					break
				}
			}
		}
		es.Runs = append(es.Runs, runs...)
	}
	es.Rows = e10Rows(es.Runs)
	return es, nil
}

func e10Rows(runs []E10Run) []E10Row {
	var rows []E10Row
	for _, filter := range fuzz.Filters() {
		var covered, reached []float64
		caught := 0
		n := 0
		for _, r := range runs {
			if r.Filter != filter {
				continue
			}
			n++
			covered = append(covered, float64(r.Covered))
			if r.Reached >= 0 {
				caught++
				reached = append(reached, float64(r.Reached))
			}
		}
		row := E10Row{Filter: filter, Covered: Median(covered), CaughtUp: float64(caught) / float64(max(n, 1)), ExecsToMeet: -1}
		if len(reached) > 0 {
			row.ExecsToMeet = Median(reached)
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteE10 writes e10.json and e10.csv (every run).
func WriteE10(dir string, r *E10Result) ([]string, error) {
	header, rows := r.CSVTable()
	return writeJSONAndCSV(dir, "e10", r, header, rows)
}
