package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// E1Config configures the k-path against grammar-random experiment.
type E1Config struct {
	Subject  string
	Grammar  *grammar.Graph
	Target   coverage.Target
	Ks       []int  // 0 means 1, 2, 3
	Reps     int    // 0 means 50
	Seed     uint64 //
	MaxDepth int    // of random generation; 0 means 30
	// NoConstraints makes the random sets without regard to the
	// grammar's constraints (where clauses); by default their inputs
	// satisfy them. The k-path covering sets are synth.Cover's either
	// way, as arbor generate --mode kpath makes them: a repair would
	// change the k-paths they are built to cover.
	NoConstraints bool
	CacheDir      string
	Progress      func(string)
}

// setDefaults fills in the zero fields that have defaults.
func (cfg *E1Config) setDefaults() {
	if len(cfg.Ks) == 0 {
		cfg.Ks = []int{1, 2, 3}
	}
	setDefault(&cfg.Reps, 50)
	setDefault(&cfg.MaxDepth, 30)
}

// E1Cell is one k's comparison.
type E1Cell struct {
	K                int       `json:"k"`
	SetSize          float64   `json:"set_size"` // mean inputs per k-path set (random sets have the same size)
	FunctionsKPath   float64   `json:"functions_kpath"`
	FunctionsRandom  float64   `json:"functions_random"`
	BlocksKPath      float64   `json:"blocks_kpath"` // mean block coverage, a fraction of all blocks
	BlocksRandom     float64   `json:"blocks_random"`
	BlocksU          float64   `json:"blocks_u"` // Mann–Whitney U of k-path against random block coverage
	BlocksP          float64   `json:"blocks_p"`
	FunctionsU       float64   `json:"functions_u"`
	FunctionsP       float64   `json:"functions_p"`
	BlockSeriesKPath []float64 `json:"-"`
	BlockSeriesRand  []float64 `json:"-"`
}

// E1Panic is a distinct panic and how often each technique found it.
type E1Panic struct {
	Stack      string  `json:"stack"`
	K          int     `json:"k"`
	RateKPath  float64 `json:"rate_kpath"` // share of repetitions whose set found it
	RateRandom float64 `json:"rate_random"`
}

// E1Result is the whole experiment.
type E1Result struct {
	Subject        string    `json:"subject"`
	TotalFunctions int       `json:"total_functions"`
	TotalBlocks    int       `json:"total_blocks"`
	Cells          []E1Cell  `json:"cells"`
	Panics         []E1Panic `json:"panics,omitempty"`
}

