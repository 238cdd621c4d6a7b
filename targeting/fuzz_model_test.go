package targeting_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
	"github.com/arbor-fuzz/arbor/targeting"
)

// FuzzSolveModel: whatever a model file holds, loading it either fails
// with an error or gives a model whose every constraint the solver can
// work on without panicking or hanging, and whose targeting loop runs.
func FuzzSolveModel(f *testing.F) {
	p, _ := listModel(f, 300)
	path := filepath.Join(f.TempDir(), "m.json")
	if err := p.Model.Save(path); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"arbor":"model","version":2,"grammar":{"name":"x","source":"S := \"a\" ;"},"features":[{"ids":[0,7],"pattern":"x"}],"functions":[{"name":"f","tree":{"nodes":[{"feature":0,"absent":1,"present":1},{"feature":-1}]}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := learn.LoadModel(path)
		if err != nil {
			return
		}
		pr, err := learn.NewPredictor(m, nil)
		if err != nil {
			return
		}
		opts := synth.SolveOptions{Seed: 1, MaxCompletions: 10, Timeout: 50 * time.Millisecond}
		for i := range m.Functions {
			for _, c := range m.Constraints(&m.Functions[i], learn.EveryLeaf) {
				synth.Solve(context.Background(), pr.Graph, targeting.FromModel(m, c), opts)
			}
		}
		if len(m.Functions) > 0 {
			loop, err := targeting.NewLoop(pr, &listProgram{})
			if err != nil {
				return
			}
			loop.Pursue(context.Background(), m.Functions[0].Name, targeting.PursueOptions{Want: 1, Budget: 5, Seed: 1, Solve: opts})
		}
	})
}
