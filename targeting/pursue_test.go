package targeting_test

import (
	"context"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
	"github.com/arbor-fuzz/arbor/targeting"
)

// The loop's fixture: lists of words and calls. Its program runs "rare"
// only when the calls g(d), h(a) and f(b) all occur: a conjunction across
// three calls, which random inputs meet a few times in a thousand, and
// which features of single calls describe only loosely, so that the first
// tree, fitted on a handful of positives, aims at the wrong thing.
const listGrammar = `List := Item ("," Item)* ;
Item := Word | Call ;
Call := Name "(" Word ")" ;
Name := "f" | "g" | "h" ;
Word := "a" | "b" | "c" | "d" ;
`

var listFunctions = []string{"list", "call", "word", "rare", "never"}

// listProgram is the fixture's program, as a Runner: which functions an
// input runs.
type listProgram struct{ runs int }

func (p *listProgram) Functions() []string { return listFunctions }

func (p *listProgram) Run(_ context.Context, input []byte) (*coverage.Result, error) {
	p.runs++
	return &coverage.Result{Outcome: coverage.OK, Covered: listCovers(string(input))}, nil
}

func listCovers(s string) []int {
	out := []int{0}
	if strings.Contains(s, "(") {
		out = append(out, 1)
	}
	if strings.ContainsAny(s, "abcd") {
		out = append(out, 2)
	}
	if strings.Contains(s, "g(d)") && strings.Contains(s, "h(a)") && strings.Contains(s, "f(b)") {
		out = append(out, 3)
	}
	return out
}

// listModel trains a model of the fixture on n random inputs.
func listModel(t testing.TB, n int) (*learn.Predictor, int) {
	t.Helper()
	return listModelOf(t, listGrammar, n)
}

// listModelOf is listModel of another grammar of the same language.
func listModelOf(t testing.TB, src string, n int) (*learn.Predictor, int) {
	t.Helper()
	rare := 0
	p := modelOf(t, "list", src, listFunctions, func(text string) []int {
		cov := listCovers(text)
		if len(cov) == 4 {
			rare++
		}
		return cov
	}, n, 3, features.KPaths)
	return p, rare
}

