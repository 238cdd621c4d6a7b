package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
	"github.com/arbor-fuzz/arbor/targeting"
)

// TargetConfig configures the targeted-generation experiments E4 and E5.
type TargetConfig struct {
	E3Config              // training set, subject, grammar, work folder
	Model    *learn.Model // a trained model; nil trains one as E3 does
	Solve    synth.SolveOptions
	// Inputs is the number of inputs each trainable function asks
	// targeting for (and gets from the grammar-random generator, for E5's
	// comparison); 0 means 10.
	Inputs int
	// Budget is the most executions the targeting loop may spend on one
	// function, counting every run it makes; 0 means 100. Random
	// inputs are compared at the number of executions the loop spent.
	Budget int
	// Time bounds the loop per function; 0 means no limit.
	Time time.Duration
	// MaxGini is the most gini a leaf may have to make a constraint; 0
	// means learn.EveryLeaf.
	MaxGini float64
	// Offline generates Inputs inputs from the first tree's constraints
	// without running anything, as targeting did before the loop, and
	// charges one execution per input (to verify it). Its inputs are the
	// solver's (targeting.Offline), which the grammar's where clauses do
	// not reach; the loop's satisfy them unless NoConstraints.
	Offline bool
	// NoLearn runs the loop without refitting or mutating: it verifies
	// what the first tree proposes.
	NoLearn bool
	// BaseInputs is the size of the separate random sample on which each
	// function's random base rate is measured, and from which the random
	// side at equal executions is drawn; 0 means 1000.
	BaseInputs int
}

// RareLimit is the random base rate under which a function is rare
// (learn.RareRate): the functions a user needs targeting for.
const RareLimit = learn.RareRate

// Pair holds a measure for targeted and for grammar-random inputs.
type Pair struct {
	Targeted float64 `json:"targeted"`
	Random   float64 `json:"random"`
}

// TargetFunction is one function's share of E4/E5.
type TargetFunction struct {
	Function    string `json:"function"`
	Constraints int    `json:"constraints"` // of the first tree
	Unsolved    int    `json:"unsolved"`    // offline: constraints no input was found for
	Requested   int    `json:"requested"`
	// Targeted is the number of inputs targeting produced: those the loop
	// verified (or, offline, every solution).
	Targeted int `json:"targeted"`
	// TargetedHits are those that ran the function when recorded again
	// with the random inputs (E5's run).
	TargetedHits int `json:"targeted_hits"`
	Random       int `json:"random"`      // random inputs for E5: as many as requested
	RandomHits   int `json:"random_hits"` // of which ran the function
	// Executions the loop spent (offline: one per input), and the first
	// that ran the function (0: none).
	Executions int    `json:"executions"`
	FirstHit   int    `json:"first_hit"`
	Rounds     int    `json:"rounds,omitempty"`
	Stopped    string `json:"stopped,omitempty"`
	// With the grammar's constraints, the loop's inputs repaired before
	// they ran and dropped unrun (targeting.Pursuit.Repaired, Dropped).
	Repaired int `json:"repaired,omitempty"`
	Dropped  int `json:"dropped,omitempty"`
	// The random side at the same number of executions: hits among that
	// many inputs of the base sample, and the expected chance to reach
	// the function at least once, 1-(1-BaseRate)^Executions.
	RandomHitsAtExecutions int     `json:"random_hits_at_executions"`
	BaseRate               float64 `json:"base_rate"` // share of the base sample that ran it
	ExpectedRandomReach    float64 `json:"expected_random_reach"`
	TargetedCalls          float64 `json:"targeted_calls"`
	RandomCalls            float64 `json:"random_calls"`
}

// Reach is how many functions of a group targeted and random inputs
// reached, at equal executions.
type Reach struct {
	Functions int     `json:"functions"`
	Targeted  float64 `json:"targeted"`        // share reached by at least one targeted input
	Random    float64 `json:"random"`          // share reached by random inputs at the same executions
	Expected  float64 `json:"expected_random"` // mean of 1-(1-p)^E: random reach without sampling noise
}

