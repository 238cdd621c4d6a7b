package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// E7 methods.
const (
	E7Random    = "random"     // grammar-random inputs, no feedback
	E7RL        = "rl"         // the bandit generator (rlcheck's improved guide), rewarded by validity
	E7Zest      = "zest"       // fuzz.Fuzz with coverage and valid-coverage domains
	E7ZestFresh = "zest-fresh" // the same with E7Config.Fresh of executions given to fresh random inputs
	E7GoFuzz    = "gofuzz"     // go test -fuzz on the grammar-aware fuzz target (synth.ByteGenerator)
	E7Bonsai    = "bonsai"     // fuzz.Bonsai: a lattice of bounded campaigns sharing the time, the top one's corpus kept
)

// E7Methods are E7's methods, in the order they are run and reported.
var E7Methods = []string{E7Random, E7RL, E7Zest, E7ZestFresh, E7Bonsai, E7GoFuzz}

// E7DefaultMethods are the methods E7 runs when E7Config.Methods is
// empty.
var E7DefaultMethods = []string{E7Random, E7RL, E7Zest, E7ZestFresh, E7GoFuzz}

// E7QuickMethods are eval all's quick preset's: gofuzz builds a fuzz test
// per subject (about a second with a warm build cache, up to a minute
// with a cold one), and in the preset's half-second runs Go's fuzzer does
// little more than start its worker.
var E7QuickMethods = []string{E7Random, E7RL, E7Zest, E7ZestFresh}

// E7Config configures E7.
type E7Config struct {
	Subjects []subject.Setup
	Time     time.Duration // per run (0 means 30 seconds)
	Reps     int           // runs per method and subject (0 means 10)
	Seed     uint64
	MaxDepth int           // the generators' depth bound (0 means synth's default)
	Timeout  time.Duration // per input (0 means a second)
	// Methods are the methods to run, of E7Methods (empty means
	// E7DefaultMethods); they run and are reported in E7Methods' order.
	Methods []string
	// Fresh is zest-fresh's share of executions given to fresh random
	// inputs (fuzz.Options.Fresh, in [0, 1); 0 means 0.25).
	Fresh float64
	// NoConstraints runs every method without the grammar's constraints
	// (where clauses); by default every input they run satisfies them
	// (zest's are repaired or dropped, E7Run.Repaired, Dropped; gofuzz's
	// generator repairs each tree its bytes decide, the same way for the
	// same bytes).
	NoConstraints bool
	// ArborDir is arbor's source (the module's root folder), which
	// gofuzz's fuzz test imports; empty means the checkout this binary was
	// built from, if it is still there.
	ArborDir string
	CacheDir string
	Progress func(string)
	// Checkpoint, if set, is called after every run with the results so
	// far (subjects done, and the current one's runs), so that a long
	// campaign's results can be written as they come; an error stops E7.
	Checkpoint func(*E7Result) error
	// Shard and Shards run only shard Shard (1-based) of Shards of the
	// campaign, so that it can be spread over processes or machines and
	// MergeE7 joins the shards' results. The unit is a repetition of a
	// subject, all its methods together: pair k (subjects in order, then
	// repetitions) is the shard's when k mod Shards is Shard-1. Methods
	// are compared within a repetition, so a machine faster than another
	// favours none of them. 0 means 1/1.
	Shard, Shards int
	// Done is the result of an earlier, interrupted run of the same
	// campaign (its e7.json, read with ReadE7): the runs it finished are
	// kept as they are and not run again. Its settings must be cfg's.
	Done *E7Result
}

// setDefaults fills in the fields that have defaults.
func (cfg *E7Config) setDefaults() {
	setPositive(&cfg.Time, 30*time.Second)
	setPositive(&cfg.Reps, 10)
	setDefault(&cfg.Fresh, DefaultE7Fresh)
	fuzzDefaults(&cfg.Timeout, &cfg.MaxDepth)
}

// DefaultE7Fresh is zest-fresh's share of fresh inputs by default.
const DefaultE7Fresh = 0.25