// modelOf trains a model of a fixture program on n random inputs of
// grammar src (seed seed), covers saying what each input runs.
func modelOf(t testing.TB, name, src string, functions []string, covers func(string) []int, n int, seed uint64, kinds features.Kinds) *learn.Predictor {
	t.Helper()
	g := fixture.Build(t, name+".grammar", src)
	gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
	e := &learn.Examples{Functions: functions, Skipped: map[string]int{}}
	for range n {
		text := gen.Generate().String()
		trees, err := g.ParseAll([]byte(text), grammar.DefaultTreeLimit)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		e.Trees = append(e.Trees, trees)
		e.Covered = append(e.Covered, covers(text))
		e.Inputs = append(e.Inputs, text)
	}
	d := e.Dataset(g, features.Options{MaxK: 3, Kinds: kinds})
	opts := learn.TrainOptions{Seed: 1}
	fns, err := learn.Train(context.Background(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := learn.NewPredictor(learn.NewModel(name, name, g, d, fns, opts), g)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPursueRare: the loop reaches a rare function the first model
// cannot describe within a small budget, and hardly without learning:
// the first tree's constraints alone, solved again and again, find it
// only by the chance of the solver's exploration. Both draw at random,
// so each runs with eight seeds: the loop must reach the inputs asked
// for with at least six, the first tree alone with at most three. Every
// input the loop keeps runs the function, and its accounting adds up.
func TestPursueRare(t *testing.T) {
	p, rare := listModel(t, 1000)
	if rare == 0 || rare > 10 {
		t.Fatalf("the fixture should be rare: %d of 1000 training inputs ran it", rare)
	}
	const want, budget = 3, 200
	run := func(seed uint64, noLearn bool) *targeting.Pursuit {
		prog := &listProgram{}
		loop, err := targeting.NewLoop(p, prog)
		if err != nil {
			t.Fatal(err)
		}
		res, err := loop.Pursue(context.Background(), "rare", targeting.PursueOptions{Want: want, Budget: budget, Seed: seed, NoLearn: noLearn})
		if err != nil {
			t.Fatal(err)
		}
		if res.Executions != prog.runs || res.Executions > budget {
			t.Errorf("noLearn=%v: %d executions reported, %d made, budget %d", noLearn, res.Executions, prog.runs, budget)
		}
		for _, in := range res.Inputs {
			if len(listCovers(in.Text)) != 4 {
				t.Errorf("kept %q, which does not run rare", in.Text)
			}
			if in.Execution < 1 || in.Execution > res.Executions {
				t.Errorf("kept %q at execution %d of %d", in.Text, in.Execution, res.Executions)
			}
		}
		sum, hits := 0, 0
		for src, n := range res.Sources {
			sum += n
			hits += res.Hits[src]
		}
		if sum != res.Executions || hits != len(res.Inputs) {
			t.Errorf("sources %v add up to %d, not %d executions; hits %v to %d, not %d inputs", res.Sources, sum, res.Executions, res.Hits, hits, len(res.Inputs))
		}
		return res
	}
	reached, found, foundWithout, reachedWithout := 0, 0, 0, 0
	for seed := uint64(1); seed <= 8; seed++ {
		with := run(seed, false)
		if len(with.Inputs) >= want {
			reached++
			if with.Stopped != "done" {
				t.Errorf("seed %d: %d inputs but stopped %q", seed, len(with.Inputs), with.Stopped)
			}
		} else if with.Stopped != "budget" {
			t.Errorf("seed %d: %d inputs, stopped %q before the budget", seed, len(with.Inputs), with.Stopped)
		}
		without := run(seed, true)
		found += len(with.Inputs)
		foundWithout += len(without.Inputs)
		if len(without.Inputs) >= want {
			reachedWithout++
		}
		t.Logf("seed %d: with the loop %d inputs in %d executions (first hit at %d), by %v; without: %d in %d",
			seed, len(with.Inputs), with.Executions, with.FirstHit, with.Hits, len(without.Inputs), without.Executions)
	}
	if reached < 6 || reachedWithout > 3 || reached < reachedWithout+3 {
		t.Errorf("the loop reached %d inputs with %d of 8 seeds (want at least 6) and found %d in all; the first tree alone reached them with %d seeds (want at most 3) and found %d",
			want, reached, found, reachedWithout, foundWithout)
	}
}

// TestPursueBudget: a function nothing can reach stops at the budget
// and says so.
func TestPursueBudget(t *testing.T) {
	p, _ := listModel(t, 200)
	loop, err := targeting.NewLoop(p, &listProgram{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := loop.Pursue(context.Background(), "never", targeting.PursueOptions{Want: 3, Budget: 40, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 0 || res.Executions != 40 || res.Stopped != "budget" || res.FirstHit != 0 {
		t.Errorf("unreachable function: %d inputs, %d executions, stopped %q, first hit %d", len(res.Inputs), res.Executions, res.Stopped, res.FirstHit)
	}
	if _, err := loop.Pursue(context.Background(), "nosuch", targeting.PursueOptions{}); err == nil {
		t.Error("pursuing an unknown function gave no error")
	}
	// The refined model keeps every row the loop ran.
	if m := loop.Model(); m.Data.Rows != 200+40 {
		t.Errorf("refined model has %d rows, want %d", m.Data.Rows, 240)
	}
}

// TestPursueDeterministic: the same seed makes the same pursuit.
func TestPursueDeterministic(t *testing.T) {
	p, _ := listModel(t, 400)
	var runs [2]*targeting.Pursuit
	for i := range runs {
		loop, err := targeting.NewLoop(p, &listProgram{})
		if err != nil {
			t.Fatal(err)
		}
		if runs[i], err = loop.Pursue(context.Background(), "call", targeting.PursueOptions{Want: 5, Budget: 30, Seed: 9}); err != nil {
			t.Fatal(err)
		}
	}
	a, b := runs[0], runs[1]
	if a.Executions != b.Executions || len(a.Inputs) != len(b.Inputs) {
		t.Fatalf("two pursuits with one seed: %d and %d executions, %d and %d inputs", a.Executions, b.Executions, len(a.Inputs), len(b.Inputs))
	}
	for i := range a.Inputs {
		if a.Inputs[i].Text != b.Inputs[i].Text {
			t.Errorf("input %d: %q and %q", i, a.Inputs[i].Text, b.Inputs[i].Text)
		}
	}
}

// recording is a Runner that keeps the inputs it runs.
type recording struct {
	listProgram
	inputs []string
}

func (r *recording) Run(ctx context.Context, input []byte) (*coverage.Result, error) {
	r.inputs = append(r.inputs, string(input))
	return r.listProgram.Run(ctx, input)
}

// TestPursueConstraints (issue 26): with the grammar's constraints, every
// input the loop runs satisfies them (the solver's, the mutator's and
// random ones alike, repaired where they break one), and the loop still
// reaches the rare function.
func TestPursueConstraints(t *testing.T) {
	// At most one plain word, and no call twice with one name: the rare
	// function's three calls still fit.
	src := listGrammar + `where count(Item, {.text matches "^[abcd]$"}) <= 1 ;
where len(uniq(map(Name, .text))) == len(Name) ;
`
	p, _ := listModelOf(t, src, 1000)
	set, err := constraint.Compile(p.Graph)
	if err != nil {
		t.Fatal(err)
	}
	check := constraint.NewChecker(set)
	reached := 0
	for seed := uint64(1); seed <= 4; seed++ {
		prog := &recording{}
		loop, err := targeting.NewLoop(p, prog)
		if err != nil {
			t.Fatal(err)
		}
		res, err := loop.Pursue(context.Background(), "rare", targeting.PursueOptions{Want: 2, Budget: 300, Seed: seed, Constraints: set})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range prog.inputs {
			tree, err := p.Graph.Parse([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			if vs := check.Check(tree); len(vs) > 0 && res.BrokenRuns == 0 {
				t.Fatalf("seed %d ran %q, which breaks %s", seed, in, vs[0].Clause)
			}
		}
		if res.Repaired == 0 {
			t.Errorf("seed %d: nothing repaired", seed)
		}
		if len(res.Inputs) == 2 {
			reached++
		}
		t.Logf("seed %d: %d inputs in %d executions; repaired %d, dropped %d, run broken %d", seed, len(res.Inputs), res.Executions, res.Repaired, res.Dropped, res.BrokenRuns)
	}
	if reached < 3 {
		t.Errorf("the loop reached the rare function with %d of 4 seeds, want at least 3", reached)
	}
}
