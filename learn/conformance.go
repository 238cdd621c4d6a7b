package learn

import (
	"context"
	"runtime"
	"slices"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/parallel"
)

// Conformance counts how recorded inputs fare against a grammar's
// constraints (its where clauses), crossed with the outcome the program
// gave each: inputs that break a constraint and were accepted say the
// constraints are stricter than the program, inputs that keep them all
// and were rejected say the program checks more than they do. An input
// is judged by its first parse tree, as 'arbor grammar check' judges a
// sample.
type Conformance struct {
	Clauses   int `json:"clauses"`    // where clauses checked
	Inputs    int `json:"inputs"`     // inputs counted, parsed or not
	NotParsed int `json:"not_parsed"` // of them, those that do not parse, so are not checked
	Broken    int `json:"broken"`     // inputs that break at least one clause
	// The inputs that parse, by whether they break a clause and whether
	// the program accepted (outcome ok) or rejected (outcome error) them;
	// an input that made it panic or time out is in none.
	BrokenAccepted    int `json:"broken_accepted"`
	BrokenRejected    int `json:"broken_rejected"`
	SatisfiedAccepted int `json:"satisfied_accepted"`
	SatisfiedRejected int `json:"satisfied_rejected"`
	// ByClause has a count per clause, in the grammar's order.
	ByClause []ClauseConformance `json:"by_clause"`
}

// ClauseConformance counts the inputs that break one clause.
type ClauseConformance struct {
	Clause   string `json:"clause"`   // the clause as written
	Pos      string `json:"pos"`      // its file:line:col
	Broken   int    `json:"broken"`   // inputs that break it, each once however often
	Accepted int    `json:"accepted"` // of them, those the program accepted
}

// RecordedInput is one input to count: its bytes and the outcome the
// program gave it.
type RecordedInput struct {
	Data    []byte
	Outcome coverage.Outcome
}

// CheckInputs parses n inputs with the grammar of set, checks each that
// parses against set's clauses and counts them (Conformance). input(i)
// gives the i'th input, or false to leave it out; it is called from
// several goroutines at once. An input that does not parse, or breaks a
// clause, is counted, never an error. When ctx is done CheckInputs
// returns its error.
func CheckInputs(ctx context.Context, set *constraint.Set, n int, input func(i int) (RecordedInput, bool)) (*Conformance, error) {
	clauses := set.Clauses()
	c := &Conformance{Clauses: len(clauses), ByClause: make([]ClauseConformance, len(clauses))}
	index := make(map[*constraint.Clause]int, len(clauses))
	for i, cl := range clauses {
		index[cl] = i
		c.ByClause[i] = ClauseConformance{Clause: cl.String(), Pos: cl.Where.Pos.String()}
	}
	type checked struct {
		skip, parsed bool
		outcome      coverage.Outcome
		broken       []int // the clauses the input breaks, each once
		err          error // the context's, if it stopped the parse
	}
	workers := runtime.GOMAXPROCS(0)
	g := set.Graph()
	parsers := make([]*grammar.Parser, workers)
	checkers := make([]*constraint.Checker, workers)
	for w := range workers {
		parsers[w], checkers[w] = g.NewParser(), constraint.NewChecker(set)
	}
	err := parallel.Ordered(ctx, n, workers, func(w, i int) checked {
		in, ok := input(i)
		if !ok {
			return checked{skip: true}
		}
		t, err := parsers[w].ParseContext(ctx, in.Data, grammar.ParseOptions{})
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return checked{err: cerr} // not the input's fault
			}
			return checked{outcome: in.Outcome}
		}
		x := checked{parsed: true, outcome: in.Outcome}
		for _, v := range checkers[w].Check(t) {
			if ci := index[v.Clause]; !slices.Contains(x.broken, ci) {
				x.broken = append(x.broken, ci)
			}
		}
		return x
	}, func(_ int, x checked) error {
		if x.err != nil {
			return x.err
		}
		if !x.skip {
			c.add(x.parsed, x.broken, x.outcome)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// add counts one input: whether it parses, the clauses it breaks and the
// program's outcome.
func (c *Conformance) add(parsed bool, broken []int, outcome coverage.Outcome) {
	c.Inputs++
	if !parsed {
		c.NotParsed++
		return
	}
	accepted, rejected := outcome == coverage.OK, outcome == coverage.Error
	if len(broken) == 0 {
		switch {
		case accepted:
			c.SatisfiedAccepted++
		case rejected:
			c.SatisfiedRejected++
		}
		return
	}
	c.Broken++
	switch {
	case accepted:
		c.BrokenAccepted++
	case rejected:
		c.BrokenRejected++
	}
	for _, ci := range broken {
		c.ByClause[ci].Broken++
		if accepted {
			c.ByClause[ci].Accepted++
		}
	}
}

// CheckRecorded counts the inputs of recorded coverage that training
// takes (ParseExamples): each record whose input data holds (by sha256)
// and that did not make the program panic or time out.
func CheckRecorded(ctx context.Context, set *constraint.Set, cov *coverage.File, data map[string][]byte) (*Conformance, error) {
	return CheckInputs(ctx, set, len(cov.Records), func(i int) (RecordedInput, bool) {
		r := &cov.Records[i]
		if r.Outcome == coverage.Panic || r.Outcome == coverage.Timeout {
			return RecordedInput{}, false
		}
		in, ok := data[r.SHA256]
		return RecordedInput{Data: in, Outcome: r.Outcome}, ok
	})
}
