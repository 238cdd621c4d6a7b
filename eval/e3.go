package eval

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
)

// E3Config configures the association-quality experiment.
type E3Config struct {
	Subject     string
	GrammarName string
	Grammar     *grammar.Graph
	Target      coverage.Target
	Train, Test int            // inputs; 0 means 1000 each
	Seed        uint64         // training inputs use Seed, test inputs Seed+1
	K           int            // 0 means 4
	Features    features.Kinds // 0 means learn.DefaultFeatures
	MaxDepth    int            // of random generation; 0 means 30
	MaxRepeat   int            // of unbounded repetitions in random generation; 0 means synth.DefaultMaxRepeat
	// NoConstraints generates the random inputs (training, test, and
	// E4's base sample and random side) without regard to the grammar's
	// constraints (where clauses), and runs E4's targeting loop without
	// them; by default every input satisfies them.
	NoConstraints bool
	WorkDir       string // inputs, coverage files and the model go here
	CacheDir      string // for harness binaries
	Learn         learn.Options
	NoBalance     bool // fit on all rows instead of balancing each function's classes
	Progress      func(step string)
}

// FunctionMetrics is one function's association quality on the test set.
type FunctionMetrics struct {
	Function  string  `json:"function"`
	Accuracy  float64 `json:"accuracy"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// Balanced is the mean of the true-positive and true-negative rates
	// (the one that exists, when the test set has only one class).
	Balanced float64 `json:"balanced_accuracy"`
	// Baseline is the accuracy of always predicting the class that was
	// the majority in the training set (not covered on a tie).
	Baseline       float64 `json:"baseline_accuracy"`
	BaseRate       float64 `json:"test_base_rate"` // share of test inputs that ran the function
	TP, FP, TN, FN int     `json:"-"`
	TestPositives  int     `json:"test_positives"`
	TrainPositives int     `json:"train_positives"`
	TrainRows      int     `json:"-"`
	TreeDepth      int     `json:"tree_depth"`
}

// Means are per-function metrics averaged over a set of functions.
type Means struct {
	Functions int     `json:"functions"`
	Accuracy  float64 `json:"accuracy"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Balanced  float64 `json:"balanced_accuracy"`
	Baseline  float64 `json:"baseline_accuracy"`
}

// MidRateLow and MidRateHigh bound the test base rates of the functions
// whose means are reported apart: a function that nearly always or
// nearly never runs is predicted well by its base rate alone.
const MidRateLow, MidRateHigh = learn.MidRateLow, learn.MidRateHigh

// E3Result is the experiment's outcome; means are over trainable functions.
type E3Result struct {
	Subject            string  `json:"subject"`
	FunctionsObserved  int     `json:"functions_observed"`
	FunctionsTrainable int     `json:"functions_trainable"`
	Accuracy           float64 `json:"accuracy"`
	Precision          float64 `json:"precision"`
	Recall             float64 `json:"recall"`
	Balanced           float64 `json:"balanced_accuracy"`
	Baseline           float64 `json:"baseline_accuracy"` // majority class of the training set
	// MidRate are the means over the functions whose test base rate lies
	// in [MidRateLow, MidRateHigh].
	MidRate Means `json:"mid_rate"`
	// DistinctLabels counts the distinct training label vectors among the
	// trainable functions: functions that always run together are one
	// prediction problem, however many of them there are.
	DistinctLabels int               `json:"distinct_label_vectors"`
	PerFunction    []FunctionMetrics `json:"per_function"`
	// Unseen are functions that ran on some test input but on no training
	// input: no tree predicts them, and they are not in the means.
	Unseen      []string `json:"unseen"`
	TrainInputs int      `json:"train_inputs"` // rows the model was trained on
	TestInputs  int      `json:"test_inputs"`  // rows it was evaluated on
	// TestDuplicates are test inputs left out because the training set
	// holds the same input (by sha256).
	TestDuplicates int `json:"test_duplicates_dropped"`
	// TrainUnrepaired and TestUnrepaired count the generated inputs
	// that broke a grammar constraint the search could not repair: they
	// were recorded as they were.
	TrainUnrepaired int     `json:"train_unrepaired,omitempty"`
	TestUnrepaired  int     `json:"test_unrepaired,omitempty"`
	TrainSeconds    float64 `json:"train_seconds"`
	Model           string  `json:"model"` // path of the saved model
}

