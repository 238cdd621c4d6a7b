package targeting_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
	"github.com/arbor-fuzz/arbor/targeting"
)

// TestOfflineEveryFunction trains a model of the json subject and checks,
// for every function, that each targeted input parses with the grammar
// and satisfies its constraint by features.
func TestOfflineEveryFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("records coverage")
	}
	g := fixture.Grammar(t, "json")
	dir := t.TempDir()
	gen := synth.NewGenerator(g, synth.NewRandom(5), synth.RandomPolicy)
	data := map[string][]byte{}
	var files []string
	for i := 0; i < 400; i++ {
		in := []byte(gen.Generate().String())
		p := filepath.Join(dir, fmt.Sprintf("%04d", i))
		os.WriteFile(p, in, 0o644)
		files = append(files, p)
		sum := sha256.Sum256(in)
		data[hex.EncodeToString(sum[:])] = in
	}
	bin := fixture.Binary(t, "json")
	out := filepath.Join(dir, "cov.jsonl")
	if _, err := coverage.RecordInputs(context.Background(), bin, files, out, coverage.Options{Subject: "json"}); err != nil {
		t.Fatal(err)
	}
	cov, _ := coverage.ReadFile(out)
	d := learn.NewDataset(g, features.Options{MaxK: 4}, cov, data)
	fns, err := learn.Train(context.Background(), d, learn.TrainOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := learn.NewModel("json", "json", g, d, fns, learn.TrainOptions{Seed: 1})
	solved, total := 0, 0
	for i := range m.Functions {
		fn := &m.Functions[i]
		res := targeting.Offline(context.Background(), g, m, fn, 3, learn.EveryLeaf, synth.SolveOptions{Seed: 2})
		total += len(res.Constraints)
		solved += len(res.Constraints) - len(res.Unsolved)
		seen := map[string]bool{}
		for _, in := range res.Inputs {
			if seen[in.Text] {
				t.Errorf("%s: input %q twice", fn.Name, in.Text)
			}
			seen[in.Text] = true
			if _, err := g.Parse([]byte(in.Text)); err != nil {
				t.Errorf("%s: targeted input %q does not parse: %v", fn.Name, in.Text, err)
			}
			if !synth.Satisfies(g, in.Text, res.Constraints[in.Constraint]) {
				t.Errorf("%s: %q does not satisfy its constraint", fn.Name, in.Text)
			}
		}
	}
	if total == 0 || float64(solved) < 0.9*float64(total) {
		t.Errorf("solved %d of %d constraints", solved, total)
	}
}
