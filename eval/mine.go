package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/mine"
	"github.com/arbor-fuzz/arbor/subject"
)

// MineConfig configures the mining experiment on one subject: its
// grammar's own where clauses are the answer key. The corpus is
// grammar-random and ignores those clauses (mining needs rejected
// inputs); E3Config's Subject, GrammarName, Grammar, Target, Seed,
// WorkDir, CacheDir and Progress mean what they mean for E3.
type MineConfig struct {
	E3Config
	// Sizes are the corpus sizes mined from (the first inputs of one
	// corpus); default 300, 1000, 3000.
	Sizes []int
}

// DefaultMineSizes are the corpus sizes mining is measured at.
var DefaultMineSizes = []int{300, 1000, 3000}

// RecoverJaccard is how alike, as the Jaccard index of the sets of
// corpus inputs they break, a mined clause and a hand-written one must be
// for the mined one to recover it; PartialJaccard for it to say part of
// it (a range check on numbers where the hand-written one also reads
// month names).
const RecoverJaccard, PartialJaccard = 0.9, 0.5

// MineResult is how mining did on one subject.
type MineResult struct {
	Subject string       `json:"subject"`
	Clauses int          `json:"clauses"` // the grammar's hand-written clauses
	Sizes   []MineAtSize `json:"sizes"`
}

// MineAtSize is mining from the first Inputs inputs of the corpus.
type MineAtSize struct {
	Inputs    int `json:"inputs"`
	Accepted  int `json:"accepted"`
	Rejected  int `json:"rejected"`
	NotParsed int `json:"not_parsed"`
	// Error says why nothing was mined (no rejected input), if so.
	Error string `json:"error,omitempty"`
	// Per hand-written clause, the mined clause that breaks the most
	// alike set of inputs, and how alike.
	Matches []ClauseMatch `json:"matches"`
	// Recovered, Partial: hand-written clauses matched at RecoverJaccard
	// and at PartialJaccard; Unexercised: those no input of the corpus
	// breaks, which no miner could find from it.
	Recovered   int `json:"recovered"`
	Partial     int `json:"partial"`
	Unexercised int `json:"unexercised"`
	// Candidates mined; MeanPrecision their mean precision; Novel those
	// that match no hand-written clause even partly.
	Candidates    int              `json:"candidates"`
	MeanPrecision float64          `json:"mean_precision"`
	Novel         []mine.Candidate `json:"novel"`
}

// ClauseMatch is one hand-written clause and the mined clause closest to
// it.
type ClauseMatch struct {
	Clause  string  `json:"clause"`
	Breaks  int     `json:"breaks"` // corpus inputs that break it
	Mined   string  `json:"mined,omitempty"`
	Jaccard float64 `json:"jaccard"`
}

// Mine runs the mining experiment on one subject: it records one
// corpus of the largest size, then mines from its first inputs at every
// size and compares the candidates with the grammar's own clauses by the
// inputs each breaks.
func Mine(ctx context.Context, cfg MineConfig) (*MineResult, error) {
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = DefaultMineSizes
	}
	cfg.NoConstraints = true
	cfg.setDefaults()
	set, err := constraint.Compile(cfg.Grammar)
	if err != nil {
		return nil, err
	}
	res := &MineResult{Subject: cfg.Subject, Clauses: set.Len()}
	if set.Len() == 0 {
		return res, fmt.Errorf("grammar %s has no where clauses to compare with", cfg.GrammarName)
	}
	step := progressf(cfg.Progress)
	n := slices.Max(cfg.Sizes)
	step("generating %d inputs", n)
	files, data, err := generate(ctx, cfg.E3Config, "mine", n, cfg.Seed)
	if err != nil {
		return nil, err
	}
	step("building the harness for %s", cfg.Target)
	bin, err := coverage.Build(ctx, cfg.Target, cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	step("recording %d inputs", n)
	cov, err := recordFresh(ctx, bin, files, filepath.Join(cfg.WorkDir, "mine.cov.jsonl"), cfg.Subject)
	if err != nil {
		return nil, err
	}
	all, _ := mine.Recorded(cov, data)
	for _, size := range slices.Sorted(slices.Values(cfg.Sizes)) {
		step("mining from %d inputs", size)
		at, err := mineAt(ctx, cfg.Grammar, set, all[:min(size, len(all))])
		if err != nil {
			return res, err
		}
		res.Sizes = append(res.Sizes, *at)
	}
	return res, nil
}

