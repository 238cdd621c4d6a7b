package eval

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/subject"
)

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func writeCSV(path string, header []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(header)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

// WriteE1 writes E1's JSON, CSV and SVG (block coverage per repetition)
// into dir, creating it if needed.
func WriteE1(dir string, r *E1Result) (files []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, "E1-"+r.Subject)
	var rows [][]string
	for _, c := range r.Cells {
		rows = append(rows, []string{strconv.Itoa(c.K), ftoa(c.SetSize), ftoa(c.FunctionsKPath), ftoa(c.FunctionsRandom), ftoa(c.FunctionsP),
			ftoa(c.BlocksKPath), ftoa(c.BlocksRandom), ftoa(c.BlocksU), ftoa(c.BlocksP)})
	}
	if err := writeCSV(base+".csv", []string{"k", "set_size", "functions_kpath", "functions_random", "functions_p", "blocks_kpath", "blocks_random", "blocks_u", "blocks_p"}, rows); err != nil {
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

// WriteE2 writes E2's JSON, CSV and one SVG scatter plot per k into dir,
// creating it if needed.
func WriteE2(dir string, r *E2Result) (files []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, "E2-"+r.Subject)
	header := []string{"inputs", "block_coverage"}
	for k := range r.Rho {
		header = append(header, fmt.Sprintf("kpath_%d", k+1))
	}
	var rows [][]string
	for _, p := range r.Points {
		row := []string{strconv.Itoa(p.Inputs), ftoa(p.Blocks)}
		for _, c := range p.KPath {
			row = append(row, ftoa(c))
		}
		rows = append(rows, row)
	}
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

// AllConfig configures 'eval all'.
type AllConfig struct {
	Out      string
	Quick    bool
	Seed     uint64
	CacheDir string
	Progress func(Step)
}

// Step reports the progress of All: Done of Total parts are finished,
// and Text says what the current part is doing.
type Step struct {
	Done, Total int
	Text        string
}

// All runs E1–E10 on the bundled subjects and writes DIR/report.md, with
// tables and links to each experiment's CSV, JSON and plots. Each part is
// written as soon as it is done, and report.md is rewritten after every
// part, so a run stopped early keeps what it finished. The quick preset
// uses small budgets.
func All(ctx context.Context, cfg AllConfig) (path string, err error) {
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return "", err
	}
	reportPath := filepath.Join(cfg.Out, "report.md")
	total := 4 + 4 + len(datasets.Subjects()) + 1 + 4
	done := 0
	// sub forwards an experiment's own progress lines as steps of the
	// current part; say starts a part.
	sub := func(text string) {
		if cfg.Progress != nil {
			cfg.Progress(Step{Done: done, Total: total, Text: text})
		}
	}
	say := progressf(sub)
	reps, maxK, sets, bst, trials := 50, 5, 40, 100000, 3000
	if cfg.Quick {
		reps, maxK, sets, bst, trials = 10, 5, 30, 20000, 1000
	}
	start := time.Now()
	var report strings.Builder
	fmt.Fprintf(&report, "# arbor evaluation report\n\nPreset: %s. Seed %d. Each section links its CSV, JSON and plots.\n", map[bool]string{true: "quick", false: "full"}[cfg.Quick], cfg.Seed)
	flush := func() error {
		return os.WriteFile(reportPath, []byte(report.String()+fmt.Sprintf("\n_Written after %.0fs._\n", time.Since(start).Seconds())), 0o644)
	}
	// A run that stops early (an error, or Ctrl-C cancelling ctx) keeps
	// the parts it finished and says where it stopped.
	defer func() {
		path = reportPath
		if err != nil {
			fmt.Fprintf(&report, "\n**Stopped before finishing:** %v\n", err)
			if werr := flush(); werr != nil {
				err = fmt.Errorf("%w (and writing the report: %v)", err, werr)
			}
		}
	}()
	links := func(files []string) string {
		var l []string
		for _, f := range files {
			rel, _ := filepath.Rel(cfg.Out, f)
			l = append(l, fmt.Sprintf("[%s](%s)", filepath.Base(f), rel))
		}
		return strings.Join(l, " · ")
	}
	subjects := func(names ...string) ([]subject.Setup, error) {
		var out []subject.Setup
		for _, n := range names {
			s, err := subject.Load(ctx, n)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}

	// E1
	fmt.Fprintf(&report, "\n## E1: k-path covering sets against grammar-random sets of the same size\n\n%d repetitions; block and function coverage are shares of the subject's blocks and functions; p is the two-sided Mann–Whitney U test of block coverage.\n\n| subject | k | set size | blocks k-path | blocks random | p | functions k-path | functions random |\n|---|---|---|---|---|---|---|---|\n", reps)
	e1s, err := subjects("json", "gjson", "url", "csv")
	if err != nil {
		return "", err
	}
	var e1files []string
	var panics []string
	for _, s := range e1s {
		say("E1 %s", s.Name)
		r, err := E1(ctx, E1Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target, Reps: reps, Seed: cfg.Seed, CacheDir: cfg.CacheDir, Progress: sub})
		if err != nil {
			return "", err
		}
		files, err := WriteE1(cfg.Out, r)
		if err != nil {
			return "", err
		}
		e1files = append(e1files, files...)
		for _, c := range r.Cells {
			fmt.Fprintf(&report, "| %s | %d | %.1f | %.3f | %.3f | %.2g | %.3f | %.3f |\n", s.Name, c.K, c.SetSize, c.BlocksKPath, c.BlocksRandom, c.BlocksP, c.FunctionsKPath, c.FunctionsRandom)
		}
		done++
		for _, p := range r.Panics {
			panics = append(panics, fmt.Sprintf("| %s | %d | %s | %.2f | %.2f |", s.Name, p.K, p.Stack, p.RateKPath, p.RateRandom))
		}
	}
	if len(panics) > 0 {
		fmt.Fprintf(&report, "\nPanics found (share of repetitions whose set found each):\n\n| subject | k | stack hash | k-path | random |\n|---|---|---|---|---|\n%s\n", strings.Join(panics, "\n"))
	} else {
		report.WriteString("\nNo panics were found by either technique.\n")
	}
	fmt.Fprintf(&report, "\nFiles: %s\n", links(e1files))
	if err := flush(); err != nil {
		return "", err
	}

	// E2
	fmt.Fprintf(&report, "\n## E2: k-path coverage against block coverage\n\n%d forestation sets per subject; Spearman's ρ per k.\n\n| subject |", sets)
	for k := 1; k <= maxK; k++ {
		fmt.Fprintf(&report, " ρ k=%d |", k)
	}
	report.WriteString("\n|---|" + strings.Repeat("---|", maxK) + "\n")
	var e2files []string
	for _, s := range e1s {
		say("E2 %s", s.Name)
		r, err := E2(ctx, E2Config{Subject: s.Name, Grammar: s.Grammar, Target: s.Target, MaxK: maxK, Sets: sets, Seed: cfg.Seed, CacheDir: cfg.CacheDir, Progress: sub})
		if err != nil {
			return "", err
		}
		files, err := WriteE2(cfg.Out, r)
		if err != nil {
			return "", err
		}
		e2files = append(e2files, files...)
		done++
		fmt.Fprintf(&report, "| %s |", s.Name)
		for i := range r.Rho {
			fmt.Fprintf(&report, " %s |", r.FormatRho(i))
		}
		report.WriteString("\n")
	}
	fmt.Fprintf(&report, "\nFiles: %s\n", links(e2files))
	if err := flush(); err != nil {
		return "", err
	}

	// E3, E4, E5: the generalization suite
	suiteNames := []string{}
	for _, bs := range datasets.Subjects() {
		suiteNames = append(suiteNames, bs.Name)
	}
	budgets := DefaultSuiteBudgets
	if cfg.Quick {
		budgets = QuickSuiteBudgets
	}
	fmt.Fprintf(&report, "\n## E3 and E4: the generalization suite\n\nEvery bundled subject; %d training and %d test inputs (test inputs identical to a training input dropped); targeting asks for %d inputs per function and spends at most %d executions on it; random inputs get as many executions as targeting spent, function by function, from %d separate random inputs that also give the base rates. "+
		"acc/prec/rec: means over trainable functions; baseline: always predicting the training majority class; mid-rate: functions with test base rate in [%.2f, %.2f]; reach: share of all trainable functions reached at least once (random's expectation 1-(1-p)^E in parentheses); rare: base rate < %.2f; hit rate: median share of the inputs asked for that were verified.\n\n"+
		"| subject | trainable | label vectors | acc / prec / rec | baseline | balanced | mid-rate n: prec / rec | mid-rate acc vs baseline | reach targeted vs random (expected) | rare n: targeted vs random | hit rate |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
		budgets.Train, budgets.Test, budgets.Inputs, budgets.Budget, budgets.BaseInputs, MidRateLow, MidRateHigh, RareLimit)
	var e5rows []string
	suiteDir := filepath.Join(cfg.Out, "suite")
	for _, name := range suiteNames {
		say("E3/E4 %s", name)
		r, err := Suite(ctx, SuiteConfig{Subjects: []string{name}, Quick: cfg.Quick, Seed: cfg.Seed, Out: filepath.Join(suiteDir, name), CacheDir: cfg.CacheDir,
			Progress: func(st Step) { sub("E3/E4 " + st.Text) }})
		if err != nil {
			return "", err
		}
		done++
		row := r.Rows[0]
		if row.E3 == nil {
			fmt.Fprintf(&report, "| %s | error: %s |\n", name, row.Error)
			continue
		}
		e, mr := row.E3, row.E3.MidRate
		fmt.Fprintf(&report, "| [%s](suite/%s/suite.json) | %d | %d | %.3f / %.3f / %.3f | %.3f | %.3f | %d: %.3f / %.3f | %.3f vs %.3f |", name, name,
			e.FunctionsTrainable, e.DistinctLabels, e.Accuracy, e.Precision, e.Recall, e.Baseline, e.Balanced, mr.Functions, mr.Precision, mr.Recall, mr.Accuracy, mr.Baseline)
		if t := row.E4; t != nil {
			fmt.Fprintf(&report, " %.3f vs %.3f (%.3f) | %d: %.2f vs %.2f | %.2f |\n", t.Absolute.Targeted, t.Absolute.Random, t.ExpectedRandom, t.Rare.Functions, t.Rare.Targeted, t.Rare.Random, t.HitRate)
			e5rows = append(e5rows, fmt.Sprintf("| %s | %.1f vs %.1f | %.1f | %.2f vs %.2f, p %.2g, d %.2f | %.2f vs %.2f, p %.2g, d %.2f |", name,
				t.Size.Targeted, t.Size.Random, t.ExecutionsPerInput, t.CoveredPerInputMean.Targeted, t.CoveredPerInputMean.Random, t.CoveredP, t.CoveredD,
				t.CallsMean.Targeted, t.CallsMean.Random, t.CallsP, t.CallsD))
		} else {
			fmt.Fprintf(&report, " error: %s | | |\n", row.Error)
		}
		if err := flush(); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(&report, "\n## E5: what targeted inputs run\n\nThe suite's E4 inputs (the verified ones) beside as many random inputs per function; functions covered per input and calls of the targeted function, Wilcoxon signed-rank p (paired by function) and Cohen's d.\n\n| subject | mean size (bytes) targeted vs random | executions per verified input | functions per input (mean) | calls of the target (mean) |\n|---|---|---|---|---|\n%s\n", strings.Join(e5rows, "\n"))
	if err := flush(); err != nil {
		return "", err
	}

	// E6
	say("E6: 3 benchmarks, three guides each")
	bs, closeBenchmarks, err := E6Benchmarks(ctx, cfg.Seed, bst, trials, cfg.CacheDir)
	if err != nil {
		return "", err
	}
	defer closeBenchmarks()
	res, err := E6(ctx, bs, cfg.Seed, cfg.Out)
	if err != nil {
		return "", err
	}
	if err := writeJSON(filepath.Join(cfg.Out, "E6.json"), res); err != nil {
		return "", err
	}
	report.WriteString("\n## E6: bandit generator\n\nrandom: uniform choices; rlcheck: RLCheck's published settings; rl: with count bonus and decaying ε.\n\n| benchmark | guide | trials | valid | unique valid | diverse valid |\n|---|---|---|---|---|---|\n")
	for _, b := range res {
		for _, r := range b.Runs {
			fmt.Fprintf(&report, "| %s | %s | %d | %d | %d | %d |\n", b.Name, r.Guide, r.Result.Trials, r.Result.Valid, r.Result.UniqueValid, r.Result.DiverseValid)
		}
	}
	for _, b := range res {
		fmt.Fprintf(&report, "\n![%s](%s)\n", b.Name, filepath.Base(b.SVG))
	}
	done++
	if err := flush(); err != nil {
		return "", err
	}

	// E7
	e7, err := allE7(ctx, cfg, say)
	if err != nil {
		return "", err
	}
	report.WriteString(e7)
	done++
	if err := flush(); err != nil {
		return "", err
	}

	// E8
	e8, err := allE8(ctx, cfg, say)
	if err != nil {
		return "", err
	}
	report.WriteString(e8)
	done++
	if err := flush(); err != nil {
		return "", err
	}

	// E9
	e9, err := allE9(ctx, cfg, say)
	if err != nil {
		return "", err
	}
	report.WriteString(e9)
	done++
	if err := flush(); err != nil {
		return "", err
	}

	// E10
	e10, err := allE10(ctx, cfg, say)
	if err != nil {
		return "", err
	}
	report.WriteString(e10)
	done++
	if err := flush(); err != nil {
		return "", err
	}
	say("done")
	return reportPath, flush()
}

// fuzzingSubjects are E7's and E8's subjects in All: every bundled
// subject; the quick preset takes the first six Go subjects by name
// (cron, css, csv, exprlang, fastjson, gjson: chosen by name, not by any
// result).
func fuzzingSubjects(ctx context.Context, quick bool) ([]subject.Setup, error) {
	var setups []subject.Setup
	for _, bs := range datasets.Subjects() {
		if quick && (bs.Lang != "go" || len(setups) == 6) {
			continue
		}
		s, err := subject.Load(ctx, bs.Name)
		if err != nil {
			return nil, err
		}
		setups = append(setups, s)
	}
	return setups, nil
}

// allE7 runs E7 for All: 10 runs of 10 seconds per method and subject,
// E7DefaultMethods; the quick preset runs E7QuickMethods, 3 runs of half
// a second. It returns the report's section.
func allE7(ctx context.Context, cfg AllConfig, say func(string, ...any)) (string, error) {
	reps, per, methods := 10, 10*time.Second, E7DefaultMethods
	if cfg.Quick {
		reps, per, methods = 3, 500*time.Millisecond, E7QuickMethods
	}
	setups, err := fuzzingSubjects(ctx, cfg.Quick)
	if err != nil {
		return "", err
	}
	say("E7: %d subjects, methods %s, %d runs of %v each", len(setups), strings.Join(methods, ", "), reps, per)
	r, err := E7(ctx, E7Config{Subjects: setups, Time: per, Reps: reps, Seed: cfg.Seed, CacheDir: cfg.CacheDir, Methods: methods,
		Progress: func(s string) { say("%s", s) }})
	if err != nil {
		return "", err
	}
	files, err := WriteE7(cfg.Out, r)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## E7: coverage over time\n\nEach method runs %v of wall time, %d times per subject: random, grammar-random inputs; rl, the bandit generator rewarded by validity; zest, arbor fuzz (coverage- and validity-guided mutation of choice sequences); gofuzz, Go's own fuzzer (go test -fuzz) on the grammar-aware fuzz target, Go subjects only, left out of the quick preset (its build costs more than its half-second runs). Coverage counts basic blocks where the subject records them, else functions; valid coverage counts what accepted inputs ran (Zest's semantic coverage). Medians over runs; p: two-sided Mann–Whitney U of valid coverage against zest.\n\n| subject | units | method | executions | covered | valid covered | p vs zest |\n|---|---|---|---|---|---|---|\n", per, reps)
	for _, s := range r.Subjects {
		if s.Error != "" {
			fmt.Fprintf(&b, "| %s | | error: %s | | | | |\n", s.Subject, s.Error)
			continue
		}
		for _, row := range s.Rows {
			fmt.Fprintf(&b, "| %s | %d %s | %s | %.0f | %.1f | %.1f | %s |\n", s.Subject, s.Units, s.Unit, row.Method, row.Execs, row.Covered, row.ValidCovered, PValue(row.PvsZest))
		}
		for _, sk := range s.Skipped {
			fmt.Fprintf(&b, "| %s | %d %s | %s | skipped: %s | | | |\n", s.Subject, s.Units, s.Unit, sk.Method, sk.Reason)
		}
	}
	fmt.Fprintf(&b, "\nFiles: %s\n", topLinks(files))
	return b.String(), nil
}

// allE8 runs E8 for All: 10 runs of 5,000 executions per variant and
// subject, 3 runs of 500 with the quick preset. It returns the report's
// section.
func allE8(ctx context.Context, cfg AllConfig, say func(string, ...any)) (string, error) {
	reps, execs, base := 10, 5000, 1000
	if cfg.Quick {
		reps, execs, base = 3, 500, 200
	}
	setups, err := fuzzingSubjects(ctx, cfg.Quick)
	if err != nil {
		return "", err
	}
	say("E8: %d subjects, three variants, %d runs of %d executions each", len(setups), reps, execs)
	r, err := E8(ctx, E8Config{Subjects: setups, Execs: execs, Reps: reps, BaseInputs: base, Seed: cfg.Seed, CacheDir: cfg.CacheDir,
		Progress: func(s string) { say("%s", s) }})
	if err != nil {
		return "", err
	}
	files, err := WriteE8(cfg.Out, r)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## E8: FairFuzz and PerfFuzz against plain fuzzing\n\n%d executions per run, %d runs per variant: zest, Zest's domains; fairfuzz, with FairFuzz's rare-part search; perffuzz, with PerfFuzz's per-function maxima added. Rare functions: base rate below %.2f in %d random inputs. Medians over runs; p: two-sided Mann–Whitney U against zest.\n\n| subject | rare functions | variant | rare reached | p | functions covered | most calls of one function | p |\n|---|---|---|---|---|---|---|---|\n", execs, reps, RareLimit, base)
	for _, s := range r.Subjects {
		if s.Error != "" {
			fmt.Fprintf(&b, "| %s | | error: %s | | | | | |\n", s.Subject, s.Error)
			continue
		}
		for _, row := range s.Rows {
			fmt.Fprintf(&b, "| %s | %d | %s | %.1f | %s | %.1f | %.0f | %s |\n", s.Subject, len(s.Rare), row.Variant, row.RareReached, PValue(row.RareP), row.Functions, row.MaxCalls, PValue(row.CallsP))
		}
	}
	fmt.Fprintf(&b, "\nFiles: %s\n", topLinks(files))
	return b.String(), nil
}

// allE10 runs E10 for All: every bundled subject, 10 repetitions of 2,000
// generator trials, 20 seeds per filter and up to 20,000 seedless
// executions; the quick preset takes cron, css and csv (the first three
// Go subjects by name), 2 repetitions of 300 trials, 10 seeds and 2,000
// executions. It returns the report's section.
func allE10(ctx context.Context, cfg AllConfig, say func(string, ...any)) (string, error) {
	reps, trials, seeds, execs := 10, 2000, 20, 20000
	setups, err := fuzzingSubjects(ctx, cfg.Quick)
	if err != nil {
		return "", err
	}
	if cfg.Quick {
		reps, trials, seeds, execs = 2, 300, 10, 2000
		setups = setups[:min(3, len(setups))]
	}
	say("E10: %d subjects, %d repetitions", len(setups), reps)
	r, err := E10(ctx, E10Config{Subjects: setups, Trials: trials, Seeds: seeds, Execs: execs, Reps: reps, Seed: cfg.Seed, CacheDir: cfg.CacheDir,
		Progress: func(s string) { say("%s", s) }})
	if err != nil {
		return "", err
	}
	files, err := WriteE10(cfg.Out, r)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## E10: seeding from the bandit generator (Kummer)\n\n%d repetitions: the bandit generator makes %d inputs judged by the subject; each filter keeps %d of the distinct valid ones (seeds cost %d executions); a seedless campaign runs up to %d executions. Seeds cover: median blocks (or functions) the seeds ran; caught up: share of repetitions in which seedless fuzzing ran as much; executions: median it took.\n\n| subject | filter | seeds cover | seedless caught up | executions to catch up |\n|---|---|---|---|---|\n", reps, trials, seeds, trials+seeds, execs)
	for _, s := range r.Subjects {
		if s.Error != "" {
			fmt.Fprintf(&b, "| %s | error: %s | | | |\n", s.Subject, s.Error)
			continue
		}
		for _, row := range s.Rows {
			ex := "not within the budget"
			if row.ExecsToMeet >= 0 {
				ex = fmt.Sprintf("%.0f", row.ExecsToMeet)
			}
			fmt.Fprintf(&b, "| %s | %s | %.1f %s | %.0f%% | %s |\n", s.Subject, row.Filter, row.Covered, s.Unit, 100*row.CaughtUp, ex)
		}
	}
	fmt.Fprintf(&b, "\nFiles: %s\n", topLinks(files))
	return b.String(), nil
}

// topLinks links files written to the report's own folder.
func topLinks(files []string) string {
	var links []string
	for _, f := range files {
		links = append(links, fmt.Sprintf("[%s](%s)", filepath.Base(f), filepath.Base(f)))
	}
	return strings.Join(links, " · ")
}

// PValue prints a p-value (two significant digits), or nothing where
// there is none: the one form of every table, terminal and Markdown.
func PValue(p *float64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%.2g", *p)
}
