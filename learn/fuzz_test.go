package learn_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
)

// FuzzLoadModel: a model file, whatever its bytes, is either refused with
// an error or loads into a model whose predictor and explanations work
// without panicking.
func FuzzLoadModel(f *testing.F) {
	g := plantedGraph(f)
	cov, data, _ := plantedCorpus(g, 300, 1, func(s string) bool { return len(s) > 6 })
	d := learn.NewDataset(g, features.Options{MaxK: 2, Kinds: features.AllKinds}, cov, data)
	fns, err := learn.Train(context.Background(), d, learn.TrainOptions{Seed: 1})
	if err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(f.TempDir(), "m.json")
	if err := learn.NewModel("planted", "planted", g, d, fns, learn.TrainOptions{Seed: 1}).Save(path); err != nil {
		f.Fatal(err)
	}
	seed, _ := os.ReadFile(path)
	f.Add(seed)
	// Files that are not models: a truncated gzipped model, gzip of text,
	// an arbor coverage file, JSON of something else (TestLoadModelNotAModel).
	gzPath := filepath.Join(f.TempDir(), "m.json.gz")
	if err := learn.NewModel("planted", "planted", g, d, fns, learn.TrainOptions{Seed: 1}).Save(gzPath); err != nil {
		f.Fatal(err)
	}
	zipped, _ := os.ReadFile(gzPath)
	f.Add(zipped[:len(zipped)/2])
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 'x'})
	f.Add([]byte(`{"arbor":"coverage","version":1,"functions":["a"]}` + "\n"))
	f.Add([]byte(`[{"arbor":"model"}]`))
	f.Add([]byte(`{"arbor":"model","version":2,"grammar":{"source":"S := \"a\" ;"},"features":[{"kind":"sibling","ids":[-1,99],"pattern":"x"}],"functions":[]}`))
	f.Add([]byte(`{"arbor":"model","version":2,"features":[{"kind":"nosuch","pattern":"x"}]}`))
	// Fields out of range and text the size bound scans (issue 29).
	f.Add([]byte(`{"arbor":"model","version":2,"k":-1,"features":[],"functions":[]}`))
	f.Add([]byte(`{"arbor":"model","version":2,"k":1,"subject":"\\\",[{","data":{"rows":1099511627776,"never_covered":["a"]}}`))
	f.Add([]byte(`{"arbor":"model","version":2,"k":1,"features":[{"ids":[0],"pattern":"x"}],"functions":[{"name":"f","tree":{"nodes":[{"feature":0,"absent":1,"present":2},{"feature":-1},{"feature":-1}]}}],"data":{"rows":0,"columns":[""],"labels":[""],"max_depth":-1}}`))
	f.Add(zipped[:10])
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := learn.LoadModel(p)
		if err != nil {
			return
		}
		// What loaded is in range: rebuilding its training data must not
		// allocate without bound either.
		if m.K < 1 || m.K > learn.MaxModelK {
			t.Fatalf("loaded a model of k %d", m.K)
		}
		if _, err := m.Dataset(); err != nil {
			return
		}
		pr, err := learn.NewPredictor(m, nil)
		if err != nil {
			return
		}
		for _, in := range []string{"a", "ab=1,c-=22", "c,c,c"} {
			pr.Predict([]byte(in))
		}
		for i := range m.Functions {
			for _, c := range m.Constraints(&m.Functions[i], learn.EveryLeaf) {
				m.Text(c, true)
			}
		}
	})
}
