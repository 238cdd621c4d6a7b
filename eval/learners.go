package eval

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/subject"
)

// Learner is one way to learn a model: the feature kinds, how each
// function's classes are balanced, the tree depth, whether trees are
// bagged, and how many training inputs.
type Learner struct {
	Name      string         `json:"name"`
	Features  features.Kinds `json:"-"`
	NoBalance bool           `json:"no_balance"`
	// NoRecount keeps the balanced sample's class counts in the leaves
	// (learn.TrainOptions.BalancedLeaves).
	NoRecount bool `json:"no_recount,omitempty"`
	MaxDepth  int  `json:"max_depth,omitempty"` // 0: the learn default
	// Bag, if above 0, makes the learner an ensemble of that many trees
	// per function, each fitted on a bootstrap sample of the training
	// rows, predicting by majority vote (ensemble): a measure of what a
	// forest would buy, not a model arbor can explain or target with.
	Bag   int `json:"bag,omitempty"`
	Train int `json:"train"`
}

// ParseLearner reads a learner written as FEATURES[/OPTION...][@N], as in
// "kpath", "kpath/nobalance", "all@3000" or "kpath,sibling/depth=8@10000".
// The options are nobalance, norecount (balanced, but leaves keep the
// balanced sample's counts), depth=D and bag=N (a majority vote of N
// trees fitted on bootstrap samples); N (training inputs) defaults to
// 1000.
func ParseLearner(s string) (Learner, error) {
	l := Learner{Name: s, Train: 1000}
	spec := s
	if before, after, ok := strings.Cut(spec, "@"); ok {
		n, err := strconv.Atoi(after)
		if err != nil || n < 1 {
			return l, fmt.Errorf("learner %q: %q is not a training set size", s, after)
		}
		l.Train, spec = n, before
	}
	parts := strings.Split(spec, "/")
	for _, opt := range parts[1:] {
		switch {
		case opt == "nobalance":
			l.NoBalance = true
		case opt == "norecount":
			l.NoRecount = true
		case strings.HasPrefix(opt, "depth="):
			d, err := strconv.Atoi(strings.TrimPrefix(opt, "depth="))
			if err != nil || d < 1 {
				return l, fmt.Errorf("learner %q: %q is not a tree depth", s, opt)
			}
			l.MaxDepth = d
		case strings.HasPrefix(opt, "bag="):
			n, err := strconv.Atoi(strings.TrimPrefix(opt, "bag="))
			if err != nil || n < 1 {
				return l, fmt.Errorf("learner %q: %q is not a number of bags", s, opt)
			}
			l.Bag = n
		default:
			return l, fmt.Errorf("learner %q: unknown option %q (options: nobalance, norecount, depth=D, bag=N)", s, opt)
		}
	}
	k, err := features.ParseKinds(parts[0])
	if err != nil {
		return l, fmt.Errorf("learner %q: %w", s, err)
	}
	l.Features = k
	return l, nil
}

// DefaultLearners are the learners the learner comparison runs unless
// told: arbor's original default (k-paths, balanced), the same
// unbalanced, each feature family added to k-paths alone, all of them,
// all of them on three and ten times the training inputs, and k-paths
// alone on ten times the inputs (to tell what data buys from what
// features buy).
func DefaultLearners() []Learner {
	var out []Learner
	for _, s := range []string{"kpath", "kpath/nobalance",
		"kpath,sibling", "kpath,value", "kpath,class", "kpath,length", "kpath,count", "kpath,number",
		"all", "all/nobalance", "all@3000", "all/nobalance@3000", "all@10000", "all/nobalance@10000", "kpath/nobalance@10000"} {
		l, err := ParseLearner(s)
		if err != nil {
			panic(err) // the list above is fixed
		}
		out = append(out, l)
	}
	return out
}

// LearnersConfig configures the learner comparison on one subject. The
// subject fields, K, Seed, Test, MaxDepth and Learn mean what they mean
// for E3; the training corpus is as large as the largest learner needs.
type LearnersConfig struct {
	E3Config
	Learners []Learner
}

