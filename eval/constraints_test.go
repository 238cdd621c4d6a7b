package eval

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// rangesGrammar has one constraint that about half of its random
// inputs break: a range's start is not past its end. Its inputs parse
// back to one tree each.
const rangesGrammar = `Ranges := Range (" " Range){,4} ;
Range := Start "-" End ;
Start := Num ; End := Num ;
Num := /[0-9]{1,2}/ ;
where Range: Start.num <= End.num ;
`

// broken counts the inputs of g that break one of its constraints,
// parsing each back.
func broken(t *testing.T, g *grammar.Graph, inputs []string) int {
	t.Helper()
	set, err := constraint.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	check := constraint.NewChecker(set)
	n := 0
	for _, in := range inputs {
		tree, err := g.Parse([]byte(in))
		if err != nil {
			t.Fatalf("%q does not parse: %v", in, err)
		}
		if len(check.Check(tree)) > 0 {
			n++
		}
	}
	return n
}

// TestRandomInputsConstraints (issue 26): the random inputs the
// experiments generate from a subject's grammar, E3's training and test
// corpora (and with them E4's, the learner comparison's, the suite's
// and the demo's) and E1's random sets, satisfy the grammar's
// constraints unless NoConstraints, and without them many do not.
func TestRandomInputsConstraints(t *testing.T) {
	g := fixture.Build(t, "ranges.grammar", rangesGrammar)
	for _, off := range []bool{false, true} {
		cfg := E3Config{Grammar: g, WorkDir: t.TempDir(), NoConstraints: off}
		cfg.setDefaults()
		s, err := generate(context.Background(), cfg, "train", 60, 1)
		if err != nil {
			t.Fatal(err)
		}
		if s.unrepaired != 0 {
			t.Errorf("constraints off %v: %d unrepaired inputs, want 0", off, s.unrepaired)
		}
		var corpus []string
		for _, f := range s.files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			corpus = append(corpus, string(b))
		}
		e1 := E1Config{Grammar: g, Ks: []int{1, 2}, Reps: 10, Seed: 1, NoConstraints: off}
		e1.setDefaults()
		sets, _, err := e1Sets(context.Background(), e1, func(string, ...any) {})
		if err != nil {
			t.Fatal(err)
		}
		var random []string
		for _, pairs := range sets {
			for _, p := range pairs {
				random = append(random, p.random...)
			}
		}
		for name, inputs := range map[string][]string{"E3's corpus": corpus, "E1's random sets": random} {
			n := broken(t, g, inputs)
			switch {
			case !off && n > 0:
				t.Errorf("%s with constraints: %d of %d inputs break one", name, n, len(inputs))
			case off && n < len(inputs)/5:
				t.Errorf("%s without constraints: only %d of %d inputs break one; the test cannot tell", name, n, len(inputs))
			}
		}
	}
}

// acceptAll is a subject that accepts every input and covers nothing.
type acceptAll struct{}

func (acceptAll) Functions() []string { return nil }

func (acceptAll) Run(context.Context, []byte) (*coverage.Result, error) {
	return &coverage.Result{Outcome: coverage.OK}, nil
}

// TestSatisfyingCandidates: with constraints, E10 keeps only the bandit
// generator's candidates that satisfy them and counts the others;
// without, it keeps them all.
func TestSatisfyingCandidates(t *testing.T) {
	g := fixture.Build(t, "ranges.grammar", rangesGrammar)
	b := fuzz.Bounds{MaxDepth: 12}
	cands, err := fuzz.BanditCandidates(context.Background(), g, acceptAll{}, 200, 1, b)
	if err != nil {
		t.Fatal(err)
	}
	all := func(cs []fuzz.Candidate) []string {
		var out []string
		for _, c := range cs {
			out = append(out, string(c.Input))
		}
		return out
	}
	set, err := constraintsOf(g, false)
	if err != nil || set == nil {
		t.Fatalf("constraints %v, %v", set, err)
	}
	kept, leftOut, err := satisfyingCandidates(g, cands, b, set)
	if err != nil {
		t.Fatal(err)
	}
	if n := broken(t, g, all(kept)); n > 0 || leftOut != len(cands)-len(kept) || leftOut < len(cands)/5 || len(kept) == 0 {
		t.Errorf("kept %d of %d candidates (%d breaking a constraint), %d left out", len(kept), len(cands), n, leftOut)
	}
	if off, _ := constraintsOf(g, true); off != nil {
		t.Errorf("constraints with NoConstraints: %v", off)
	}
	if kept, leftOut, err := satisfyingCandidates(g, cands, b, nil); err != nil || len(kept) != len(cands) || leftOut != 0 {
		t.Errorf("without constraints: kept %d of %d, %d left out, %v", len(kept), len(cands), leftOut, err)
	}
}