// TargetResult is E4 and E5 together: they share their runs.
type TargetResult struct {
	Subject    string `json:"subject"`
	Mode       string `json:"mode"`      // "loop", "nolearn" or "offline"
	Functions  int    `json:"functions"` // trainable functions
	Requested  int    `json:"requested"` // inputs asked for per function
	Budget     int    `json:"budget"`    // executions per function at most
	BaseInputs int    `json:"base_inputs"`
	// Functions with at least one constraint in their first tree.
	WithConstraints int `json:"functions_with_constraints"`
	// E4. Absolute is the share of all trainable functions reached by
	// targeting, against random inputs at the same number of executions
	// per function (measured on the base sample), with ExpectedRandom
	// its expected value.
	Absolute       Pair    `json:"absolute"`
	ExpectedRandom float64 `json:"expected_random_absolute"`
	Rare           Reach   `json:"rare"` // functions with base rate < RareLimit
	// HitRate is the median over functions of the share of requested
	// inputs that targeting verified.
	HitRate float64 `json:"hit_rate_median"`
	// Relative is the median over functions of the share of the
	// requested inputs that ran them when recorded again (E5's run),
	// targeted against as many random inputs.
	Relative Pair `json:"relative"`
	// WorseThanRandom are the functions for which targeting verified
	// fewer inputs than its executions would have hit at random
	// (Executions × base rate, but no more than were asked for).
	WorseThanRandom []string `json:"worse_than_random"`
	Size            Pair     `json:"mean_size_bytes"`
	Executions      int      `json:"executions"`
	// Repaired and Dropped are the functions' sums of theirs.
	Repaired int `json:"repaired,omitempty"`
	Dropped  int `json:"dropped,omitempty"`
	// BaseUnrepaired and RandomUnrepaired count the inputs of the base
	// sample and of E5's random inputs that broke a grammar constraint
	// the search could not repair: they ran as they were.
	BaseUnrepaired   int `json:"base_unrepaired,omitempty"`
	RandomUnrepaired int `json:"random_unrepaired,omitempty"`
	// ExecutionsPerInput is all executions over all verified inputs.
	ExecutionsPerInput float64 `json:"executions_per_verified_input"`
	Seconds            float64 `json:"targeting_seconds"`
	// Solver (offline only)
	Constraints int     `json:"constraints"`
	Unsolved    int     `json:"unsolved"`
	SolveMedian float64 `json:"solve_median_ms,omitempty"`
	SolveP95    float64 `json:"solve_p95_ms,omitempty"`
	// E5
	CoveredPerInputMedian Pair             `json:"covered_per_input_median"`
	CoveredPerInputMean   Pair             `json:"covered_per_input_mean"`
	CoveredP              float64          `json:"covered_wilcoxon_p"`
	CoveredD              float64          `json:"covered_cohens_d"`
	CallsMean             Pair             `json:"target_calls_mean"`
	CallsP                float64          `json:"calls_wilcoxon_p"`
	CallsD                float64          `json:"calls_cohens_d"`
	PerFunction           []TargetFunction `json:"per_function"`
}

// Targeted runs E4 and E5 (docs/evaluation.md, with equal budgets, and the
// targeting loop of docs/targeting.md): every trainable function of the
// model asks targeting for Inputs inputs, which the loop pursues until
// that many verifiably run it or Budget executions are spent. The
// random side gets as many executions as the loop spent, function by
// function: that many inputs of a separate random sample (BaseInputs,
// on which each function's base rate is measured too), and the expected
// reach 1-(1-p)^executions. Reported: reach over all trainable
// functions and over rare ones, the median share of requested inputs
// verified, the functions where targeting hit less than random would
// at its executions, input sizes, executions per verified input; and for
// E5, the targeted inputs recorded again beside Inputs random inputs per
// function: functions covered per input and calls of the targeted
// function, with Wilcoxon signed-rank tests (paired by function) and
// Cohen's d.
//
// Unless NoConstraints, every random input and every input the loop runs
// satisfies the grammar's constraints (where clauses); the loop repairs
// or drops its own (TargetFunction.Repaired, Dropped).
func Targeted(ctx context.Context, cfg TargetConfig) (*TargetResult, error) {
	cfg.setDefaults()
	m := cfg.Model
	if m == nil {
		r, err := E3(ctx, cfg.E3Config)
		if err != nil {
			return nil, err
		}
		if m, err = learn.LoadModel(r.Model); err != nil {
			return nil, err
		}
	}
	t := &targetRun{cfg: cfg, e: cfg.E3Config, model: m, step: progressf(cfg.Progress)}
	if err := t.start(ctx); err != nil {
		return nil, err
	}
	if err := t.targetEach(ctx); err != nil {
		return nil, err
	}
	cov, err := t.recordAgain(ctx)
	if err != nil {
		return nil, err
	}
	t.compare(cov)
	return t.res, nil
}