// LearnerResult is how one learner did on one subject.
type LearnerResult struct {
	Learner
	Subject  string `json:"subject"`
	Features string `json:"features"`
	// Prediction quality, as E3 reports it.
	*E3Result
	// Vocabulary is the number of features interned, Candidates those
	// that vary and are not a copy of another column, PerInput the mean
	// number of features an input has.
	Vocabulary int     `json:"vocabulary"`
	Candidates int     `json:"candidates"`
	PerInput   float64 `json:"features_per_input"`
	// TrainSeconds covers feature extraction and fitting every tree;
	// PredictPerSecond is test inputs predicted (and scored) per second
	// from their parsed trees (parsing, the same for every learner, left
	// out).
	PredictPerSecond float64 `json:"predict_per_second"`
	// Blind is, for the last learner of a subject, evidence of what it
	// cannot see: its worst mid-rate function and, if there is one, a pair
	// of training inputs with exactly the same features of which one ran
	// the function and the other did not.
	Blind *Blind `json:"blind,omitempty"`
}

// Blind is a function a learner predicts worst, with the two training
// inputs its tree can least tell apart.
type Blind struct {
	Function string  `json:"function"`
	Balanced float64 `json:"balanced_accuracy"`
	// Covered and NotCovered reach the same leaf of the function's tree,
	// one ran the function and one did not, and of all such pairs (among
	// the shortest inputs of each leaf) their feature sets differ least:
	// by Distance features (0: no feature tells them apart).
	Covered    string `json:"covered,omitempty"`
	NotCovered string `json:"not_covered,omitempty"`
	Distance   int    `json:"feature_distance"`
	// Conflicts counts the groups of inputs with equal features that
	// disagree on the function.
	Conflicts int `json:"conflicts"`
}

// Learners compares ways of learning on one subject: it records one
// training corpus (as large as the largest learner asks for; smaller
// learners use its first inputs, which are the inputs E3 would generate
// with the same seed) and one test corpus, parses both once, and trains
// and scores every learner on them. Test inputs that occur anywhere in
// the training corpus are left out, so every learner is scored on the
// same inputs.
func Learners(ctx context.Context, cfg LearnersConfig) ([]LearnerResult, error) {
	if len(cfg.Learners) == 0 {
		cfg.Learners = DefaultLearners()
	}
	cfg.setDefaults()
	trainN := 0
	for _, l := range cfg.Learners {
		trainN = max(trainN, l.Train)
	}
	step := progressf(cfg.Progress)
	c, err := recordCorpora(ctx, cfg.E3Config, trainN, step)
	if err != nil {
		return nil, err
	}
	step("parsing")
	examples, err := learn.ParseExamplesContext(ctx, cfg.Grammar, c.trainCov, c.trainData)
	if err != nil {
		return nil, err
	}
	ts, err := newTestSet(ctx, cfg.Grammar, c.testCov, c.testData, c.trainData)
	if err != nil {
		return nil, err
	}
	var out []LearnerResult
	var prev *learnerData
	for i, l := range cfg.Learners {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		step("learner %s", l.Name)
		// Learners that differ only in how they fit (depth, balance,
		// bags) share the dataset of the one before: reading relational
		// features off 3,000 inputs can take minutes.
		if prev == nil || prev.kinds != l.Features || prev.train != l.Train {
			var err error
			if prev, err = newLearnerData(ctx, cfg, l, examples); err != nil {
				return out, err
			}
		}
		r, err := runLearner(ctx, cfg, l, prev, ts, i == len(cfg.Learners)-1)
		if err != nil {
			return out, fmt.Errorf("learner %s: %w", l.Name, err)
		}
		out = append(out, *r)
	}
	return out, nil
}