// E3 measures association quality (docs/evaluation.md): generate grammar-random
// training and test inputs, record their coverage, train one tree per
// trainable function, predict the test inputs' coverage without running
// them, and compare with the recorded coverage.
//
// Precision of a function with no predicted positives is 1 if the test
// set has no positives either and 0 otherwise; recall of a function with
// no test positives is 1.
func E3(ctx context.Context, cfg E3Config) (*E3Result, error) {
	cfg.setDefaults()
	step := progressf(cfg.Progress)
	c, err := recordCorpora(ctx, cfg, cfg.Train, step)
	if err != nil {
		return nil, err
	}
	bin, trainCov, trainData, testCov, testData := c.bin, c.trainCov, c.trainData, c.testCov, c.testData
	step("training")
	start := time.Now()
	d, err := learn.NewDatasetContext(ctx, cfg.Grammar, features.Options{MaxK: cfg.K, Kinds: cfg.Features}, trainCov, trainData)
	if err != nil {
		return nil, err
	}
	target := bin.Target
	model, err := learn.TrainModel(ctx, cfg.Grammar, d, learn.ModelConfig{Subject: cfg.Subject, GrammarName: cfg.GrammarName,
		Train: learn.TrainOptions{Options: cfg.Learn, Seed: cfg.Seed, NoBalance: cfg.NoBalance}, Target: &target})
	if err != nil {
		return nil, err
	}
	fns := model.Functions
	res := &E3Result{Subject: cfg.Subject, FunctionsObserved: model.Stats.Observed, FunctionsTrainable: len(fns),
		TrainInputs: d.Rows, TrainSeconds: time.Since(start).Seconds(), Model: filepath.Join(cfg.WorkDir, "model.json.gz"),
		DistinctLabels: distinctLabels(d, fns), Unseen: []string{}, TrainUnrepaired: c.trainUnrepaired, TestUnrepaired: c.testUnrepaired}
	if err := model.Save(res.Model); err != nil {
		return nil, err
	}
	step("predicting the test inputs")
	p, err := learn.NewPredictor(model, cfg.Grammar)
	if err != nil {
		return nil, err
	}
	ts, err := newTestSet(ctx, cfg.Grammar, testCov, testData, trainData)
	if err != nil {
		return nil, err
	}
	res.assess(model, p.PredictTrees, fns, ts)
	return res, nil
}

// corpora are a subject's recorded training and test inputs.
type corpora struct {
	bin                 *coverage.Binary
	trainCov, testCov   *coverage.File
	trainData, testData map[string][]byte // by sha256
	// The inputs of each that broke a constraint the search could not
	// repair.
	trainUnrepaired, testUnrepaired int
}