// setDefaults fills in the zero fields that have defaults, E3's too.
func (cfg *TargetConfig) setDefaults() {
	cfg.E3Config.setDefaults()
	setDefault(&cfg.Inputs, 10)
	setDefault(&cfg.Budget, 100)
	setDefault(&cfg.BaseInputs, 1000)
	setDefault(&cfg.MaxGini, learn.EveryLeaf)
}

// targetRun is one run of Targeted: the inputs it made, targeted and
// random, and the result it fills in step by step.
type targetRun struct {
	cfg   TargetConfig
	e     E3Config // cfg.E3Config: the subject, grammar and work folder
	model *learn.Model
	step  func(format string, args ...any)
	dir   string // the targeted and random inputs, written to record them again
	bin   *coverage.Binary
	// base is the separate random sample, its records in order and each
	// function's base rate on it.
	base      *coverage.File
	baseOrder []*coverage.Record
	rates     map[string]float64
	inputs    []targetInput
	res       *TargetResult
	cons      *constraint.Set // the grammar's constraints, nil without any or with NoConstraints
}

// targetInput is an input Targeted made for function fn of the model:
// "targeted" or "random".
type targetInput struct {
	text string
	sha  string // hex sha256 of text, the key of its coverage record
	fn   int
	kind string
}

func newTargetInput(text string, fn int, kind string) targetInput {
	sum := sha256.Sum256([]byte(text))
	return targetInput{text, hex.EncodeToString(sum[:]), fn, kind}
}

// mode is how targeting runs: "loop", "offline" or "nolearn".
func (cfg *TargetConfig) mode() string {
	switch {
	case cfg.Offline:
		return "offline"
	case cfg.NoLearn:
		return "nolearn"
	}
	return "loop"
}

// start makes the work folder, builds the subject's harness and
// measures each function's base rate on BaseInputs random inputs (seed
// Seed+2).
func (t *targetRun) start(ctx context.Context) error {
	cfg, e := t.cfg, t.e
	t.dir = filepath.Join(e.WorkDir, "targeted")
	if err := os.MkdirAll(t.dir, 0o755); err != nil {
		return err
	}
	t.res = &TargetResult{Subject: e.Subject, Mode: cfg.mode(), Functions: len(t.model.Functions), Requested: cfg.Inputs, Budget: cfg.Budget,
		BaseInputs: cfg.BaseInputs, WorseThanRandom: []string{}}
	var err error
	if t.cons, err = constraintsOf(e.Grammar, e.NoConstraints); err != nil {
		return err
	}
	if t.bin, err = coverage.Build(ctx, e.Target, e.CacheDir); err != nil {
		return err
	}
	t.step("measuring base rates on %d separate random inputs", cfg.BaseInputs)
	base, err := generate(ctx, e, "base", cfg.BaseInputs, e.Seed+2)
	if err != nil {
		return err
	}
	t.res.BaseUnrepaired = base.unrepaired
	if t.base, err = recordFresh(ctx, t.bin, base.files, filepath.Join(e.WorkDir, "base.cov.jsonl"), e.Subject); err != nil {
		return err
	}
	t.rates = BaseRates(t.base)
	t.baseOrder = inputOrder(t.base)
	return nil
}

