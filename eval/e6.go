package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/arbor-fuzz/arbor/synth"
)

// Benchmark is one generator and validity oracle for E6. Make returns a
// fresh generator driven by the guide (nil: uniformly random choices).
type Benchmark struct {
	Name   string
	Trials int
	Make   func(guide *synth.Guide) (BenchmarkRun, error)
}

// BenchmarkRun is what a Benchmark's Make returns: the generator, the
// oracle, and, for a generator that repairs its inputs to satisfy
// constraints, how many of the first judged inputs it could not repair
// (synth.ConstrainedGenerator's count; nil: none are repaired).
type BenchmarkRun struct {
	Next       func() []byte
	Oracle     synth.Oracle
	Unrepaired func(judged int) int
}

// E6Run is one guide's run on a benchmark.
type E6Run struct {
	Guide  string             `json:"guide"`
	Result *synth.CheckResult `json:"result"`
	// Unrepaired counts the inputs that broke a grammar constraint the
	// search could not repair: they were judged as they were.
	Unrepaired int `json:"unrepaired,omitempty"`
}

// E6Result is E6 on every benchmark.
type E6Result []E6Benchmark

// E6Benchmark holds the runs of one benchmark.
type E6Benchmark struct {
	Name string  `json:"name"`
	Runs []E6Run `json:"runs"`
	SVG  string  `json:"svg,omitempty"`
	CSV  string  `json:"csv,omitempty"`
}

// E6 compares guides on each benchmark (docs/evaluation.md): uniformly random
// choices, the bandit guide with RLCheck's published settings, and with
// the improved settings (count bonus, decaying ε). Each run's valid,
// unique valid and diverse valid counts over trials are written as CSV
// and drawn as an SVG curve in outDir.
func E6(ctx context.Context, benchmarks []Benchmark, seed uint64, outDir string) (E6Result, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	guides := []struct {
		name string
		make func() *synth.Guide
	}{
		{"random", func() *synth.Guide { return nil }},
		{"rlcheck", func() *synth.Guide { return synth.NewGuide(seed) }},
		{"rl", func() *synth.Guide { return synth.NewImprovedGuide(seed) }},
	}
	var out E6Result
	for _, b := range benchmarks {
		eb := E6Benchmark{Name: b.Name}
		for _, g := range guides {
			guide := g.make()
			run, err := b.Make(guide)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name, err)
			}
			res, err := synth.Check(ctx, run.Next, guide, run.Oracle, synth.CheckOptions{Trials: b.Trials})
			if err != nil {
				return nil, fmt.Errorf("%s with %s: %w", b.Name, g.name, err)
			}
			r := E6Run{Guide: g.name, Result: res}
			if run.Unrepaired != nil {
				r.Unrepaired = run.Unrepaired(res.Trials)
			}
			eb.Runs = append(eb.Runs, r)
		}
		eb.CSV = filepath.Join(outDir, "E6-"+b.Name+".csv")
		header, rows := eb.CSVTable()
		if err := writeCSV(eb.CSV, header, rows); err != nil {
			return nil, err
		}
		eb.SVG = filepath.Join(outDir, "E6-"+b.Name+".svg")
		if err := plotCurves(eb.SVG, "E6 "+b.Name+": unique valid inputs over trials", eb.Runs); err != nil {
			return nil, err
		}
		out = append(out, eb)
	}
	return out, nil
}

func plotCurves(path, title string, runs []E6Run) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "trials"
	p.Y.Label.Text = "unique valid inputs"
	var lines []any
	for _, r := range runs {
		pts := make(plotter.XYs, len(r.Result.Curve))
		for i, c := range r.Result.Curve {
			pts[i] = plotter.XY{X: float64(c.Trial), Y: float64(c.UniqueValid)}
		}
		lines = append(lines, r.Guide, pts)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}
