package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
}

// Pair holds a measure for targeted and for grammar-random inputs.
type Pair struct {
	Targeted float64 `json:"targeted"`
	Random   float64 `json:"random"`
}

// TargetFunction is one function's share of E4/E5.
type TargetFunction struct {
	Function      string  `json:"function"`
	Constraints   int     `json:"constraints"`
	Unsolved      int     `json:"unsolved"`
	Targeted      int     `json:"targeted"`      // targeted inputs generated
	TargetedHits  int     `json:"targeted_hits"` // of which ran the function
	Random        int     `json:"random"`        // random inputs: as many as targeted (one if none were)
	RandomHits    int     `json:"random_hits"`   // of which ran the function
	TargetedCalls float64 `json:"targeted_calls"`
	RandomCalls   float64 `json:"random_calls"`
}

// TargetResult is E4 and E5 together: they share their runs.
type TargetResult struct {
	Subject   string `json:"subject"`
	Functions int    `json:"functions"` // trainable functions
	// Functions with at least one covering constraint: targeted generation
	// works per constraint, so the absolute fraction is over these.
	WithConstraints int `json:"functions_with_constraints"`
	// E4
	Relative    Pair `json:"relative"`     // median over functions with targeted inputs
	Absolute    Pair `json:"absolute"`     // share of functions with constraints reached by at least one of their inputs
	AbsoluteAll Pair `json:"absolute_all"` // the same share over all trainable functions
	Size        Pair `json:"mean_size_bytes"`
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

// Targeted runs E4 and E5 (DESIGN.md §9): for every trainable function of
// the model, one targeted input per covering constraint and as many
// grammar-random inputs; all are run on the subject, and the relative
// coverage fraction (share of a function's inputs that ran it), absolute
// coverage fraction (functions reached at least once), input sizes,
// functions covered per input and calls of the targeted function are
// compared, with Wilcoxon signed-rank tests (paired by function) and
// Cohen's d.
func Targeted(ctx context.Context, cfg TargetConfig) (*TargetResult, error) {
	e := cfg.E3Config
	if e.MaxDepth == 0 {
		e.MaxDepth = 30
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
	res := &TargetResult{Subject: e.Subject, Functions: len(m.Functions)}
	type input struct {
		text string
		fn   int
		kind string // "targeted" or "random"
	}
	var inputs []input
	var times []float64
	step("solving the covering constraints of %d functions", len(m.Functions))
	for i := range m.Functions {
		fn := &m.Functions[i]
		cons := m.Constraints(fn)
		tf := TargetFunction{Function: fn.Name, Constraints: len(cons)}
		tr := synth.Target(ctx, e.Grammar, m, fn, len(cons), cfg.Solve)
		for _, d := range tr.SolveTimes {
			times = append(times, float64(d.Microseconds())/1000)
		}
		tf.Unsolved = len(tr.Unsolved)
		tf.Targeted = len(tr.Inputs)
		for _, in := range tr.Inputs {
			inputs = append(inputs, input{in.Text, i, "targeted"})
		}
		// As many grammar-random inputs, from a generator seeded per function.
		gen := synth.NewGenerator(e.Grammar, synth.NewRandom(e.Seed+1000+uint64(i)), synth.RandomPolicy)
		gen.MaxDepth, gen.MaxRepeat = e.MaxDepth, e.MaxRepeat
		tf.Random = max(tf.Targeted, 1)
		for k := 0; k < tf.Random; k++ {
			inputs = append(inputs, input{gen.Generate().String(), i, "random"})
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
		sum := sha256.Sum256([]byte(in.text))
		sha := hex.EncodeToString(sum[:])
		if _, ok := files[sha]; ok {
			continue
		}
		f := filepath.Join(dir, fmt.Sprintf("%06d", len(files)+1))
		if err := os.WriteFile(f, []byte(in.text), 0o644); err != nil {
			return nil, err
		}
		files[sha] = f
		list = append(list, f)
	}
	step("running %d targeted and random inputs", len(list))
	bin, err := coverage.Build(ctx, e.Target, e.CacheDir)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(e.WorkDir, "targeted.cov.jsonl")
	os.Remove(out)
	if _, err := coverage.RecordInputs(ctx, bin, list, out, coverage.Options{Subject: e.Subject}); err != nil {
		return nil, err
	}
	cov, err := coverage.ReadFile(out)
	if err != nil {
		return nil, err
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
		sum := sha256.Sum256([]byte(in.text))
		rec := bySHA[hex.EncodeToString(sum[:])]
		if rec == nil {
			continue
		}
		sizes[in.kind] = append(sizes[in.kind], float64(len(in.text)))
		coveredPer[in.kind] = append(coveredPer[in.kind], float64(len(rec.Covered)))
		tf := &res.PerFunction[in.fn]
		id := index[tf.Function]
		n := 0.0
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
		calls[in.fn][in.kind] = append(calls[in.fn][in.kind], n)
	}
	var relT, relR, callT, callR []float64
	reachedT, reachedR := 0, 0
	for i := range res.PerFunction {
		tf := &res.PerFunction[i]
		tf.TargetedCalls, tf.RandomCalls = Mean(calls[i]["targeted"]), Mean(calls[i]["random"])
		if tf.Targeted > 0 {
			relT = append(relT, float64(tf.TargetedHits)/float64(tf.Targeted))
			relR = append(relR, float64(tf.RandomHits)/float64(tf.Random))
			callT = append(callT, tf.TargetedCalls)
			callR = append(callR, tf.RandomCalls)
		}
		if tf.Constraints == 0 {
			continue
		}
		res.WithConstraints++
		if tf.TargetedHits > 0 {
			reachedT++
		}
		if tf.RandomHits > 0 {
			reachedR++
		}
	}
	res.Relative = Pair{Median(relT), Median(relR)}
	if n := float64(res.WithConstraints); n > 0 {
		res.Absolute = Pair{float64(reachedT) / n, float64(reachedR) / n}
	}
	if n := float64(len(res.PerFunction)); n > 0 {
		res.AbsoluteAll = Pair{float64(reachedT) / n, float64(reachedR) / n}
	}
	res.Size = Pair{Mean(sizes["targeted"]), Mean(sizes["random"])}
	res.CoveredPerInputMedian = Pair{Median(coveredPer["targeted"]), Median(coveredPer["random"])}
	res.CoveredPerInputMean = Pair{Mean(coveredPer["targeted"]), Mean(coveredPer["random"])}
	// Covered functions per input, paired by function: each function's
	// mean over its targeted inputs against its random inputs.
	covT, covR := perFunctionMeans(inputsByFunction(len(res.PerFunction), func(yield func(fn int, kind string, v float64)) {
		for _, in := range inputs {
			sum := sha256.Sum256([]byte(in.text))
			if rec := bySHA[hex.EncodeToString(sum[:])]; rec != nil {
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
