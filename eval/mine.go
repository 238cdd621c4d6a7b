package eval

import (
	"context"
	"fmt"
	"maps"
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
// grammar's own where clauses are the answer key. The corpus alternates
// grammar-random inputs that ignore those clauses with inputs that keep
// them (mining needs rejected inputs and accepted ones); the program's
// verdicts alone say which is which. E3Config's Subject, GrammarName,
// Grammar, Target, Seed, WorkDir, CacheDir and Progress mean what they
// mean for E3.
type MineConfig struct {
	E3Config
	// Sizes are the corpus sizes mined from (the first inputs of one
	// corpus); default 300, 1000, 3000.
	Sizes []int
}

// DefaultMineSizes are the corpus sizes mining is measured at.
var DefaultMineSizes = []int{300, 1000, 3000}

// A mined clause recovers a hand-written one H when it breaks at least
// RecoverShare of the inputs that break H (hit), and at most MaxStray of
// the inputs that break other clauses but not H and at most MaxStray of
// those that break none (stray, the larger of the two): it says H's
// check, not "the input breaks something". It says H partly with a hit
// of PartialShare and the same stray. H cannot be judged from a corpus
// with fewer than MinBreaks inputs in any of the three groups: a clause
// that nearly every grammar-random input breaks cannot be told from
// "the input is grammar-random".
const (
	RecoverShare = 0.9
	PartialShare = 0.5
	MaxStray     = 0.1
	MinBreaks    = 5
)

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
	// Recovered, Partial: hand-written clauses recovered at RecoverShare
	// and at PartialShare; Unexercised: those the corpus cannot judge
	// (fewer than MinBreaks inputs break them, or break only others, or
	// break none).
	Recovered   int `json:"recovered"`
	Partial     int `json:"partial"`
	Unexercised int `json:"unexercised"`
	// Candidates mined; MeanPrecision their mean precision; Novel those
	// that match no hand-written clause even partly.
	Candidates    int              `json:"candidates"`
	MeanPrecision float64          `json:"mean_precision"`
	Novel         []mine.Candidate `json:"novel"`
}

// ClauseMatch is one hand-written clause and the mined clause that says
// it best.
type ClauseMatch struct {
	Clause string `json:"clause"`
	Breaks int    `json:"breaks"` // corpus inputs that break it
	// Judged is false for a clause the corpus cannot judge (Unexercised).
	Judged bool   `json:"judged"`
	Mined  string `json:"mined,omitempty"`
	// Hit is the share of the inputs that break the clause that the
	// mined clause breaks; Stray the larger of the shares it breaks of
	// the inputs that break only other clauses and of those that break
	// none.
	Hit   float64 `json:"hit"`
	Stray float64 `json:"stray"`
}

// Mine runs the mining experiment on one subject: it records one
// corpus of the largest size, then mines from its first inputs at every
// size and compares the candidates with the grammar's own clauses by the
// inputs each breaks.
func Mine(ctx context.Context, cfg MineConfig) (*MineResult, error) {
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = DefaultMineSizes
	}
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
	// Half the corpus ignores the clauses and half keeps them, every
	// other input, so that every size has both: a program rejects most
	// grammar-random inputs of some formats (every graphql query fails
	// validation), and mining needs accepted ones.
	step("generating %d inputs", n)
	random := cfg.E3Config
	random.NoConstraints = true
	rs, err := generate(ctx, random, "mine-random", (n+1)/2, cfg.Seed)
	if err != nil {
		return nil, err
	}
	keeping := cfg.E3Config
	keeping.NoConstraints = false
	ks, err := generate(ctx, keeping, "mine-keeping", n/2, cfg.Seed+1)
	if err != nil {
		return nil, err
	}
	var files []string
	for i := range rs.files {
		files = append(files, rs.files[i])
		if i < len(ks.files) {
			files = append(files, ks.files[i])
		}
	}
	data := rs.data
	maps.Copy(data, ks.data)
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
	rows := len(broken[0])
	others := make([]int, rows) // per input, the hand-written clauses it breaks
	for i := range clauses {
		for r, b := range broken[i] {
			if b {
				others[r]++
			}
		}
	}
	for i, cl := range clauses {
		m := ClauseMatch{Clause: cl.String()}
		var other, clean int // inputs that break other clauses but not this one; that break none
		for r, b := range broken[i] {
			switch {
			case b:
				m.Breaks++
			case others[r] > 0:
				other++
			default:
				clean++
			}
		}
		if m.Breaks < MinBreaks || other < MinBreaks || clean < MinBreaks {
			at.Unexercised++
			at.Matches = append(at.Matches, m)
			continue
		}
		m.Judged = true
		best := -1.0
		for j := range rep.Candidates {
			c := &rep.Candidates[j]
			hit, stray, alarm := 0, 0, 0
			for r, b := range broken[i] {
				switch {
				case !c.Broken(r):
				case b:
					hit++
				case others[r] > 0:
					stray++
				default:
					alarm++
				}
			}
			h := float64(hit) / float64(m.Breaks)
			st := max(float64(stray)/float64(other), float64(alarm)/float64(clean))
			if h >= PartialShare && st <= MaxStray {
				matched[j] = true
			}
			if score := h - st; score > best {
				best, m.Hit, m.Stray, m.Mined = score, h, st, c.Clause
			}
		}
		switch {
		case m.Hit >= RecoverShare && m.Stray <= MaxStray:
			at.Recovered++
		case m.Hit >= PartialShare && m.Stray <= MaxStray:
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