// targetEach targets every function of the model in turn, offline or
// with the loop (on one recording session), and makes as many random
// inputs for it, for E5.
func (t *targetRun) targetEach(ctx context.Context) error {
	cfg, e, m := t.cfg, t.e, t.model
	p, err := learn.NewPredictor(m, e.Grammar)
	if err != nil {
		return err
	}
	var session *coverage.Session
	if !cfg.Offline {
		if session, err = coverage.Start(t.bin, coverage.RunOptions{}); err != nil {
			return err
		}
		defer session.Close()
	}
	t.step("targeting each of %d functions: %d inputs, at most %d executions (%s)", len(m.Functions), cfg.Inputs, cfg.Budget, t.res.Mode)
	start := time.Now()
	var times []float64 // offline: solving times, in milliseconds
	// E5's grammar-random inputs, as many per function as requested,
	// come from one generator, as arbor generate makes inputs: its
	// constraint search learns across inputs (the sizes past repair, the
	// 2-paths its inputs hold), which a generator per function, seeded
	// per function, started afresh each time (on exprlang, the random
	// side drew and threw away 8 trees an input).
	random := newRandomInputs(e.Grammar, e.Seed+1000, e.MaxDepth, e.MaxRepeat, t.cons)
	for i := range m.Functions {
		if err := ctx.Err(); err != nil {
			return err
		}
		fn := &m.Functions[i]
		tf := TargetFunction{Function: fn.Name, Constraints: len(m.Constraints(fn, cfg.MaxGini)), Requested: cfg.Inputs, Random: cfg.Inputs,
			BaseRate: t.rates[fn.Name]}
		if cfg.Offline {
			times = append(times, t.offline(ctx, i, &tf)...)
		} else if err := t.pursue(ctx, p, session, i, &tf); err != nil {
			return err
		}
		tf.RandomHitsAtExecutions = hitsAmong(t.base, t.baseOrder, fn.Name, i*97, tf.Executions)
		for k := 0; k < tf.Random; k++ {
			t.inputs = append(t.inputs, newTargetInput(random.next(), i, "random"))
		}
		t.res.Constraints += tf.Constraints
		t.res.Unsolved += tf.Unsolved
		t.res.Repaired += tf.Repaired
		t.res.Dropped += tf.Dropped
		t.res.RandomUnrepaired = random.unrepaired
		t.res.PerFunction = append(t.res.PerFunction, tf)
		if (i+1)%10 == 0 || i+1 == len(m.Functions) {
			t.step("targeted %d of %d functions", i+1, len(m.Functions))
		}
	}
	t.res.Seconds = time.Since(start).Seconds()
	if session != nil {
		session.Close()
	}
	t.res.SolveMedian, t.res.SolveP95 = Median(times), Quantile(times, 0.95)
	return nil
}

// offline targets function i from its first tree's constraints without
// running anything, charging an execution per input, and returns the
// solving times in milliseconds.
func (t *targetRun) offline(ctx context.Context, i int, tf *TargetFunction) []float64 {
	cfg := t.cfg
	tr := targeting.Offline(ctx, t.e.Grammar, t.model, &t.model.Functions[i], cfg.Inputs, cfg.MaxGini, cfg.Solve)
	var times []float64
	for _, d := range tr.SolveTimes {
		times = append(times, float64(d.Microseconds())/1000)
	}
	tf.Unsolved = len(tr.Unsolved)
	tf.Targeted = len(tr.Inputs)
	tf.Executions = len(tr.Inputs)
	for _, in := range tr.Inputs {
		t.inputs = append(t.inputs, newTargetInput(in.Text, i, "targeted"))
	}
	return times
}

// pursue targets function i with the targeting loop on session.
func (t *targetRun) pursue(ctx context.Context, p *learn.Predictor, session *coverage.Session, i int, tf *TargetFunction) error {
	cfg := t.cfg
	// A fresh loop per function, so that each function's executions
	// are its own.
	loop, err := targeting.NewLoop(p, &coverage.SessionRunner{Session: session})
	if err != nil {
		return err
	}
	solve := cfg.Solve
	solve.Seed += uint64(i) * 104729
	pr, err := loop.Pursue(ctx, tf.Function, targeting.PursueOptions{Want: cfg.Inputs, Budget: cfg.Budget, Time: cfg.Time, MaxGini: cfg.MaxGini,
		Solve: solve, Seed: t.e.Seed + uint64(i), NoLearn: cfg.NoLearn, Constraints: t.cons})
	if err != nil {
		return err
	}
	tf.Targeted, tf.Executions, tf.FirstHit, tf.Rounds, tf.Stopped = len(pr.Inputs), pr.Executions, pr.FirstHit, pr.Rounds, pr.Stopped
	tf.Repaired, tf.Dropped = pr.Repaired, pr.Dropped
	for _, in := range pr.Inputs {
		t.inputs = append(t.inputs, newTargetInput(in.Text, i, "targeted"))
	}
	return nil
}

