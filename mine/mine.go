package mine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/parallel"
)

// Input is one recorded input and whether the program accepted it.
type Input struct {
	Data     []byte
	Accepted bool
}

// Options tune the search; zero values mean the defaults.
type Options struct {
	// MinSupport is the fewest rejected inputs a candidate must explain
	// (default 2: a relation seen once is an anecdote).
	MinSupport int
	// MinPrecision is the least share of rejected inputs among those a
	// candidate's clause breaks (default 0.5: more rejected than
	// accepted, so that the list shows near misses for review too).
	MinPrecision float64
	// Max is the most candidates reported (default 20).
	Max int
}

func (o Options) withDefaults() Options {
	if o.MinSupport <= 0 {
		o.MinSupport = 2
	}
	if o.MinPrecision <= 0 {
		o.MinPrecision = 0.5
	}
	if o.Max <= 0 {
		o.Max = 20
	}
	return o
}

// Candidate is one proposed clause.
type Candidate struct {
	Clause   string `json:"clause"`   // the clause, as the notation writes it
	Relation string `json:"relation"` // the relation it forbids, as explanations print it
	// Breaks is the inputs that break the clause; Support those of them
	// the program rejected; Precision = Support / Breaks; Recall =
	// Support / all rejected inputs.
	Breaks    int     `json:"breaks"`
	Support   int     `json:"support"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// New is the rejected inputs it breaks that no candidate before it
	// in the report breaks, and NewPrecision their share among the
	// inputs it breaks that no candidate before it breaks: what it adds.
	New          int     `json:"new"`
	NewPrecision float64 `json:"new_precision"`
	// broken marks the inputs (parsed, in order) that break the clause.
	broken []bool
	set    *constraint.Set // the compiled clause
}

// tally counts the inputs c.broken marks.
func (c *Candidate) tally(accepted []bool, rejected int) {
	c.Breaks, c.Support = 0, 0
	for i, b := range c.broken {
		if b {
			c.Breaks++
			if !accepted[i] {
				c.Support++
			}
		}
	}
	c.Precision = float64(c.Support) / float64(max(c.Breaks, 1))
	c.Recall = float64(c.Support) / float64(max(rejected, 1))
}

// Broken reports whether parsed input i (in Report order) breaks the
// clause.
func (c *Candidate) Broken(i int) bool { return i < len(c.broken) && c.broken[i] }

// Report is what Clauses found.
type Report struct {
	Inputs    int `json:"inputs"`     // inputs given
	NotParsed int `json:"not_parsed"` // of them, those the grammar does not parse: left out
	Accepted  int `json:"accepted"`   // parsed inputs the program accepted
	Rejected  int `json:"rejected"`   // and rejected
	// Relations is the relational features read off the inputs;
	// Considered those that met MinSupport and MinPrecision as features
	// and were written as clauses and checked.
	Relations  int         `json:"relations"`
	Considered int         `json:"considered"`
	Candidates []Candidate `json:"candidates"`
}

// ErrNothingToSeparate is returned for inputs of one verdict only: no
// relation can separate accepted inputs from rejected ones.
var ErrNothingToSeparate = errors.New("nothing to separate")

// maxConsidered bounds the relations written as clauses, the most
// precise first.
const maxConsidered = 200

// Clauses mines candidate clauses from inputs: the relations that occur
// in rejected inputs and rarely in accepted ones, each written as the
// clause that forbids it, checked on every input, and ranked by
// precision (smoothed: 500 of 505 before 2 of 2), then support. Inputs that do not parse are counted and left
// out. With no parsed accepted or no parsed rejected input it returns an
// error wrapping ErrNothingToSeparate that says which is missing.
func Clauses(ctx context.Context, g *grammar.Graph, inputs []Input, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	rep := &Report{Inputs: len(inputs)}
	var trees []*grammar.Tree
	var accepted []bool
	for _, in := range inputs {
		t, err := g.ParseContext(ctx, in.Data, grammar.ParseOptions{}) // a tree of its own: all are kept
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			rep.NotParsed++
			continue
		}
		trees = append(trees, t)
		accepted = append(accepted, in.Accepted)
		if in.Accepted {
			rep.Accepted++
		} else {
			rep.Rejected++
		}
	}
	switch {
	case len(trees) == 0 && len(inputs) > 0:
		return rep, fmt.Errorf("%w: none of the %d inputs parses with the grammar", ErrNothingToSeparate, len(inputs))
	case rep.Rejected == 0:
		return rep, fmt.Errorf("%w: the program accepted all %d parsed inputs; mining needs rejected ones", ErrNothingToSeparate, rep.Accepted)
	case rep.Accepted == 0:
		return rep, fmt.Errorf("%w: the program rejected all %d parsed inputs; mining needs accepted ones", ErrNothingToSeparate, rep.Rejected)
	}

	v := features.NewVocabulary(g, features.Options{MaxK: 1, Kinds: features.KPaths.With(features.Relation).With(features.Match)})
	corpus := make([][]*grammar.Tree, len(trees))
	for i, t := range trees {
		corpus[i] = []*grammar.Tree{t}
	}
	rows, err := v.FitContext(ctx, corpus)
	if err != nil {
		return nil, err
	}
	type count struct{ acc, rej int }
	counts := make([]count, v.Len())
	for i, row := range rows {
		for _, id := range row {
			if accepted[i] {
				counts[id].acc++
			} else {
				counts[id].rej++
			}
		}
	}
	type feat struct {
		id        int
		precision float64
	}
	var feats []feat
	for id, c := range counts {
		f := v.Feature(id)
		if f.Kind != features.Relation && f.Kind != features.Match {
			continue
		}
		rep.Relations++
		if c.rej < opts.MinSupport {
			continue
		}
		if float64(c.rej)/float64(c.rej+c.acc) >= opts.MinPrecision {
			feats = append(feats, feat{id, smoothed(c.rej, c.rej+c.acc)})
		}
	}
	slices.SortStableFunc(feats, func(a, b feat) int {
		if a.precision != b.precision {
			if a.precision > b.precision {
				return -1
			}
			return 1
		}
		return counts[b.id].rej - counts[a.id].rej
	})
	feats = feats[:min(len(feats), maxConsidered)]

	// Each relation, written as the clause that forbids it: first judged
	// by where the feature is present (which the clause breaks), to
	// choose; then the chosen ones are checked as clauses on every
	// input, which is what is reported. Checking every relation as a
	// clause would cost a check per relation and input.
	present := make([][]bool, v.Len())
	for i, row := range rows {
		for _, id := range row {
			if present[id] == nil {
				present[id] = make([]bool, len(trees))
			}
			present[id][i] = true
		}
	}
	var cands []Candidate
	for _, ft := range feats {
		f := v.Feature(ft.id)
		w, err := features.Where(g, f, false)
		if err != nil {
			continue // a relation no clause can say
		}
		set, err := constraint.CompileClauses(g, []*grammar.Where{w})
		if err != nil {
			continue
		}
		rep.Considered++
		c := Candidate{Clause: grammar.FormatWhere(w), Relation: f.Describe(g), broken: present[ft.id]}
		c.tally(accepted, rep.Rejected)
		c.set = set
		cands = append(cands, c)
	}
	chosen := cover(cands, accepted, Options{MinSupport: opts.MinSupport, MinPrecision: opts.MinPrecision, Max: 2 * opts.Max})
	// One candidate per task, each with a checker of its own; the trees
	// are only read.
	err = parallel.ForEach(ctx, len(chosen), runtime.GOMAXPROCS(0), func(j int) {
		c := &chosen[j]
		check := constraint.NewChecker(c.set)
		c.broken = make([]bool, len(trees))
		for i, t := range trees {
			if i%64 == 0 && ctx.Err() != nil {
				return
			}
			c.broken[i] = len(check.Check(t)) > 0
		}
		c.tally(accepted, rep.Rejected)
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	var checked []Candidate
	for _, c := range chosen {
		if c.Support >= opts.MinSupport && c.Precision >= opts.MinPrecision {
			checked = append(checked, c)
		}
	}
	cands = checked
	rep.Candidates = cover(cands, accepted, opts)
	return rep, nil
}

// smoothed is the precision pos/n with one rejected and one accepted
// input added (Laplace): it ranks 500 of 505 above 2 of 2.
// cover orders the candidates by sequential covering: each next one is
// the most precise (smoothed) on the inputs no candidate chosen so far
// breaks, among those that still explain MinSupport rejected inputs
// there at MinPrecision. A relation that only co-occurs with a rejection
// another candidate explains (a second mistake in an input that already
// has one) then drops out, and of two clauses that break the same
// inputs the shorter is kept.
func cover(cands []Candidate, accepted []bool, opts Options) []Candidate {
	explained := make([]bool, len(accepted))
	used := make([]bool, len(cands))
	var out []Candidate
	for len(out) < opts.Max {
		best, bestP := -1, 0.0
		var bestNew, bestBreaks int
		for j := range cands {
			if used[j] {
				continue
			}
			c := &cands[j]
			news, breaks := 0, 0
			for i, b := range c.broken {
				if b && !explained[i] {
					breaks++
					if !accepted[i] {
						news++
					}
				}
			}
			if news < opts.MinSupport || float64(news) < opts.MinPrecision*float64(breaks) {
				continue
			}
			p := smoothed(news, breaks)
			if best < 0 || p > bestP || p == bestP && (news > bestNew || news == bestNew && len(c.Clause) < len(cands[best].Clause)) {
				best, bestP, bestNew, bestBreaks = j, p, news, breaks
			}
		}
		if best < 0 {
			break
		}
		used[best] = true
		c := cands[best]
		c.New, c.NewPrecision = bestNew, float64(bestNew)/float64(bestBreaks)
		for i, b := range c.broken {
			explained[i] = explained[i] || b
		}
		out = append(out, c)
	}
	return out
}

func smoothed(pos, n int) float64 { return float64(pos+1) / float64(n+2) }

// Recorded returns the inputs of recorded coverage whose data holds (by
// sha256): accepted for outcome ok, rejected for outcome error; a record
// that made the program panic or time out says nothing about what it
// accepts, and is left out (skipped counts them, with records whose
// input is missing).
func Recorded(cov *coverage.File, data map[string][]byte) (inputs []Input, skipped int) {
	for _, r := range cov.Records {
		in, ok := data[r.SHA256]
		if !ok || (r.Outcome != coverage.OK && r.Outcome != coverage.Error) {
			skipped++
			continue
		}
		inputs = append(inputs, Input{Data: in, Accepted: r.Outcome == coverage.OK})
	}
	return inputs, skipped
}
