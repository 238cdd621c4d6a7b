package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestBench runs the quick preset and checks that every row is there
// with positive, finite figures. It asserts no timing: the machine the
// tests run on is shared and noisy.
func TestBench(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the json subject's harness")
	}
	// A stand-in for the command line, which eval cannot call: the engine
	// writing JSON Lines, as generate --out - does.
	cli := func(ctx context.Context, name string, n int, seed uint64) error {
		g, err := datasets.Grammar(name)
		if err != nil {
			return err
		}
		gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
		gen.Reuse = true
		enc := json.NewEncoder(io.Discard)
		for i := 0; i < n; i++ {
			if err := enc.Encode(map[string]string{"input": gen.Generate().String()}); err != nil {
				return err
			}
		}
		return nil
	}
	var steps []Step
	res, err := Bench(context.Background(), BenchConfig{Quick: true, Seed: 1, CacheDir: coverage.DefaultCacheDir(), CLIGenerate: cli,
		Progress: func(s Step) { steps = append(steps, s) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"generate", "parse json corpus", "parse json document", "parse xml corpus", "features", "record", "predict", "grammar analyses"}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, r := range res.Rows {
		if r.Name != want[i] {
			t.Errorf("row %d is %q, want %q", i, r.Name, want[i])
		}
		for _, x := range []float64{r.A, r.B, r.Ratio} {
			if !(x > 0) || math.IsInf(x, 0) {
				t.Errorf("row %s: A %v, B %v, ratio %v: want positive finite figures", r.Name, r.A, r.B, r.Ratio)
				break
			}
		}
		if r.Compared == "" || r.Unit == "" {
			t.Errorf("row %s: says neither what it compares nor its unit", r.Name)
		}
		if (r.Goal == "") != (r.Met == nil) {
			t.Errorf("row %s: goal %q, met %v", r.Name, r.Goal, r.Met)
		}
	}
	if len(steps) == 0 || steps[len(steps)-1].Done != steps[len(steps)-1].Total {
		t.Errorf("progress steps %+v do not end at their total", steps)
	}
	dir := t.TempDir()
	if err := WriteBench(dir, res); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back BenchResult
	if err := json.Unmarshal(data, &back); err != nil || len(back.Rows) != len(res.Rows) {
		t.Fatalf("bench.json: %v, %d rows", err, len(back.Rows))
	}
	csv, err := os.ReadFile(filepath.Join(dir, "bench.csv"))
	if err != nil || bytes.Count(csv, []byte("\n")) != len(res.Rows)+1 {
		t.Errorf("bench.csv: %v\n%s", err, csv)
	}
	t.Logf("%+v", res)
}

// TestBenchGrammar checks that the synthetic grammars load, and that one
// size and seed always give the same text.
func TestBenchGrammar(t *testing.T) {
	for _, n := range []int{1, 2, 50, 1000} {
		src := benchGrammar(n, 3)
		if !bytes.Equal(src, benchGrammar(n, 3)) {
			t.Fatalf("%d rules: two texts for one seed", n)
		}
		ast, err := grammar.Parse("synthetic.grammar", src)
		if err != nil {
			t.Fatalf("%d rules: %v", n, err)
		}
		if _, err := grammar.Build(ast); err != nil {
			t.Fatalf("%d rules: %v", n, err)
		}
		if got := len(ast.Rules); got != n {
			t.Errorf("%d rules asked for, %d written", n, got)
		}
	}
}