// recordAgain writes each distinct input once and records them all
// (E5's run).
func (t *targetRun) recordAgain(ctx context.Context) (*coverage.File, error) {
	files := map[string]string{} // sha256 -> file
	var list []string
	for _, in := range t.inputs {
		if _, ok := files[in.sha]; ok {
			continue
		}
		f := filepath.Join(t.dir, fmt.Sprintf("%06d", len(files)+1))
		if err := os.WriteFile(f, []byte(in.text), 0o644); err != nil {
			return nil, err
		}
		files[in.sha] = f
		list = append(list, f)
	}
	t.step("recording %d targeted and random inputs again (E5)", len(list))
	return recordFresh(ctx, t.bin, list, filepath.Join(t.e.WorkDir, "targeted.cov.jsonl"), t.e.Subject)
}

// compare counts, from the inputs recorded again, each function's hits
// and calls by targeted and by random inputs, and computes E4's and
// E5's figures.
func (t *targetRun) compare(cov *coverage.File) {
	res := t.res
	bySHA := map[string]*coverage.Record{}
	for i := range cov.Records {
		bySHA[cov.Records[i].SHA256] = &cov.Records[i]
	}
	index := map[string]int{}
	for i, n := range cov.Functions {
		index[n] = i
	}
	var sizes = map[string][]float64{}
	var coveredPer = map[string][]float64{}
	calls := make([]map[string][]float64, len(res.PerFunction))
	for i := range calls {
		calls[i] = map[string][]float64{}
	}
	for _, in := range t.inputs {
		rec := bySHA[in.sha]
		if rec == nil {
			continue
		}
		sizes[in.kind] = append(sizes[in.kind], float64(len(in.text)))
		coveredPer[in.kind] = append(coveredPer[in.kind], float64(len(rec.Covered)))
		calls[in.fn][in.kind] = append(calls[in.fn][in.kind], res.PerFunction[in.fn].hit(rec, index, in.kind))
	}
	var callT, callR []float64
	for i := range res.PerFunction {
		tf := &res.PerFunction[i]
		tf.TargetedCalls, tf.RandomCalls = Mean(calls[i]["targeted"]), Mean(calls[i]["random"])
		if tf.Targeted > 0 {
			callT = append(callT, tf.TargetedCalls)
			callR = append(callR, tf.RandomCalls)
		}
		if t.cfg.Offline {
			tf.Targeted = tf.TargetedHits // offline targeting is verified only here
		}
	}
	res.summarize()
	res.Size = Pair{Mean(sizes["targeted"]), Mean(sizes["random"])}
	res.CoveredPerInputMedian = Pair{Median(coveredPer["targeted"]), Median(coveredPer["random"])}
	res.CoveredPerInputMean = Pair{Mean(coveredPer["targeted"]), Mean(coveredPer["random"])}
	// Covered functions per input, paired by function: each function's
	// mean over its targeted inputs against its random inputs.
	covT, covR := perFunctionMeans(inputsByFunction(len(res.PerFunction), func(yield func(fn int, kind string, v float64)) {
		for _, in := range t.inputs {
			if rec := bySHA[in.sha]; rec != nil {
				yield(in.fn, in.kind, float64(len(rec.Covered)))
			}
		}
	}))
	_, res.CoveredP, _ = Wilcoxon(covT, covR)
	res.CoveredD = CohensD(covT, covR)
	res.CallsMean = Pair{Mean(callT), Mean(callR)}
	_, res.CallsP, _ = Wilcoxon(callT, callR)
	res.CallsD = CohensD(callT, callR)
}

// hit counts an input of the given kind made for the function that ran
// it, and returns how often it called the function (0: not at all; 1
// where the record has no counts).
func (tf *TargetFunction) hit(rec *coverage.Record, index map[string]int, kind string) float64 {
	id, ok := index[tf.Function]
	if !ok {
		return 0
	}
	k := slices.Index(rec.Covered, id)
	if k < 0 {
		return 0
	}
	if kind == "targeted" {
		tf.TargetedHits++
	} else {
		tf.RandomHits++
	}
	if k < len(rec.Counts) {
		return float64(rec.Counts[k])
	}
	return 1
}

// inputOrder lists a coverage file's usable records (not cut short by a
// panic or a timeout) in the order of their input names.
func inputOrder(f *coverage.File) []*coverage.Record {
	var out []*coverage.Record
	for i := range f.Records {
		if r := &f.Records[i]; r.Outcome != coverage.Panic && r.Outcome != coverage.Timeout {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *coverage.Record) int { return strings.Compare(a.Input, b.Input) })
	return out
}

