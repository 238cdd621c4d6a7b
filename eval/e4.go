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

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// TargetConfig configures the targeted-generation experiments E4 and E5.
type TargetConfig struct {
	E3Config              // training set, subject, grammar, work folder
	Model    *learn.Model // a trained model; nil trains one as E3 does
	Solve    synth.SolveOptions
	// Budget is the number of inputs each trainable function gets, from
	// targeted generation and from the grammar-random generator alike;
	// 0 means 10. Targeting may produce fewer; the shortfall counts
	// against it.
	Budget int
	// BaseInputs is the size of the separate random sample on which each
	// function's random base rate is measured; 0 means 1000.
	BaseInputs int
}

// RareLimit is the random base rate under which a function is rare: the
// functions a user needs targeting for.
const RareLimit = 0.05

// Pair holds a measure for targeted and for grammar-random inputs.
type Pair struct {
	Targeted float64 `json:"targeted"`
	Random   float64 `json:"random"`
}

// TargetFunction is one function's share of E4/E5.
type TargetFunction struct {
	Function     string  `json:"function"`
	Constraints  int     `json:"constraints"`
	Unsolved     int     `json:"unsolved"`
	Targeted     int     `json:"targeted"`      // targeted inputs generated (at most the budget)
	TargetedHits int     `json:"targeted_hits"` // of which ran the function
	Random       int     `json:"random"`        // random inputs: the budget
	RandomHits   int     `json:"random_hits"`   // of which ran the function
	BaseRate     float64 `json:"base_rate"`     // share of the base sample that ran it
	// ExpectedRandomReach is 1-(1-BaseRate)^Random: the chance that
	// Random grammar-random inputs reach the function at least once.
	ExpectedRandomReach float64 `json:"expected_random_reach"`
	TargetedCalls       float64 `json:"targeted_calls"`
	RandomCalls         float64 `json:"random_calls"`
}

// Reach is how many functions of a group targeted and random inputs reached.
type Reach struct {
	Functions int     `json:"functions"`
	Targeted  float64 `json:"targeted"`        // share reached by at least one targeted input
	Random    float64 `json:"random"`          // share reached by at least one random input
	Expected  float64 `json:"expected_random"` // mean of 1-(1-p)^N: random reach without sampling noise
}