// TestFuzzingConstraints runs E7's zest, E8, E9 and E10 briefly on the
// csv subject with the ranges grammar: with constraints every campaign
// repairs or drops inputs that break them (and E10 leaves out
// candidates), without them none does.
func TestFuzzingConstraints(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	s, err := subject.Load(context.Background(), "csv")
	if err != nil {
		t.Fatal(err)
	}
	s.Grammar = fixture.Build(t, "ranges.grammar", rangesGrammar)
	subjects := []subject.Setup{s}
	ctx, cache := context.Background(), coverage.DefaultCacheDir()
	for _, off := range []bool{false, true} {
		// counts are each run's (or subject's) repaired and dropped
		// inputs, and E10's candidates left out.
		var counts [][2]int
		e7, err := E7(ctx, E7Config{Subjects: subjects, Time: 150 * time.Millisecond, Reps: 1, Seed: 1, Methods: []string{E7Zest},
			NoConstraints: off, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range e7.Subjects[0].Runs {
			counts = append(counts, [2]int{r.Repaired, r.Dropped})
		}
		e8, err := E8(ctx, E8Config{Subjects: subjects, Execs: 150, Reps: 1, BaseInputs: 20, Seed: 1, NoConstraints: off, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range e8.Subjects[0].Runs {
			counts = append(counts, [2]int{r.Repaired, r.Dropped})
		}
		e9, err := E9(ctx, E9Config{Subjects: subjects, Execs: 300, Reps: 1, Seed: 1, Levels: 2, NoConstraints: off, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range e9.Subjects[0].Runs {
			counts = append(counts, [2]int{r.Repaired, r.Dropped})
		}
		e10, err := E10(ctx, E10Config{Subjects: subjects, Trials: 100, Seeds: 5, Execs: 150, Reps: 1, Seed: 1, NoConstraints: off, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		s10 := e10.Subjects[0]
		counts = append(counts, [2]int{s10.Repaired, s10.Dropped}, [2]int{s10.LeftOut, 0})
		for _, sub := range []string{e7.Subjects[0].Error, e8.Subjects[0].Error, e9.Subjects[0].Error, s10.Error} {
			if sub != "" {
				t.Fatal(sub)
			}
		}
		for i, c := range counts {
			if touched := c[0]+c[1] > 0; touched == off {
				t.Errorf("constraints off = %v: run %d repaired %d and dropped %d (E10's last: candidates left out)", off, i, c[0], c[1])
			}
		}
	}
}

// TestE7Unrepaired: E7's random and rl runs count the inputs that broke
// a constraint the search could not repair (they run as they are): all
// of them where a clause is never met, none with --constraints off.
func TestE7Unrepaired(t *testing.T) {
	s := neverSubject(t)
	for _, off := range []bool{false, true} {
		e7, err := E7(context.Background(), E7Config{Subjects: []subject.Setup{s}, Time: 150 * time.Millisecond, Reps: 1, Seed: 1,
			Methods: []string{E7Random, E7RL}, NoConstraints: off, CacheDir: coverage.DefaultCacheDir()})
		if err != nil {
			t.Fatal(err)
		}
		if e := e7.Subjects[0].Error; e != "" {
			t.Fatal(e)
		}
		for _, r := range e7.Subjects[0].Runs {
			execs := r.Final.Execs
			if execs == 0 || (off && r.Unrepaired != 0) || (!off && (r.Unrepaired < execs || r.Unrepaired > execs+1)) {
				t.Errorf("constraints off = %v, %s: %d executions, %d unrepaired", off, r.Method, execs, r.Unrepaired)
			}
		}
	}
}

// neverGrammar is a grammar one of whose clauses no input meets: every
// input breaks it, repaired or not.
const neverGrammar = "Row := \"a,b\\n\" | \"c,d\\n\" ;\nwhere Row: self.text == \"x\" ;\n"

// neverSubject is the csv subject with neverGrammar for its grammar; it
// skips in -short mode, where no subject runs.
func neverSubject(t *testing.T) subject.Setup {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a subject")
	}
	s, err := subject.Load(context.Background(), "csv")
	if err != nil {
		t.Fatal(err)
	}
	s.Grammar = fixture.Build(t, "never.grammar", neverGrammar)
	return s
}

// TestSampleUnrepaired: the random samples of E3, E4 and the miner
// count the inputs that break a clause the search could not repair:
// every one where a clause is never met, none without the clauses.
func TestSampleUnrepaired(t *testing.T) {
	g := fixture.Build(t, "never.grammar", neverGrammar)
	for _, off := range []bool{false, true} {
		cfg := E3Config{Grammar: g, WorkDir: t.TempDir(), NoConstraints: off}
		cfg.setDefaults()
		const n = 12
		s, err := generate(context.Background(), cfg, "base", n, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := n
		if off {
			want = 0
		}
		if s.unrepaired != want || len(s.files) != n {
			t.Errorf("constraints off %v: %d unrepaired of %d inputs, want %d", off, s.unrepaired, len(s.files), want)
		}
	}
}

// TestE6Unrepaired: E6 reports, per guide, the inputs of a constrained
// benchmark that broke a clause the search could not repair.
func TestE6Unrepaired(t *testing.T) {
	g := fixture.Build(t, "never.grammar", neverGrammar)
	for _, off := range []bool{false, true} {
		set, err := constraintsOf(g, off)
		if err != nil {
			t.Fatal(err)
		}
		const trials = 15
		b := Benchmark{Name: "never", Trials: trials, Make: func(guide *synth.Guide) (BenchmarkRun, error) {
			next, unrepaired := synth.ConstrainedGenerator(g, guide, synth.TreeState, 1, 10, set)
			return BenchmarkRun{Next: next, Oracle: synth.FuncOracle(func([]byte) bool { return true }), Unrepaired: unrepaired}, nil
		}}
		res, err := E6(context.Background(), []Benchmark{b}, 1, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		want := trials
		if off {
			want = 0
		}
		for _, r := range res[0].Runs {
			if r.Unrepaired != want || r.Result.Trials != trials {
				t.Errorf("constraints off %v, %s: %d unrepaired in %d trials, want %d", off, r.Guide, r.Unrepaired, r.Result.Trials, want)
			}
		}
	}
}

// TestE8Unrepaired: E8 counts the base sample's inputs that broke a
// clause the search could not repair.
func TestE8Unrepaired(t *testing.T) {
	s := neverSubject(t)
	for _, off := range []bool{false, true} {
		const base = 20
		res, err := E8(context.Background(), E8Config{Subjects: []subject.Setup{s}, Execs: 20, Reps: 1, BaseInputs: base, Seed: 1,
			NoConstraints: off, CacheDir: coverage.DefaultCacheDir()})
		if err != nil {
			t.Fatal(err)
		}
		es := res.Subjects[0]
		want := base
		if off {
			want = 0
		}
		if es.Error != "" || es.BaseUnrepaired != want {
			t.Errorf("constraints off %v: %d unrepaired of %d base inputs, want %d (error %q)", off, es.BaseUnrepaired, base, want, es.Error)
		}
	}
}