// hitsAmong counts the records that ran function name among n
// consecutive records of order from offset on (wrapping around).
func hitsAmong(f *coverage.File, order []*coverage.Record, name string, offset, n int) int {
	id := slices.Index(f.Functions, name)
	if id < 0 || len(order) == 0 {
		return 0
	}
	hits := 0
	for k := range n {
		if slices.Contains(order[(offset+k)%len(order)].Covered, id) {
			hits++
		}
	}
	return hits
}

// BaseRates is, per function, the share of a coverage file's inputs that
// ran it (inputs that panicked or timed out left out).
func BaseRates(f *coverage.File) map[string]float64 {
	counts := make([]int, len(f.Functions))
	n := 0
	for _, r := range f.Records {
		if r.Outcome == coverage.Panic || r.Outcome == coverage.Timeout {
			continue
		}
		n++
		for _, id := range r.Covered {
			if id >= 0 && id < len(counts) {
				counts[id]++
			}
		}
	}
	out := make(map[string]float64, len(f.Functions))
	for i, name := range f.Functions {
		out[name] = ratio(counts[i], n, 0)
	}
	return out
}

// summarize computes E4's figures from the per-function counts: reach
// at equal executions over all and over rare functions, the median hit
// rate, the functions where targeting did worse than random, and the
// executions per verified input.
func (res *TargetResult) summarize() {
	var relT, relR, rates []float64
	var rare []TargetFunction
	res.WithConstraints, res.Executions = 0, 0
	res.WorseThanRandom = res.WorseThanRandom[:0]
	verified := 0
	for i := range res.PerFunction {
		tf := &res.PerFunction[i]
		tf.ExpectedRandomReach = 1 - math.Pow(1-tf.BaseRate, float64(tf.Executions))
		relT = append(relT, ratio(tf.TargetedHits, tf.Random, 0))
		relR = append(relR, ratio(tf.RandomHits, tf.Random, 0))
		rates = append(rates, ratio(min(tf.Targeted, tf.Requested), tf.Requested, 0))
		res.Executions += tf.Executions
		verified += tf.Targeted
		if tf.Constraints > 0 {
			res.WithConstraints++
		}
		// Random is held to the same request: at the loop's executions it
		// is expected to hit Executions × p times, but it too would have
		// stopped at the number asked for.
		if float64(tf.Targeted) < min(float64(tf.Requested), float64(tf.Executions)*tf.BaseRate) {
			res.WorseThanRandom = append(res.WorseThanRandom, tf.Function)
		}
		if tf.BaseRate < RareLimit {
			rare = append(rare, *tf)
		}
	}
	res.Relative = Pair{Median(relT), Median(relR)}
	res.HitRate = Median(rates)
	all := reach(res.PerFunction)
	res.Absolute = Pair{all.Targeted, all.Random}
	res.ExpectedRandom = all.Expected
	res.Rare = reach(rare)
	res.ExecutionsPerInput = ratio(res.Executions, verified, 0)
}

func reach(fs []TargetFunction) Reach {
	r := Reach{Functions: len(fs)}
	if len(fs) == 0 {
		return r
	}
	for _, tf := range fs {
		r.Targeted += boolf(tf.Targeted > 0)
		r.Random += boolf(tf.RandomHitsAtExecutions > 0)
		r.Expected += tf.ExpectedRandomReach
	}
	n := float64(len(fs))
	r.Targeted, r.Random, r.Expected = r.Targeted/n, r.Random/n, r.Expected/n
	return r
}

// inputsByFunction groups values by function and kind.
func inputsByFunction(n int, each func(yield func(fn int, kind string, v float64))) []map[string][]float64 {
	out := make([]map[string][]float64, n)
	for i := range out {
		out[i] = map[string][]float64{}
	}
	each(func(fn int, kind string, v float64) { out[fn][kind] = append(out[fn][kind], v) })
	return out
}

// perFunctionMeans pairs, for functions with both kinds of inputs, the
// mean over targeted inputs with the mean over random ones.
func perFunctionMeans(groups []map[string][]float64) (targeted, random []float64) {
	for _, g := range groups {
		if len(g["targeted"]) > 0 && len(g["random"]) > 0 {
			targeted = append(targeted, Mean(g["targeted"]))
			random = append(random, Mean(g["random"]))
		}
	}
	return targeted, random
}