// recordCorpora generates train grammar-random training inputs (seed
// cfg.Seed) and cfg.Test test inputs (cfg.Seed+1) into cfg.WorkDir,
// builds the subject's harness and records both.
func recordCorpora(ctx context.Context, cfg E3Config, train int, step func(string, ...any)) (*corpora, error) {
	step("generating %d training and %d test inputs", train, cfg.Test)
	trainSample, err := generate(ctx, cfg, "train", train, cfg.Seed)
	if err != nil {
		return nil, err
	}
	testSample, err := generate(ctx, cfg, "test", cfg.Test, cfg.Seed+1)
	if err != nil {
		return nil, err
	}
	step("building the harness for %s", cfg.Target)
	bin, err := coverage.Build(ctx, cfg.Target, cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	c := &corpora{bin: bin, trainData: trainSample.data, testData: testSample.data,
		trainUnrepaired: trainSample.unrepaired, testUnrepaired: testSample.unrepaired}
	record := func(name string, files []string) (*coverage.File, error) {
		step("recording the %s inputs", name)
		return recordFresh(ctx, bin, files, filepath.Join(cfg.WorkDir, name+".cov.jsonl"), cfg.Subject)
	}
	if c.trainCov, err = record("train", trainSample.files); err != nil {
		return nil, err
	}
	if c.testCov, err = record("test", testSample.files); err != nil {
		return nil, err
	}
	return c, nil
}

// setDefaults fills in the zero fields that have defaults.
func (cfg *E3Config) setDefaults() {
	setDefault(&cfg.Train, 1000)
	setDefault(&cfg.Test, 1000)
	setDefault(&cfg.K, 4)
	setDefault(&cfg.Features, learn.DefaultFeatures)
	setDefault(&cfg.MaxDepth, 30)
}

// testSet is a parsed test corpus, without the inputs the model was
// trained on.
type testSet struct {
	functions  []string
	trees      [][]*grammar.Tree
	covered    [][]int
	duplicates int // test inputs left out because training had them
}

// newTestSet parses the test inputs, stopping when ctx is done, between
// inputs and inside a parse, with an error that wraps ctx.Err().
func newTestSet(ctx context.Context, g *grammar.Graph, cov *coverage.File, data, trainData map[string][]byte) (*testSet, error) {
	ts := &testSet{functions: cov.Functions}
	opts := grammar.ParseOptions{Trees: grammar.DefaultTreeLimit}
	for i, r := range cov.Records {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("parsing the test inputs: stopped before %d of %d: %w", i+1, len(cov.Records), err)
		}
		if r.Outcome == coverage.Panic || r.Outcome == coverage.Timeout {
			continue
		}
		if _, ok := trainData[r.SHA256]; ok {
			ts.duplicates++ // the model has seen this very input
			continue
		}
		trees, err := g.ParseAllContext(ctx, data[r.SHA256], opts)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("parsing the test inputs: %w", err)
			}
			continue // generated inputs parse; a rejection here would be a parser bug, not a prediction
		}
		ts.trees = append(ts.trees, trees)
		ts.covered = append(ts.covered, r.Covered)
	}
	return ts, nil
}

// assess predicts the test set with predict (one prediction per function
// of fns, in order: a Predictor's PredictTrees, or an ensemble's vote)
// and scores every trained function.
func (res *E3Result) assess(model *learn.Model, predict func(...*grammar.Tree) []learn.Prediction, fns []learn.FunctionModel, ts *testSet) {
	index := map[string]int{}
	for i, name := range ts.functions {
		index[name] = i
	}
	res.TestDuplicates = ts.duplicates
	res.PerFunction = make([]FunctionMetrics, len(fns))
	inModel := map[string]bool{}
	for i, fn := range fns {
		res.PerFunction[i] = FunctionMetrics{Function: fn.Name, TrainPositives: fn.Positives, TrainRows: model.Stats.Rows, TreeDepth: fn.Depth}
		inModel[fn.Name] = true
	}
	for _, name := range model.Stats.AlwaysCovered {
		inModel[name] = true
	}
	unseen := map[string]bool{}
	covered := make([]bool, len(ts.functions))
	for i, trees := range ts.trees {
		preds := predict(trees...)
		res.TestInputs++
		clear(covered)
		for _, id := range ts.covered[i] {
			covered[id] = true
			if name := ts.functions[id]; !inModel[name] {
				unseen[name] = true
			}
		}
		for i, pr := range preds {
			m := &res.PerFunction[i]
			j, ok := index[pr.Function]
			actual := ok && covered[j]
			switch {
			case pr.Covered && actual:
				m.TP++
			case pr.Covered:
				m.FP++
			case actual:
				m.FN++
			default:
				m.TN++
			}
		}
	}
	res.Unseen = []string{}
	for name := range unseen {
		res.Unseen = append(res.Unseen, name)
	}
	slices.Sort(res.Unseen)
	res.summarize()
}

// summarize computes every function's metrics from its confusion counts
// and training class balance, and the means over all and over mid-rate
// functions.
func (res *E3Result) summarize() {
	var all, mid []FunctionMetrics
	for i := range res.PerFunction {
		m := &res.PerFunction[i]
		m.score()
		all = append(all, *m)
		if m.BaseRate >= MidRateLow && m.BaseRate <= MidRateHigh {
			mid = append(mid, *m)
		}
	}
	overall := meansOf(all)
	res.Accuracy, res.Precision, res.Recall = overall.Accuracy, overall.Precision, overall.Recall
	res.Balanced, res.Baseline = overall.Balanced, overall.Baseline
	res.MidRate = meansOf(mid)
}