// blind finds the worst-predicted mid-rate function and, among the
// training inputs that reach one leaf of its tree but disagree on it, the
// pair whose features differ least.
func blind(d *learn.Dataset, fns []learn.FunctionModel, examples *learn.Examples, res *E3Result) *Blind {
	worst := -1
	for i, m := range res.PerFunction {
		if m.BaseRate >= MidRateLow && m.BaseRate <= MidRateHigh && (worst < 0 || m.Balanced < res.PerFunction[worst].Balanced) {
			worst = i
		}
	}
	if worst < 0 {
		return nil
	}
	name := res.PerFunction[worst].Function
	b := &Blind{Function: name, Balanced: res.PerFunction[worst].Balanced, Distance: -1}
	f := slices.Index(d.Functions, name)
	var tree *learn.Tree
	for i := range fns {
		if fns[i].Name == name {
			tree = fns[i].Tree
		}
	}
	if f < 0 || tree == nil {
		return b
	}
	// Every row's features, its leaf, and the groups of equal features.
	rows := make([][]int, d.Rows)
	texts := make([]string, d.Rows)
	type group struct{ covered, not bool }
	groups := map[string]*group{}
	type side struct{ covered, not []int }
	leaves := map[int]*side{}
	var key []byte
	for r := range d.Rows {
		rows[r] = d.Vocab.Features(examples.Trees[r]...)
		texts[r] = examples.Trees[r][0].String()
		key = key[:0]
		for _, id := range rows[r] {
			key = binary.AppendUvarint(key, uint64(id))
		}
		g := groups[string(key)]
		if g == nil {
			g = &group{}
			groups[string(key)] = g
		}
		leaf := tree.Leaf(func(c int) bool { return d.Columns[c].Has(r) })
		sd := leaves[leaf]
		if sd == nil {
			sd = &side{}
			leaves[leaf] = sd
		}
		if d.Labels[f].Has(r) {
			g.covered = true
			sd.covered = append(sd.covered, r)
		} else {
			g.not = true
			sd.not = append(sd.not, r)
		}
	}
	for _, g := range groups {
		if g.covered && g.not {
			b.Conflicts++
		}
	}
	for _, leaf := range slices.Sorted(maps.Keys(leaves)) {
		b.closest(leaves[leaf].covered, leaves[leaf].not, rows, texts)
	}
	return b
}

// closest compares the shortest inputs of a leaf that ran the function
// (covered) with those that did not, pairwise, and keeps the pair whose
// features (rows) differ least, the shorter on a tie.
func (b *Blind) closest(covered, not []int, rows [][]int, texts []string) {
	const perSide = 150
	shortest := func(rs []int) []int {
		rs = slices.Clone(rs)
		slices.SortStableFunc(rs, func(x, y int) int { return len(texts[x]) - len(texts[y]) })
		return rs[:min(len(rs), perSide)]
	}
	for _, c := range shortest(covered) {
		for _, n := range shortest(not) {
			dist := symmetricDifference(rows[c], rows[n])
			size := len(texts[c]) + len(texts[n])
			if b.Distance < 0 || dist < b.Distance || dist == b.Distance && size < len(b.Covered)+len(b.NotCovered) {
				b.Distance, b.Covered, b.NotCovered = dist, texts[c], texts[n]
			}
		}
	}
}

// symmetricDifference counts the ids in exactly one of two sorted lists.
func symmetricDifference(a, b []int) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i++
			j++
		case a[i] < b[j]:
			n++
			i++
		default:
			n++
			j++
		}
	}
	return n + len(a) - i + len(b) - j
}

// learnerData is the dataset of a learner's features and training
// inputs, and how long reading the features took.
type learnerData struct {
	kinds    features.Kinds
	train    int
	examples *learn.Examples
	d        *learn.Dataset
	took     time.Duration
}

func newLearnerData(ctx context.Context, cfg LearnersConfig, l Learner, examples *learn.Examples) (*learnerData, error) {
	start := time.Now()
	examples = examples.Head(l.Train)
	d, err := examples.DatasetContext(ctx, cfg.Grammar, features.Options{MaxK: cfg.K, Kinds: l.Features})
	if err != nil {
		return nil, err
	}
	return &learnerData{kinds: l.Features, train: l.Train, examples: examples, d: d, took: time.Since(start)}, nil
}