// e7Methods resolves E7Config.Methods: known names, each once, in
// E7Methods' order.
func e7Methods(names []string) ([]string, error) {
	if len(names) == 0 {
		return E7DefaultMethods, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		if !slices.Contains(E7Methods, n) {
			return nil, fmt.Errorf("E7 has no method %q (methods: %s)", n, strings.Join(E7Methods, ", "))
		}
		want[n] = true
	}
	var out []string
	for _, m := range E7Methods {
		if want[m] {
			out = append(out, m)
		}
	}
	return out, nil
}

// E7Point is a run's state at some time. Coverage counts the subject's
// basic blocks where its session records them (Go programs), else its
// functions (E7Subject.Unit).
type E7Point struct {
	Seconds      float64 `json:"seconds"`
	Execs        int     `json:"executions"`
	Covered      int     `json:"covered"`       // units any input ran
	ValidCovered int     `json:"valid_covered"` // units accepted inputs ran
}

// E7Run is one method's run on a subject.
type E7Run struct {
	Method string    `json:"method"`
	Rep    int       `json:"rep"`
	Final  E7Point   `json:"final"`
	Curve  []E7Point `json:"curve"`
	// Corpus is, for gofuzz, the inputs measured: the seed and what Go's
	// fuzzer kept.
	Corpus int `json:"corpus,omitempty"`
	// Note says what went unusually (gofuzz: Go's fuzzer failed, and was
	// started again or stopped early).
	Note string `json:"note,omitempty"`
	// Failure is, for a gofuzz run where Go's fuzzer failed, the first
	// failure; Failures counts them, and Restarts the times Go's fuzzer
	// was started again after one, for the time left. Stopped says it
	// stopped early at a failure, with time left it did not fuzz for: such
	// a run is not whole, and E7Row leaves it out.
	Failure  *E7Failure `json:"failure,omitempty"`
	Failures int        `json:"failures,omitempty"`
	Restarts int        `json:"restarts,omitempty"`
	Stopped  bool       `json:"stopped,omitempty"`
	// With the grammar's constraints, zest's inputs repaired before they
	// ran and dropped unrun (fuzz.Stats.Repaired, Dropped).
	Repaired int `json:"repaired,omitempty"`
	Dropped  int `json:"dropped,omitempty"`
	// Unrepaired counts random's and rl's inputs that broke a constraint
	// the search could not repair, and ran as they were.
	Unrepaired int `json:"unrepaired,omitempty"`
}

// E7Failure is a failure Go's fuzzer stopped at in a gofuzz run: the
// failing input, realized from its bytes as the fuzz target does, and
// what the fuzzer printed about it.
type E7Failure struct {
	Seconds float64 `json:"seconds"`
	Input   string  `json:"input"`
	Message string  `json:"message"`
}

// E7Row summarizes a method on a subject: medians over its whole runs
// (a run Go's fuzzer stopped early at a failure is left out, unless no
// run is whole), and the two-sided Mann–Whitney U tests of its final
// valid coverage against Zest's and against random generation's (nil for
// the method itself, and when that method did not run).
type E7Row struct {
	Method  string `json:"method"`
	Runs    int    `json:"runs"`              // the runs the medians are over
	Stopped int    `json:"stopped,omitempty"` // runs stopped early at a failure (left out if any run is whole)
	// Restarted counts the runs of the medians in which Go's fuzzer was
	// started again after a failure.
	Restarted    int      `json:"restarted,omitempty"`
	Execs        float64  `json:"executions"`
	Covered      float64  `json:"covered"`
	ValidCovered float64  `json:"valid_covered"`
	PvsZest      *float64 `json:"p_vs_zest,omitempty"`
	PvsRandom    *float64 `json:"p_vs_random,omitempty"`
	// LastGain is the median of what the runs' valid coverage grew in
	// the last tenth of their time: above 0, coverage was still rising
	// when the budget ran out.
	LastGain float64 `json:"valid_gain_last_tenth"`
}

