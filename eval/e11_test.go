package eval_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/subject"
)

// TestE11 runs E11 on the cron subject with its grammar and constraints
// of its own (a range's start is not past its end, in the fields whose
// values are numbers), which the parser checks: the accepted share must
// rise with them, every input made with them satisfies them, and the
// figures add up. A subject whose grammar has no constraint is left
// out.
func TestE11(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subject")
	}
	s := setup(t, "cron")
	plain := setup(t, "csv")
	// The bundled grammar's own clauses left out: the test's are these.
	bare := *s.Grammar.Source
	bare.Where = nil
	src := grammar.Format(&bare)
	for _, f := range []string{"Second", "Minute", "Hour", "Dom"} {
		src += fmt.Sprintf("where %sItem: len(%s) < 2 || %s[0].num <= %s[1].num ;\n", f, f, f, f)
	}
	s.Grammar = fixture.Build(t, "cron.grammar", src)
	res, err := eval.E11(context.Background(), eval.E11Config{Subjects: []subject.Setup{s, plain}, Inputs: 200, SpeedInputs: 300, Reps: 3,
		Seed: 7, CacheDir: coverage.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Subjects) != 1 {
		t.Fatalf("%d subjects, want only the one with a constraint", len(res.Subjects))
	}
	r := res.Subjects[0]
	t.Logf("%+v", r)
	if r.Error != "" || r.Clauses != 4 {
		t.Fatalf("%+v", r)
	}
	if r.On.Satisfying != 200-r.On.Unrepaired || r.On.Share < r.Off.Share+0.05 {
		t.Errorf("with the constraint: %+v; without: %+v", r.On, r.Off)
	}
	if r.Off.Satisfying > r.On.Satisfying || r.On.SatisfyingPerSecond <= 0 || r.Off.MicrosPerInput <= 0 {
		t.Errorf("with the constraint: %+v; without: %+v", r.On, r.Off)
	}
	// What the inputs say: every side's accepted inputs hold some of the
	// grammar's 2-paths, no more than all its inputs hold.
	// The guided side satisfies the constraints as the repaired side does,
	// and its inputs are counted, distinct ones no more than all. (Its
	// accepted share is not bound to rise: the guide learns what the
	// clauses check, and these four leave most of what cron rejects
	// unchecked.)
	if g := r.Guided; g.Satisfying != 200-g.Unrepaired || g.SatisfyingPerSecond <= 0 || g.Distinct <= 0 || g.Distinct > 200 {
		t.Errorf("guided: %+v; without: %+v", g, r.Off)
	}
	for _, side := range []eval.E11Side{r.Off, r.On, r.Guided} {
		if side.AcceptedPaths2 <= 0 || side.AcceptedPaths2 > side.Paths2 || int64(side.Paths2) > r.Paths2Total {
			t.Errorf("2-paths: accepted %d, all %d, of the grammar %d", side.AcceptedPaths2, side.Paths2, r.Paths2Total)
		}
	}
	// Some inputs without the constraint are rejected for what only they
	// hold (a range past its end), so all of them hold more 2-paths than
	// the accepted ones: the accepted count is of the accepted only.
	if r.Off.AcceptedPaths2 >= r.Off.Paths2 {
		t.Errorf("without the constraint: accepted inputs hold %d 2-paths, all %d", r.Off.AcceptedPaths2, r.Off.Paths2)
	}
	files, err := eval.WriteE11(filepath.Join(t.TempDir(), "e11"), res)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