// runLearner trains and scores one learner on its dataset, which
// training does not change. Its training time includes reading the
// dataset's features, whether or not an earlier learner's run read them.
func runLearner(ctx context.Context, cfg LearnersConfig, l Learner, data *learnerData, ts *testSet, last bool) (*LearnerResult, error) {
	start := time.Now().Add(-data.took)
	examples, d := data.examples, data.d
	opts := learn.TrainOptions{Options: cfg.Learn, Seed: cfg.Seed, NoBalance: l.NoBalance, BalancedLeaves: l.NoRecount}
	if l.MaxDepth > 0 {
		opts.MaxDepth = l.MaxDepth
	}
	var (
		res         *E3Result
		fns         []learn.FunctionModel
		predictTime time.Duration
	)
	if l.Bag > 0 {
		e, err := fitEnsemble(ctx, cfg.Grammar, d, ensembleConfig{Subject: cfg.Subject, GrammarName: cfg.GrammarName, Train: opts, Bags: l.Bag})
		if err != nil {
			return nil, err
		}
		trainTime := time.Since(start)
		res = &E3Result{Subject: cfg.Subject, FunctionsObserved: e.model.Stats.Observed, FunctionsTrainable: len(e.functions),
			TrainInputs: d.Rows, TrainSeconds: trainTime.Seconds(), DistinctLabels: distinctLabels(d, e.functions)}
		start = time.Now()
		res.assessEnsemble(e, ts)
		predictTime = time.Since(start)
	} else {
		model, err := learn.TrainModel(ctx, cfg.Grammar, d, learn.ModelConfig{Subject: cfg.Subject, GrammarName: cfg.GrammarName, Train: opts})
		if err != nil {
			return nil, err
		}
		trainTime := time.Since(start)
		fns = model.Functions
		p, err := learn.NewPredictor(model, cfg.Grammar)
		if err != nil {
			return nil, err
		}
		res = &E3Result{Subject: cfg.Subject, FunctionsObserved: model.Stats.Observed, FunctionsTrainable: len(fns),
			TrainInputs: d.Rows, TrainSeconds: trainTime.Seconds(), DistinctLabels: distinctLabels(d, fns)}
		start = time.Now()
		res.assess(model, p.PredictTrees, fns, ts) // predicts every test input once
		predictTime = time.Since(start)
	}
	present := 0
	for _, c := range d.Columns {
		present += c.Count()
	}
	out := &LearnerResult{Learner: l, Subject: cfg.Subject, Features: l.Features.String(), E3Result: res,
		Vocabulary: d.Vocab.Len(), Candidates: len(d.Candidates()), PerInput: float64(present) / float64(max(1, d.Rows)),
		PredictPerSecond: float64(len(ts.trees)) / max(predictTime.Seconds(), 1e-9)}
	if last && fns != nil { // an ensemble has no one tree to look into
		out.Blind = blind(d, fns, examples, res)
	}
	return out, nil
}

// LearnerSuiteConfig runs the learner comparison on several bundled
// subjects.
type LearnerSuiteConfig struct {
	Subjects []string // bundled subjects; empty means all
	Learners []Learner
	Test     int
	Seed     uint64
	// NoConstraints generates the training and test corpora without
	// regard to the grammars' constraints (E3Config.NoConstraints); by
	// default their inputs satisfy them.
	NoConstraints bool
	Out           string // learners.csv, learners.json and the work folders
	CacheDir      string
	Progress      func(Step)
}

// LearnerSuiteResult is every learner on every subject.
type LearnerSuiteResult struct {
	Seed    uint64            `json:"seed"`
	Results []LearnerResult   `json:"results"`
	Errors  map[string]string `json:"errors,omitempty"` // by subject
}

// LearnerSuite runs Learners on every subject in turn, rewriting
// learners.csv and learners.json after each, so an interrupted run keeps
// what it finished. A subject that fails is noted and the run goes on.
func LearnerSuite(ctx context.Context, cfg LearnerSuiteConfig) (*LearnerSuiteResult, error) {
	names := cfg.Subjects
	if len(names) == 0 {
		for _, s := range datasets.Subjects() {
			names = append(names, s.Name)
		}
	}
	res := &LearnerSuiteResult{Seed: cfg.Seed, Errors: map[string]string{}}
	for i, name := range names {
		progress := func(text string) {
			if cfg.Progress != nil {
				cfg.Progress(Step{Done: i, Total: len(names), Text: name + ": " + text})
			}
		}
		s, err := subject.Load(ctx, name)
		if err == nil {
			var rs []LearnerResult
			rs, err = Learners(ctx, LearnersConfig{E3Config: E3Config{Subject: s.Name, GrammarName: s.GrammarName, Grammar: s.Grammar,
				Target: s.Target, Test: cfg.Test, Seed: cfg.Seed, NoConstraints: cfg.NoConstraints, WorkDir: filepath.Join(cfg.Out, "work-"+name), CacheDir: cfg.CacheDir,
				Progress: progress}, Learners: cfg.Learners})
			res.Results = append(res.Results, rs...)
		}
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			res.Errors[name] = err.Error()
		}
		if err := WriteLearners(cfg.Out, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// WriteLearners writes learners.csv and learners.json to dir.
func WriteLearners(dir string, r *LearnerSuiteResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	header, rows := r.CSVTable()
	if err := writeCSV(filepath.Join(dir, "learners.csv"), header, rows); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "learners.json"), r)
}