// TargetResult is E4 and E5 together: they share their runs.
type TargetResult struct {
	Subject    string `json:"subject"`
	Functions  int    `json:"functions"` // trainable functions
	Budget     int    `json:"budget"`    // inputs per function, each side
	BaseInputs int    `json:"base_inputs"`
	// Functions with at least one covering constraint.
	WithConstraints int `json:"functions_with_constraints"`
	// E4
	Relative Pair `json:"relative"` // median over functions of the share of their budget that ran them
	// Absolute is the share of all trainable functions reached by at
	// least one of their inputs (the headline); Expected is random's
	// expected share at the same budget.
	Absolute                Pair    `json:"absolute"`
	ExpectedRandom          float64 `json:"expected_random_absolute"`
	AbsoluteWithConstraints Pair    `json:"absolute_with_constraints"` // the same share over functions with constraints
	Rare                    Reach   `json:"rare"`                      // functions with base rate < RareLimit
	// WorseThanRandom are the functions whose targeted inputs ran them
	// fewer times than Budget random inputs are expected to (Budget × base rate).
	WorseThanRandom []string `json:"worse_than_random"`
	Size            Pair     `json:"mean_size_bytes"`
	// Solver
	Constraints int     `json:"constraints"`
	Unsolved    int     `json:"unsolved"`
	SolveMedian float64 `json:"solve_median_ms"`
	SolveP95    float64 `json:"solve_p95_ms"`
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

// Targeted runs E4 and E5 (DESIGN.md §9, with equal budgets): every
// trainable function of the model gets Budget targeted inputs (round-robin
// over its covering constraints) and Budget grammar-random inputs; all are
// run on the subject. Each function's random base rate is measured on a
// separate sample of BaseInputs random inputs. Reported: the relative
// coverage fraction (share of a function's inputs that ran it), the
// absolute fraction (functions reached at least once) over all trainable
// functions with random's expected value 1-(1-p)^Budget, the same for
// rare functions, the functions where targeting did worse than random,
// input sizes, functions covered per input and calls of the targeted
// function, with Wilcoxon signed-rank tests (paired by function) and
// Cohen's d.
func Targeted(ctx context.Context, cfg TargetConfig) (*TargetResult, error) {
	e := cfg.E3Config
	if e.MaxDepth == 0 {
		e.MaxDepth = 30
	}
	if cfg.Budget == 0 {
		cfg.Budget = 10
	}
	if cfg.BaseInputs == 0 {
		cfg.BaseInputs = 1000
	}
	step := progressf(e.Progress)
	m := cfg.Model
	if m == nil {
		r, err := E3(ctx, e)
		if err != nil {
			return nil, err
		}
		if m, err = learn.LoadModel(r.Model); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(e.WorkDir, "targeted")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	res := &TargetResult{Subject: e.Subject, Functions: len(m.Functions), Budget: cfg.Budget, BaseInputs: cfg.BaseInputs, WorseThanRandom: []string{}}
	type input struct {
		text string
		sha  string // hex sha256 of text, the key of its coverage record
		fn   int
		kind string // "targeted" or "random"
	}
	newInput := func(text string, fn int, kind string) input {
		sum := sha256.Sum256([]byte(text))
		return input{text, hex.EncodeToString(sum[:]), fn, kind}
	}
	var inputs []input
	var times []float64
	step("generating %d targeted and %d random inputs for each of %d functions", cfg.Budget, cfg.Budget, len(m.Functions))
	for i := range m.Functions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fn := &m.Functions[i]
		cons := m.Constraints(fn)
		tf := TargetFunction{Function: fn.Name, Constraints: len(cons), Random: cfg.Budget}
		tr := synth.Target(ctx, e.Grammar, m, fn, cfg.Budget, cfg.Solve)
		for _, d := range tr.SolveTimes {
			times = append(times, float64(d.Microseconds())/1000)
		}
		tf.Unsolved = len(tr.Unsolved)
		tf.Targeted = len(tr.Inputs)
		for _, in := range tr.Inputs {
			inputs = append(inputs, newInput(in.Text, i, "targeted"))
		}
		// As many grammar-random inputs as the budget, from a generator
		// seeded per function.
		gen := synth.NewGenerator(e.Grammar, synth.NewRandom(e.Seed+1000+uint64(i)), synth.RandomPolicy)
		gen.MaxDepth, gen.MaxRepeat = e.MaxDepth, e.MaxRepeat
		for k := 0; k < tf.Random; k++ {
			inputs = append(inputs, newInput(gen.Generate().String(), i, "random"))
		}
		res.Constraints += len(cons)
		res.Unsolved += tf.Unsolved
		res.PerFunction = append(res.PerFunction, tf)
	}
	res.SolveMedian, res.SolveP95 = Median(times), Quantile(times, 0.95)
	// Write each distinct input once and record them all.
	files := map[string]string{} // sha256 -> file
	var list []string
	for _, in := range inputs {
		if _, ok := files[in.sha]; ok {
			continue
		}
		f := filepath.Join(dir, fmt.Sprintf("%06d", len(files)+1))
		if err := os.WriteFile(f, []byte(in.text), 0o644); err != nil {
			return nil, err
		}
		files[in.sha] = f
		list = append(list, f)
	}
	bin, err := coverage.Build(ctx, e.Target, e.CacheDir)
	if err != nil {
		return nil, err
	}
	step("running %d targeted and random inputs", len(list))
	cov, err := recordFresh(ctx, bin, list, filepath.Join(e.WorkDir, "targeted.cov.jsonl"), e.Subject)
	if err != nil {
		return nil, err
	}
	step("measuring base rates on %d separate random inputs", cfg.BaseInputs)
	baseFiles, _, err := generate(e, "base", cfg.BaseInputs, e.Seed+2)
	if err != nil {
		return nil, err
	}
	base, err := recordFresh(ctx, bin, baseFiles, filepath.Join(e.WorkDir, "base.cov.jsonl"), e.Subject)
	if err != nil {
		return nil, err
	}
	rates := BaseRates(base)
	for i := range res.PerFunction {
		res.PerFunction[i].BaseRate = rates[res.PerFunction[i].Function]
	}

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
	for _, in := range inputs {
		rec := bySHA[in.sha]
		if rec == nil {
			continue
		}
		sizes[in.kind] = append(sizes[in.kind], float64(len(in.text)))
		coveredPer[in.kind] = append(coveredPer[in.kind], float64(len(rec.Covered)))
		tf := &res.PerFunction[in.fn]
		n := 0.0
		if id, ok := index[tf.Function]; ok {
			if k := slices.Index(rec.Covered, id); k >= 0 {
				n = 1
				if k < len(rec.Counts) {
					n = float64(rec.Counts[k])
				}
				if in.kind == "targeted" {
					tf.TargetedHits++
				} else {
					tf.RandomHits++
				}
			}
		}
		calls[in.fn][in.kind] = append(calls[in.fn][in.kind], n)
	}
	var callT, callR []float64
	for i := range res.PerFunction {
		tf := &res.PerFunction[i]
		tf.TargetedCalls, tf.RandomCalls = Mean(calls[i]["targeted"]), Mean(calls[i]["random"])
		if tf.Targeted > 0 {
			callT = append(callT, tf.TargetedCalls)
			callR = append(callR, tf.RandomCalls)
		}
	}
	res.summarize()
	res.Size = Pair{Mean(sizes["targeted"]), Mean(sizes["random"])}
	res.CoveredPerInputMedian = Pair{Median(coveredPer["targeted"]), Median(coveredPer["random"])}
	res.CoveredPerInputMean = Pair{Mean(coveredPer["targeted"]), Mean(coveredPer["random"])}
	// Covered functions per input, paired by function: each function's
	// mean over its targeted inputs against its random inputs.
	covT, covR := perFunctionMeans(inputsByFunction(len(res.PerFunction), func(yield func(fn int, kind string, v float64)) {
		for _, in := range inputs {
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
	return res, nil
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

// summarize computes E4's figures from the per-function counts: relative
// and absolute fractions, expected random reach, rare-function reach and
// the functions where targeting did worse than random.
func (res *TargetResult) summarize() {
	var relT, relR []float64
	var reachedT, reachedR, consT, consR int
	var expected float64
	var rare []TargetFunction
	res.WithConstraints = 0
	res.WorseThanRandom = res.WorseThanRandom[:0]
	for i := range res.PerFunction {
		tf := &res.PerFunction[i]
		tf.ExpectedRandomReach = 1 - math.Pow(1-tf.BaseRate, float64(tf.Random))
		expected += tf.ExpectedRandomReach
		// Both over the budget: a shortfall of targeted inputs counts against it.
		relT = append(relT, ratio(tf.TargetedHits, tf.Random, 0))
		relR = append(relR, ratio(tf.RandomHits, tf.Random, 0))
		if tf.TargetedHits > 0 {
			reachedT++
		}
		if tf.RandomHits > 0 {
			reachedR++
		}
		if tf.Constraints > 0 {
			res.WithConstraints++
			if tf.TargetedHits > 0 {
				consT++
			}
			if tf.RandomHits > 0 {
				consR++
			}
		}
		if float64(tf.TargetedHits) < float64(tf.Random)*tf.BaseRate {
			res.WorseThanRandom = append(res.WorseThanRandom, tf.Function)
		}
		if tf.BaseRate < RareLimit {
			rare = append(rare, *tf)
		}
	}
	res.Relative = Pair{Median(relT), Median(relR)}
	if n := float64(len(res.PerFunction)); n > 0 {
		res.Absolute = Pair{float64(reachedT) / n, float64(reachedR) / n}
		res.ExpectedRandom = expected / n
	}
	if n := float64(res.WithConstraints); n > 0 {
		res.AbsoluteWithConstraints = Pair{float64(consT) / n, float64(consR) / n}
	}
	res.Rare = reach(rare)
}

func reach(fs []TargetFunction) Reach {
	r := Reach{Functions: len(fs)}
	if len(fs) == 0 {
		return r
	}
	for _, tf := range fs {
		r.Targeted += boolf(tf.TargetedHits > 0)
		r.Random += boolf(tf.RandomHits > 0)
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