// E7Subject is E7 on one subject.
type E7Subject struct {
	Subject string  `json:"subject"`
	Unit    string  `json:"unit"`  // "blocks" or "functions"
	Units   int     `json:"units"` // how many the subject has
	Rows    []E7Row `json:"rows"`
	Runs    []E7Run `json:"runs"`
	// Skipped are the methods that do not apply to the subject, and why
	// (gofuzz on a subject that is no Go function, or without the go
	// command or arbor's source).
	Skipped []E7Skip `json:"skipped,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// E7Skip is a method E7 did not run on a subject, and why.
type E7Skip struct {
	Method string `json:"method"`
	Reason string `json:"reason"`
}

// E7Result is E7 on every subject.
type E7Result struct {
	Seconds float64  `json:"seconds_per_run"`
	Reps    int      `json:"reps"`
	Methods []string `json:"methods"`
	Fresh   float64  `json:"fresh,omitempty"` // zest-fresh's share of fresh inputs, when it ran
	// The campaign's other settings, which a resumed or merged run must
	// share, and its whole list of subjects; Shard ("i/n") says which
	// shard of it this is, if one.
	Seed          uint64      `json:"seed"`
	MaxDepth      int         `json:"max_depth"`
	TimeoutMS     int64       `json:"timeout_ms"`
	NoConstraints bool        `json:"no_constraints,omitempty"`
	All           []string    `json:"all_subjects"`
	Shard         string      `json:"shard,omitempty"`
	Subjects      []E7Subject `json:"subjects"`
}

// E7 measures coverage over time (docs/evaluation.md): on each subject,
// the methods (grammar-random generation, the bandit generator,
// Zest-style fuzzing with and without fresh inputs, Go's fuzzer on the
// grammar-aware fuzz target) each run for the same wall time, Reps times,
// on one recording session, which measures them all. Coverage is the
// units of the subject any input ran, and those that accepted inputs ran
// (Zest's semantic coverage). A subject that cannot be run is reported
// with its error and the others go on; a method that does not apply to a
// subject is skipped with its reason.
func E7(ctx context.Context, cfg E7Config) (*E7Result, error) {
	cfg.setDefaults()
	if cfg.Fresh < 0 || cfg.Fresh >= 1 {
		return nil, fmt.Errorf("E7: the share of fresh inputs must be in [0, 1), not %v", cfg.Fresh)
	}
	methods, err := e7Methods(cfg.Methods)
	if err != nil {
		return nil, err
	}
	cfg.Methods = methods
	res := &E7Result{Seconds: cfg.Time.Seconds(), Reps: cfg.Reps, Methods: methods, Seed: cfg.Seed, MaxDepth: cfg.MaxDepth,
		TimeoutMS: cfg.Timeout.Milliseconds(), NoConstraints: cfg.NoConstraints, Subjects: []E7Subject{}}
	if slices.Contains(methods, E7ZestFresh) {
		res.Fresh = cfg.Fresh
	}
	for _, s := range cfg.Subjects {
		res.All = append(res.All, s.Name)
	}
	if dup := duplicate(res.All); dup != "" {
		return nil, fmt.Errorf("E7: subject %s is named twice", dup)
	}
	if cfg.Shard, cfg.Shards, res.Shard, err = shardOf(cfg.Shard, cfg.Shards); err != nil {
		return nil, fmt.Errorf("E7: %w", err)
	}
	if cfg.Done != nil {
		if err := sameCampaign(res, cfg.Done); err != nil {
			return nil, fmt.Errorf("E7: the results to resume are of another campaign: %w", err)
		}
		if cfg.Done.Shard != res.Shard {
			return nil, fmt.Errorf("E7: the results to resume are of shard %q, not %q", cfg.Done.Shard, res.Shard)
		}
	}
	// The shard's subjects: those with a repetition of its own.
	var subjects []subject.Setup
	for i, s := range cfg.Subjects {
		for rep := range cfg.Reps {
			if cfg.mine(i, rep) {
				subjects = append(subjects, s)
				break
			}
		}
	}
	// checkpoint hands cfg.Checkpoint the subjects done and cur.
	checkpoint := func(cur *E7Subject) error {
		if cfg.Checkpoint == nil {
			return nil
		}
		partial := *res
		partial.Subjects = slices.Clone(res.Subjects)
		if cur != nil {
			partial.Subjects = append(partial.Subjects, *cur)
		}
		return cfg.Checkpoint(&partial)
	}
	part := func(s subject.Setup, sess *fuzzSession) (E7Subject, error) {
		es, err := e7Subject(ctx, cfg, slices.Index(res.All, s.Name), s, sess, checkpoint)
		if err == nil {
			res.Subjects = append(res.Subjects, es)
		}
		return es, err
	}
	failed := func(name string, err error) E7Subject {
		es := E7Subject{Subject: name, Error: err.Error()}
		res.Subjects = append(res.Subjects, es)
		return es
	}
	// part and failed keep res.Subjects, which eachSubject's own list
	// repeats.
	_, err = eachSubject(ctx, subjects, cfg.CacheDir, part, failed)
	if err == nil {
		err = checkpoint(nil)
	}
	return res, err
}

// mine reports whether repetition rep of the subject at index i of the
// campaign's list is the shard's to run.
func (cfg *E7Config) mine(i, rep int) bool {
	return (i*cfg.Reps+rep)%cfg.Shards == cfg.Shard-1
}

// e7Key names a run of a subject.
type e7Key struct {
	method string
	rep    int
}

func e7Subject(ctx context.Context, cfg E7Config, index int, s subject.Setup, sess *fuzzSession, checkpoint func(*E7Subject) error) (E7Subject, error) {
	es := E7Subject{Subject: s.Name, Unit: sess.unit, Units: sess.units}
	set, err := constraintsOf(s.Grammar, cfg.NoConstraints)
	if err != nil {
		return E7Subject{}, err
	}
	// Every run's process is warmed up with the same input.
	start, err := fuzz.WarmInput(ctx, s.Grammar, set, cfg.MaxDepth, cfg.Seed)
	if err != nil {
		return E7Subject{}, err
	}
	methods := cfg.Methods
	// The runs an earlier run of the campaign finished, and whether Go's
	// fuzzer has runs left to make (its fuzz test takes a while to build).
	done := map[e7Key]E7Run{}
	var doneSkip []E7Skip
	if cfg.Done != nil {
		for _, d := range cfg.Done.Subjects {
			if d.Subject != s.Name {
				continue
			}
			for _, r := range d.Runs {
				done[e7Key{r.Method, r.Rep}] = r
			}
			doneSkip = d.Skipped
		}
	}
	goFuzzLeft := false
	for rep := range cfg.Reps {
		if _, ok := done[e7Key{E7GoFuzz, rep}]; cfg.mine(index, rep) && !ok {
			goFuzzLeft = true
		}
	}
	if i := slices.IndexFunc(doneSkip, func(sk E7Skip) bool { return sk.Method == E7GoFuzz }); i >= 0 && slices.Contains(methods, E7GoFuzz) {
		es.Skipped = append(es.Skipped, doneSkip[i])
		methods = slices.DeleteFunc(slices.Clone(methods), func(m string) bool { return m == E7GoFuzz })
	}
	var gofuzz *goFuzzTarget
	if slices.Contains(methods, E7GoFuzz) && goFuzzLeft {
		if cfg.Progress != nil {
			cfg.Progress(fmt.Sprintf("E7 %s: gofuzz, building the fuzz test", s.Name))
		}
		g, skip, err := buildGoFuzz(ctx, cfg, s)
		if err != nil {
			return E7Subject{}, fmt.Errorf("%s: %w", E7GoFuzz, err)
		}
		if skip != "" {
			es.Skipped = append(es.Skipped, E7Skip{Method: E7GoFuzz, Reason: skip})
			methods = slices.DeleteFunc(slices.Clone(methods), func(m string) bool { return m == E7GoFuzz })
		} else {
			gofuzz = g
			defer g.close()
		}
	}
	for rep := range cfg.Reps {
		if !cfg.mine(index, rep) {
			continue
		}
		seed := cfg.Seed + uint64(rep)*1000003
		for _, method := range methods {
			if run, ok := done[e7Key{method, rep}]; ok {
				es.Runs = append(es.Runs, run)
				es.Rows = e7Rows(es.Runs)
				continue
			}
			if cfg.Progress != nil {
				cfg.Progress(fmt.Sprintf("E7 %s: %s, repetition %d of %d", s.Name, method, rep+1, cfg.Reps))
			}
			// Every run starts in a fresh process of the subject, warmed
			// up with the same input before the run's clock starts, so
			// that no run is credited with the work a process does only
			// once (type caches, lazy tables, an environment built on
			// the first call). Sharing one warm process credited it to
			// whichever run came first; a cold process per run credited
			// it to each run's first input, and where that input was
			// rejected the run lost those blocks from its valid
			// coverage (a cel run: 445 blocks). fuzz.WarmUp warms the
			// processes started after a crash or a timeout within the
			// run too. The session is this subject's alone.
			sess.Close()
			if err := fuzz.WarmUp(ctx, start, cfg.Timeout, sess.Session); err != nil {
				return E7Subject{}, fmt.Errorf("%s: %w", method, err)
			}
			var run E7Run
			var err error
			switch method {
			case E7Zest:
				run, err = e7Zest(ctx, cfg, s, sess, seed, 0, set)
			case E7ZestFresh:
				run, err = e7Zest(ctx, cfg, s, sess, seed, cfg.Fresh, set)
			case E7Bonsai:
				run, err = e7Bonsai(ctx, cfg, s, sess, seed, set)
			case E7GoFuzz:
				// Go's fuzzer drives synth.ByteGenerator, which repairs
				// the tree its bytes decide unless cfg.NoConstraints.
				run, err = gofuzz.run(ctx, cfg, sess)
			default:
				run, err = e7Generate(ctx, cfg, s, sess, seed, method == E7RL, set)
			}
			if err != nil {
				return E7Subject{}, fmt.Errorf("%s: %w", method, err)
			}
			run.Method, run.Rep = method, rep
			es.Runs = append(es.Runs, run)
			es.Rows = e7Rows(es.Runs)
			if err := checkpoint(&es); err != nil {
				return E7Subject{}, err
			}
		}
	}
	return es, nil
}

// coverageCurve folds runs' coverage into a curve: a point whenever
// either coverage grows.
type coverageCurve struct {
	sess          *fuzzSession
	start         time.Time
	execs         int
	covered, good map[int]bool
	curve         []E7Point
}

func newCoverageCurve(sess *fuzzSession) *coverageCurve {
	return &coverageCurve{sess: sess, start: time.Now(), covered: map[int]bool{}, good: map[int]bool{}}
}

func (c *coverageCurve) observe(r *coverage.Result) {
	c.execs++
	if c.grow(r) {
		c.curve = append(c.curve, c.point())
	}
}

// grow adds what a run ran to the coverage, and to the valid coverage if
// the subject accepted the input; it reports whether either grew.
func (c *coverageCurve) grow(r *coverage.Result) bool {
	grew := false
	for _, f := range c.sess.unitsOf(r) {
		if !c.covered[f] {
			c.covered[f], grew = true, true
		}
		if r.Outcome == coverage.OK && !c.good[f] {
			c.good[f], grew = true, true
		}
	}
	return grew
}

func (c *coverageCurve) point() E7Point {
	return E7Point{Seconds: time.Since(c.start).Seconds(), Execs: c.execs, Covered: len(c.covered), ValidCovered: len(c.good)}
}

func (c *coverageCurve) run() E7Run {
	final := c.point()
	return E7Run{Final: final, Curve: append(c.curve, final)}
}

// e7Generate runs grammar-random generation or, with rl, the bandit
// generator rewarded by the subject's validity, for cfg.Time, its inputs
// satisfying set's constraints (nil: none).
func e7Generate(ctx context.Context, cfg E7Config, s subject.Setup, sess *fuzzSession, seed uint64, rl bool, set *constraint.Set) (E7Run, error) {
	var guide *synth.Guide
	if rl {
		guide = synth.NewImprovedGuide(seed)
	}
	c := newCoverageCurve(sess)
	gen, unrepaired := synth.ConstrainedGenerator(s.Grammar, guide, synth.TreeState, seed, cfg.MaxDepth, set)
	oracle := &subject.SessionOracle{Session: sess.Session, Timeout: cfg.Timeout, Observe: c.observe}
	res, err := synth.Check(ctx, gen, guide, oracle, synth.CheckOptions{Duration: cfg.Time})
	if err != nil {
		return E7Run{}, err
	}
	run := c.run()
	run.Unrepaired = unrepaired(res.Trials)
	return run, nil
}

// e7Zest fuzzes for cfg.Time with Zest's domains, over the unit E7
// measures, giving a share fresh of executions to fresh random inputs,
// under set's constraints (nil: none).
func e7Zest(ctx context.Context, cfg E7Config, s subject.Setup, sess *fuzzSession, seed uint64, fresh float64, set *constraint.Set) (E7Run, error) {
	c := newCoverageCurve(sess)
	runner := &observingRunner{SessionRunner: coverage.SessionRunner{Session: sess.Session, Timeout: cfg.Timeout}, observe: c.observe}
	res, err := fuzz.Fuzz(ctx, s.Grammar, runner, fuzz.Options{Seed: seed, Time: cfg.Time, Domains: sess.zestDomains(), Bounds: fuzz.Bounds{MaxDepth: cfg.MaxDepth},
		Fresh: fresh, Constraints: set})
	if err != nil {
		return E7Run{}, err
	}
	run := c.run()
	run.Repaired, run.Dropped = res.Repaired, res.Dropped
	return run, nil
}

// e7Bonsai runs Bonsai's lattice of bounded campaigns for cfg.Time in
// all, with Zest's domains over the unit E7 measures, the lattice's top
// at the generators' depth bound, under set's constraints (nil: none).
func e7Bonsai(ctx context.Context, cfg E7Config, s subject.Setup, sess *fuzzSession, seed uint64, set *constraint.Set) (E7Run, error) {
	c := newCoverageCurve(sess)
	runner := &observingRunner{SessionRunner: coverage.SessionRunner{Session: sess.Session, Timeout: cfg.Timeout}, observe: c.observe}
	res, err := fuzz.Bonsai(ctx, s.Grammar, runner, fuzz.BonsaiOptions{
		Options:    fuzz.Options{Seed: seed, Time: cfg.Time, Bounds: fuzz.TopBounds(fuzz.Bounds{MaxDepth: cfg.MaxDepth}), Constraints: set},
		NewDomains: sess.zestDomains,
	})
	if err != nil {
		return E7Run{}, err
	}
	run := c.run()
	for _, st := range res.Steps {
		run.Repaired, run.Dropped = run.Repaired+st.Stats.Repaired, run.Dropped+st.Stats.Dropped
	}
	return run, nil
}

// observingRunner tells observe of every run, as subject.SessionOracle.Observe
// does for the generators, so that all methods are measured alike.
type observingRunner struct {
	coverage.SessionRunner
	observe func(*coverage.Result)
}

func (r *observingRunner) Run(ctx context.Context, input []byte) (*coverage.Result, error) {
	res, err := r.SessionRunner.Run(ctx, input)
	if err == nil {
		r.observe(res)
	}
	return res, err
}

func e7Rows(runs []E7Run) []E7Row {
	all := groupBy(runs, func(r E7Run) string { return r.Method })
	by := map[string][]E7Run{}
	for m, rs := range all {
		whole := slices.DeleteFunc(slices.Clone(rs), func(r E7Run) bool { return r.Stopped })
		if len(whole) == 0 {
			whole = rs
		}
		by[m] = whole
	}
	final := func(rs []E7Run, f func(E7Point) int) []float64 {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = float64(f(r.Final))
		}
		return xs
	}
	valid := func(p E7Point) int { return p.ValidCovered }
	zest, random := final(by[E7Zest], valid), final(by[E7Random], valid)
	var rows []E7Row
	for _, m := range E7Methods {
		rs := by[m]
		if len(rs) == 0 {
			continue
		}
		stopped := 0
		for _, r := range all[m] {
			if r.Stopped {
				stopped++
			}
		}
		restarted := 0
		for _, r := range rs {
			if r.Restarts > 0 {
				restarted++
			}
		}
		gains := make([]float64, len(rs))
		for i, r := range rs {
			gains[i] = float64(r.Final.ValidCovered - validAt(r, 0.9*r.Final.Seconds))
		}
		row := E7Row{Method: m, Runs: len(rs), Stopped: stopped, Restarted: restarted,
			Execs:        Median(final(rs, func(p E7Point) int { return p.Execs })),
			Covered:      Median(final(rs, func(p E7Point) int { return p.Covered })),
			ValidCovered: Median(final(rs, valid)),
			LastGain:     Median(gains),
		}
		if m != E7Zest && len(zest) > 0 {
			_, p := MannWhitney(final(rs, valid), zest)
			row.PvsZest = &p
		}
		if m != E7Random && len(random) > 0 {
			_, p := MannWhitney(final(rs, valid), random)
			row.PvsRandom = &p
		}
		rows = append(rows, row)
	}
	return rows
}

// validAt is a run's valid coverage at a time: that of its last curve
// point at or before it (the curve has a point whenever coverage grew).
func validAt(r E7Run, seconds float64) int {
	v := 0
	for _, p := range r.Curve {
		if p.Seconds > seconds {
			break
		}
		v = p.ValidCovered
	}
	return v
}

// WriteE7 writes e7.json, e7.csv (every run's final state), e7-curves.csv
// and an SVG per subject of the median valid coverage over time.
func WriteE7(dir string, r *E7Result) ([]string, error) {
	header, rows := r.CSVTable()
	files, err := writeJSONAndCSV(dir, "e7", r, header, rows)
	if err != nil {
		return nil, err
	}
	base := filepath.Join(dir, "e7")
	header, curves := r.CurveTable()
	if err := writeCSV(base+"-curves.csv", header, curves); err != nil {
		return nil, err
	}
	files = append(files, base+"-curves.csv")
	for _, s := range r.Subjects {
		if len(s.Runs) == 0 {
			continue
		}
		path := fmt.Sprintf("%s-%s.svg", base, s.Subject)
		if err := plotE7(path, s, r.Seconds); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// plotE7 draws each method's median valid coverage over time, on a grid
// of 50 instants.
func plotE7(path string, s E7Subject, seconds float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("E7 %s: %s run by accepted inputs (median of repetitions)", s.Subject, s.Unit)
	p.X.Label.Text = "seconds"
	p.Y.Label.Text = s.Unit
	var lines []any
	for _, m := range E7Methods {
		var runs []E7Run
		for _, r := range s.Runs {
			if r.Method == m {
				runs = append(runs, r)
			}
		}
		if len(runs) == 0 {
			continue
		}
		const steps = 50
		pts := make(plotter.XYs, steps+1)
		for i := range pts {
			t := seconds * float64(i) / steps
			vals := make([]float64, len(runs))
			for j, r := range runs {
				vals[j] = float64(valueAt(r.Curve, t))
			}
			pts[i] = plotter.XY{X: t, Y: Median(vals)}
		}
		lines = append(lines, m, pts)
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return err
	}
	p.Legend.Top, p.Legend.Left = false, false
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

// valueAt is a curve's valid coverage at time t: its last point at or
// before t.
func valueAt(curve []E7Point, t float64) int {
	i := sort.Search(len(curve), func(i int) bool { return curve[i].Seconds > t })
	if i == 0 {
		return 0
	}
	return curve[i-1].ValidCovered
}
