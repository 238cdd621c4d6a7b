package eval

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// E2Config configures the k-path coverage against code coverage study.
type E2Config struct {
	Subject  string
	Grammar  *grammar.Graph
	Target   coverage.Target
	MaxK     int    // 0 means 5
	Sets     int    // forestation sets; 0 means 40
	MaxSize  int    // inputs in the largest set; 0 means 80
	Seed     uint64 //
	CacheDir string
	Progress func(string)
}

// setDefaults fills in the zero fields that have defaults.
func (cfg *E2Config) setDefaults() {
	setDefault(&cfg.MaxK, 5)
	setDefault(&cfg.Sets, 40)
	setDefault(&cfg.MaxSize, 80)
}

// E2Point is one forestation set.
type E2Point struct {
	Inputs int       `json:"inputs"`
	KPath  []float64 `json:"kpath_coverage"` // k = 1..MaxK
	Blocks float64   `json:"block_coverage"`
}

// E2Result holds the points and Spearman's ρ per k.
type E2Result struct {
	Subject string    `json:"subject"`
	Rho     []float64 `json:"rho"` // k = 1..MaxK; 0 where Undefined
	// Undefined lists the k whose ρ is undefined because the k-path or
	// the block coverage was the same in every set.
	Undefined []int     `json:"undefined_k,omitempty"`
	Points    []E2Point `json:"points"`
}

// E2 correlates k-path coverage with block coverage over forestation sets
// (docs/evaluation.md): sets of 1..MaxSize inputs, each grown towards k-paths
// drawn at random (k = MaxK), span the range of k-path coverage; for each
// set and each k, k-path coverage is measured by features and block
// coverage by running the subject; Spearman's ρ per k.
func E2(ctx context.Context, cfg E2Config) (*E2Result, error) {
	cfg.setDefaults()
	progressf(cfg.Progress)("E2 %s: %d forestation sets", cfg.Subject, cfg.Sets)
	r, err := newRunner(ctx, cfg.Target, cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	defer r.close()
	var texts [][]string
	var kpaths [][]float64 // per set: k-path coverage for k = 1..MaxK
	for i := 0; i < cfg.Sets; i++ {
		// Each set is the prefix of a forestation sequence that reaches a
		// target share of the sequence's k-path coverage (k = MaxK), the
		// targets spread evenly from one input's worth to all of it. Sizes
		// spread by count would bunch the sets at full coverage on small
		// grammars, where a handful of inputs covers every k-path.
		in, err := synth.Forest(ctx, cfg.Grammar, cfg.MaxSize, synth.CoverOptions{K: cfg.MaxK, Seed: cfg.Seed + uint64(i), CloseOff: synth.ShortestPolicy})
		if err != nil {
			return nil, err
		}
		cov := features.NewCoverage(cfg.Grammar, cfg.MaxK)
		prefix := make([][]float64, len(in)) // coverage of in[:j+1], per k
		for j, x := range in {
			cov.Add(x.Tree)
			for k := 1; k <= cfg.MaxK; k++ {
				prefix[j] = append(prefix[j], cov.Fraction(k))
			}
		}
		first, last := prefix[0][cfg.MaxK-1], prefix[len(in)-1][cfg.MaxK-1]
		want := first + (last-first)*float64(i)/float64(max(1, cfg.Sets-1))
		n := 1
		for n < len(in) && prefix[n-1][cfg.MaxK-1] < want {
			n++
		}
		var t []string
		for _, x := range in[:n] {
			t = append(t, x.Text)
		}
		texts = append(texts, t)
		kpaths = append(kpaths, prefix[n-1])
	}
	if err := r.warmUp(ctx, texts...); err != nil {
		return nil, err
	}
	res := &E2Result{Subject: cfg.Subject}
	for i, set := range texts {
		sc, err := r.run(ctx, set)
		if err != nil {
			return nil, err
		}
		res.Points = append(res.Points, E2Point{Inputs: len(set), KPath: kpaths[i], Blocks: float64(sc.Blocks) / float64(max(1, r.total.Blocks))})
	}
	for k := 0; k < cfg.MaxK; k++ {
		var x, y []float64
		for _, p := range res.Points {
			x = append(x, p.KPath[k])
			y = append(y, p.Blocks)
		}
		rho := Spearman(x, y)
		if math.IsNaN(rho) {
			// JSON has no NaN; Undefined says which zeros mean "none".
			rho = 0
			res.Undefined = append(res.Undefined, k+1)
		}
		res.Rho = append(res.Rho, rho)
	}
	return res, nil
}

// FormatRho formats ρ for k = i+1 with three decimals, or as "undefined".
func (r *E2Result) FormatRho(i int) string {
	if slices.Contains(r.Undefined, i+1) {
		return "undefined"
	}
	return fmt.Sprintf("%.3f", r.Rho[i])
}

// WriteE2 writes E2's JSON, CSV and one SVG scatter plot per k into dir,
// creating it if needed.
func WriteE2(dir string, r *E2Result) (files []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, "E2-"+r.Subject)
	header, rows := r.CSVTable()
	if err := writeCSV(base+".csv", header, rows); err != nil {
		return nil, err
	}
	if err := writeJSON(base+".json", r); err != nil {
		return nil, err
	}
	files = []string{base + ".csv", base + ".json"}
	for k := range r.Rho {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("E2 %s: %d-path coverage against block coverage (ρ = %s)", r.Subject, k+1, r.FormatRho(k))
		p.X.Label.Text = fmt.Sprintf("%d-path coverage", k+1)
		p.Y.Label.Text = "block coverage"
		pts := make(plotter.XYs, len(r.Points))
		for i, pt := range r.Points {
			pts[i] = plotter.XY{X: pt.KPath[k], Y: pt.Blocks}
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		p.Add(s)
		path := fmt.Sprintf("%s-k%d.svg", base, k+1)
		if err := p.Save(6*vg.Inch, 4*vg.Inch, path); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}