// mineAt mines from inputs and matches the candidates with set's
// clauses.
func mineAt(ctx context.Context, g *grammar.Graph, set *constraint.Set, inputs []mine.Input) (*MineAtSize, error) {
	at := &MineAtSize{Inputs: len(inputs)}
	rep, err := mine.Clauses(ctx, g, inputs, mine.Options{})
	if rep != nil {
		at.Accepted, at.Rejected, at.NotParsed = rep.Accepted, rep.Rejected, rep.NotParsed
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		at.Error = err.Error()
		return at, nil
	}
	// The inputs that parse, in the order mine.Clauses numbers them,
	// and the hand-written clauses each breaks.
	clauses := set.Clauses()
	broken := make([][]bool, len(clauses))
	for i := range broken {
		broken[i] = make([]bool, 0, len(inputs))
	}
	check := constraint.NewChecker(set)
	for _, in := range inputs {
		t, err := g.ParseContext(ctx, in.Data, grammar.ParseOptions{})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		var hit []bool = make([]bool, len(clauses))
		for _, v := range check.Check(t) {
			hit[slices.Index(clauses, v.Clause)] = true
		}
		for i := range clauses {
			broken[i] = append(broken[i], hit[i])
		}
	}
	at.Candidates = len(rep.Candidates)
	matched := make([]bool, len(rep.Candidates))
	for i, cl := range clauses {
		m := ClauseMatch{Clause: cl.String()}
		for _, b := range broken[i] {
			if b {
				m.Breaks++
			}
		}
		if m.Breaks == 0 {
			at.Unexercised++
			at.Matches = append(at.Matches, m)
			continue
		}
		for j := range rep.Candidates {
			c := &rep.Candidates[j]
			both, either := 0, 0
			for r, b := range broken[i] {
				if b && c.Broken(r) {
					both++
				}
				if b || c.Broken(r) {
					either++
				}
			}
			jac := float64(both) / float64(either)
			if jac >= PartialJaccard {
				matched[j] = true
			}
			if jac > m.Jaccard {
				m.Jaccard, m.Mined = jac, c.Clause
			}
		}
		switch {
		case m.Jaccard >= RecoverJaccard:
			at.Recovered++
		case m.Jaccard >= PartialJaccard:
			at.Partial++
		}
		at.Matches = append(at.Matches, m)
	}
	for j, c := range rep.Candidates {
		at.MeanPrecision += c.Precision / float64(len(rep.Candidates))
		if !matched[j] {
			at.Novel = append(at.Novel, c)
		}
	}
	return at, nil
}

// MineSuiteConfig configures mining on every bundled subject whose
// grammar has where clauses.
type MineSuiteConfig struct {
	Subjects []string // default: every bundled subject whose grammar has clauses
	Sizes    []int
	Seed     uint64
	Out      string // work files per subject
	CacheDir string
	Progress func(Step)
}

// MineSuite runs Mine on each subject; a subject that fails is reported
// in Errors and the rest go on.
func MineSuite(ctx context.Context, cfg MineSuiteConfig) ([]MineResult, map[string]string, error) {
	names := cfg.Subjects
	if len(names) == 0 {
		for _, s := range datasets.Subjects() {
			g, err := datasets.LoadGrammar(s.Grammar)
			if err != nil {
				continue
			}
			if set, err := constraint.Compile(g); err == nil && set.Len() > 0 {
				names = append(names, s.Name)
			}
		}
	}
	var out []MineResult
	errs := map[string]string{}
	for i, name := range names {
		progress := func(text string) {
			if cfg.Progress != nil {
				cfg.Progress(Step{Done: i, Total: len(names), Text: name + ": " + text})
			}
		}
		s, err := subject.Load(ctx, name)
		if err == nil {
			var r *MineResult
			r, err = Mine(ctx, MineConfig{E3Config: E3Config{Subject: s.Name, GrammarName: s.GrammarName, Grammar: s.Grammar,
				Target: s.Target, Seed: cfg.Seed, WorkDir: filepath.Join(cfg.Out, "work-"+name), CacheDir: cfg.CacheDir,
				Progress: progress}, Sizes: cfg.Sizes})
			if r != nil {
				out = append(out, *r)
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return out, errs, ctx.Err()
			}
			errs[name] = err.Error()
		}
	}
	return out, errs, nil
}