// E1 compares k-path covering sets with grammar-random sets of the same
// size (docs/evaluation.md): for each k and repetition, a k-path covering set
// (seeded per repetition) and a random set (depth MaxDepth, satisfying
// the grammar's constraints unless NoConstraints) are run on
// the subject; function and block coverage of each set are averaged over
// repetitions and compared with a Mann–Whitney U test; the panics each
// technique found are counted per repetition.
func E1(ctx context.Context, cfg E1Config) (*E1Result, error) {
	cfg.setDefaults()
	step := progressf(cfg.Progress)
	r, err := newRunner(ctx, cfg.Target, cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	defer r.close()
	res := &E1Result{Subject: cfg.Subject, TotalFunctions: r.total.Functions, TotalBlocks: r.total.Blocks}
	sets, all, err := e1Sets(ctx, cfg, step)
	if err != nil {
		return nil, err
	}
	step("E1 %s: warming up", cfg.Subject)
	if err := r.warmUp(ctx, all...); err != nil {
		return nil, err
	}
	for _, k := range cfg.Ks {
		step("E1 %s: running the sets for k = %d", cfg.Subject, k)
		cell, panics, err := e1Cell(ctx, r, k, sets[k])
		if err != nil {
			return nil, err
		}
		res.Cells = append(res.Cells, cell)
		res.Panics = append(res.Panics, panics...)
	}
	sort.Slice(res.Panics, func(i, j int) bool {
		a, b := res.Panics[i], res.Panics[j]
		return a.K < b.K || a.K == b.K && a.Stack < b.Stack
	})
	return res, nil
}

// e1Pair is a repetition's k-path covering set and its random set of the
// same size.
type e1Pair struct{ kpath, random []string }

// e1Sets makes every k's pairs of sets (a k-path covering set seeded per
// repetition and k, and as many random inputs), and lists all the sets
// for the warm-up.
func e1Sets(ctx context.Context, cfg E1Config, step func(string, ...any)) (map[int][]e1Pair, [][]string, error) {
	set, err := constraintsOf(cfg.Grammar, cfg.NoConstraints)
	if err != nil {
		return nil, nil, err
	}
	sets := map[int][]e1Pair{}
	var all [][]string
	for _, k := range cfg.Ks {
		step("E1 %s: generating %d k-path and random sets for k = %d", cfg.Subject, cfg.Reps, k)
		for rep := 0; rep < cfg.Reps; rep++ {
			seed := cfg.Seed + uint64(rep)*1000 + uint64(k)
			cov, err := synth.Cover(ctx, cfg.Grammar, synth.CoverOptions{K: k, Seed: seed})
			if err != nil {
				return nil, nil, err
			}
			var p e1Pair
			for _, in := range cov.Inputs {
				p.kpath = append(p.kpath, in.Text)
			}
			gen := newRandomInputs(cfg.Grammar, seed+7, cfg.MaxDepth, 0, set)
			for range p.kpath {
				p.random = append(p.random, gen.next())
			}
			sets[k] = append(sets[k], p)
			all = append(all, p.kpath, p.random)
		}
	}
	return sets, all, nil
}

// e1Cell runs k's pairs of sets and compares their coverage; it returns
// the panics found, with the share of repetitions each technique found
// each in.
func e1Cell(ctx context.Context, r *runner, k int, pairs []e1Pair) (E1Cell, []E1Panic, error) {
	cell := E1Cell{K: k}
	var fk, fr []float64
	found := map[string][2]int{}
	for _, p := range pairs {
		a, err := r.run(ctx, p.kpath)
		if err != nil {
			return E1Cell{}, nil, err
		}
		b, err := r.run(ctx, p.random)
		if err != nil {
			return E1Cell{}, nil, err
		}
		cell.SetSize += float64(len(p.kpath))
		cell.BlockSeriesKPath = append(cell.BlockSeriesKPath, float64(a.Blocks)/float64(max(1, r.total.Blocks)))
		cell.BlockSeriesRand = append(cell.BlockSeriesRand, float64(b.Blocks)/float64(max(1, r.total.Blocks)))
		fk = append(fk, float64(a.Functions)/float64(max(1, r.total.Functions)))
		fr = append(fr, float64(b.Functions)/float64(max(1, r.total.Functions)))
		for s := range a.Panics {
			c := found[s]
			c[0]++
			found[s] = c
		}
		for s := range b.Panics {
			c := found[s]
			c[1]++
			found[s] = c
		}
	}
	n := float64(len(pairs))
	cell.SetSize /= n
	cell.FunctionsKPath, cell.FunctionsRandom = Mean(fk), Mean(fr)
	cell.BlocksKPath, cell.BlocksRandom = Mean(cell.BlockSeriesKPath), Mean(cell.BlockSeriesRand)
	cell.BlocksU, cell.BlocksP = MannWhitney(cell.BlockSeriesKPath, cell.BlockSeriesRand)
	cell.FunctionsU, cell.FunctionsP = MannWhitney(fk, fr)
	var panics []E1Panic
	for s, c := range found {
		panics = append(panics, E1Panic{Stack: s, K: k, RateKPath: float64(c[0]) / n, RateRandom: float64(c[1]) / n})
	}
	return cell, panics, nil
}

// WriteE1 writes E1's JSON, CSV and SVG (block coverage per repetition)
// into dir, creating it if needed.
func WriteE1(dir string, r *E1Result) (files []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, "E1-"+r.Subject)
	header, rows := r.CSVTable()
	if err := writeCSV(base+".csv", header, rows); err != nil {
		return nil, err
	}
	if err := writeJSON(base+".json", r); err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = "E1 " + r.Subject + ": block coverage per repetition"
	p.X.Label.Text = "repetition"
	p.Y.Label.Text = "block coverage"
	var lines []any
	for _, c := range r.Cells {
		lines = append(lines, fmt.Sprintf("k-path k=%d", c.K), series(c.BlockSeriesKPath), fmt.Sprintf("random k=%d", c.K), series(c.BlockSeriesRand))
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return nil, err
	}
	p.Legend.Top = true
	if err := p.Save(7*vg.Inch, 4.5*vg.Inch, base+".svg"); err != nil {
		return nil, err
	}
	return []string{base + ".csv", base + ".json", base + ".svg"}, nil
}

func series(ys []float64) plotter.XYs {
	pts := make(plotter.XYs, len(ys))
	for i, y := range ys {
		pts[i] = plotter.XY{X: float64(i + 1), Y: y}
	}
	return pts
}