func (m *FunctionMetrics) score() {
	n := m.TP + m.FP + m.TN + m.FN
	m.TestPositives = m.TP + m.FN
	negatives := m.TN + m.FP
	m.BaseRate = ratio(m.TestPositives, n, 0)
	m.Accuracy = ratio(m.TP+m.TN, n, 1)
	m.Precision = ratio(m.TP, m.TP+m.FP, boolf(m.TestPositives == 0))
	m.Recall = ratio(m.TP, m.TestPositives, 1)
	tpr, tnr := ratio(m.TP, m.TestPositives, -1), ratio(m.TN, negatives, -1)
	switch {
	case tpr < 0 && tnr < 0:
		m.Balanced = 1 // no test inputs at all
	case tpr < 0:
		m.Balanced = tnr
	case tnr < 0:
		m.Balanced = tpr
	default:
		m.Balanced = (tpr + tnr) / 2
	}
	if 2*m.TrainPositives > m.TrainRows {
		m.Baseline = ratio(m.TestPositives, n, 1)
	} else {
		m.Baseline = ratio(negatives, n, 1)
	}
}

func meansOf(fs []FunctionMetrics) Means {
	out := Means{Functions: len(fs)}
	if len(fs) == 0 {
		return out
	}
	for _, m := range fs {
		out.Accuracy += m.Accuracy
		out.Precision += m.Precision
		out.Recall += m.Recall
		out.Balanced += m.Balanced
		out.Baseline += m.Baseline
	}
	n := float64(len(fs))
	out.Accuracy /= n
	out.Precision /= n
	out.Recall /= n
	out.Balanced /= n
	out.Baseline /= n
	return out
}

// distinctLabels counts the distinct label vectors of the trained functions.
func distinctLabels(d *learn.Dataset, fns []learn.FunctionModel) int {
	index := map[string]int{}
	for i, name := range d.Functions {
		index[name] = i
	}
	seen := map[string]bool{}
	for _, fn := range fns {
		l := d.Labels[index[fn.Name]]
		key := make([]byte, 0, 8*len(l))
		for _, w := range l {
			key = binary.LittleEndian.AppendUint64(key, w)
		}
		seen[string(key)] = true
	}
	return len(seen)
}

// recordFresh records files into a new coverage file at path (replacing
// one left by an earlier run) and reads it back.
func recordFresh(ctx context.Context, bin *coverage.Binary, files []string, path, subject string) (*coverage.File, error) {
	os.Remove(path)
	if _, err := coverage.RecordInputs(ctx, bin, files, path, coverage.Options{Subject: subject}); err != nil {
		return nil, err
	}
	return coverage.ReadFile(path)
}

func ratio(a, b int, empty float64) float64 {
	if b == 0 {
		return empty
	}
	return float64(a) / float64(b)
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// A sample is seeded grammar-random inputs written to files.
type sample struct {
	files []string
	data  map[string][]byte // by sha256
	// unrepaired is how many broke a constraint the search could not
	// repair.
	unrepaired int
}

// generate writes n seeded grammar-random inputs to WorkDir/name (each
// satisfying the grammar's constraints unless cfg.NoConstraints, or
// the search could not repair it). It stops when ctx is done, with an
// error that wraps ctx.Err().
func generate(ctx context.Context, cfg E3Config, name string, n int, seed uint64) (*sample, error) {
	dir := filepath.Join(cfg.WorkDir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	set, err := constraintsOf(cfg.Grammar, cfg.NoConstraints)
	if err != nil {
		return nil, err
	}
	gen := newRandomInputs(cfg.Grammar, seed, cfg.MaxDepth, cfg.MaxRepeat, set)
	s := &sample{files: make([]string, n), data: map[string][]byte{}}
	for i := range s.files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("generating the %s inputs: stopped after %d of %d: %w", name, i, n, err)
		}
		b := []byte(gen.next())
		s.files[i] = filepath.Join(dir, fmt.Sprintf("%05d", i+1))
		if err := os.WriteFile(s.files[i], b, 0o644); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		s.data[hex.EncodeToString(sum[:])] = b
	}
	s.unrepaired = gen.unrepaired
	return s, nil
}
