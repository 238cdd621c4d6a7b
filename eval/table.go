package eval

import (
	"fmt"
	"math"
	"strconv"
)

// Every result's tables are built here, once: arbor eval prints them on
// the terminal, the Write functions save them as CSV, and All lays them
// out in report.md. A table is a header and rows of text cells; the
// summary is Table, the CSV file's rows (every run, at full precision)
// CSVTable.

// PValue prints a p-value (two significant digits), or nothing where
// there is none: the one form of every table, terminal and Markdown.
func PValue(p *float64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%.2g", *p)
}

// ftoa is a CSV cell's number: four decimals.
func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

// Table is E1's comparison per k: mean set size, then block and function
// coverage of the k-path and the random sets, each with the U test's p.
func (r *E1Result) Table() (header []string, rows [][]string) {
	for _, c := range r.Cells {
		rows = append(rows, []string{strconv.Itoa(c.K), fmt.Sprintf("%.1f", c.SetSize),
			fmt.Sprintf("%.3f", c.BlocksKPath), fmt.Sprintf("%.3f", c.BlocksRandom), PValue(&c.BlocksP),
			fmt.Sprintf("%.3f", c.FunctionsKPath), fmt.Sprintf("%.3f", c.FunctionsRandom), PValue(&c.FunctionsP)})
	}
	return []string{"k", "set size", "blocks k-path", "blocks random", "p", "functions k-path", "functions random", "p"}, rows
}

// PanicTable is E1's panics: each stack hash, with the share of
// repetitions in which each technique found it.
func (r *E1Result) PanicTable() (header []string, rows [][]string) {
	for _, p := range r.Panics {
		rows = append(rows, []string{strconv.Itoa(p.K), p.Stack, fmt.Sprintf("%.2f", p.RateKPath), fmt.Sprintf("%.2f", p.RateRandom)})
	}
	return []string{"k", "panic (stack hash)", "found by k-path", "found by random"}, rows
}

// CSVTable is E1-SUBJECT.csv: Table's figures at full precision, with
// the U statistic of block coverage.
func (r *E1Result) CSVTable() (header []string, rows [][]string) {
	for _, c := range r.Cells {
		rows = append(rows, []string{strconv.Itoa(c.K), ftoa(c.SetSize), ftoa(c.FunctionsKPath), ftoa(c.FunctionsRandom), ftoa(c.FunctionsP),
			ftoa(c.BlocksKPath), ftoa(c.BlocksRandom), ftoa(c.BlocksU), ftoa(c.BlocksP)})
	}
	return []string{"k", "set_size", "functions_kpath", "functions_random", "functions_p", "blocks_kpath", "blocks_random", "blocks_u", "blocks_p"}, rows
}

// Table is E2's Spearman's ρ, a row per k.
func (r *E2Result) Table() (header []string, rows [][]string) {
	for i := range r.Rho {
		rows = append(rows, []string{strconv.Itoa(i + 1), r.FormatRho(i)})
	}
	return []string{"k", "Spearman rho (k-path vs block coverage)"}, rows
}

// CSVTable is E2-SUBJECT.csv: every forestation set's size, block
// coverage and k-path coverage per k.
func (r *E2Result) CSVTable() (header []string, rows [][]string) {
	header = []string{"inputs", "block_coverage"}
	for k := range r.Rho {
		header = append(header, fmt.Sprintf("kpath_%d", k+1))
	}
	for _, p := range r.Points {
		row := []string{strconv.Itoa(p.Inputs), ftoa(p.Blocks)}
		for _, c := range p.KPath {
			row = append(row, ftoa(c))
		}
		rows = append(rows, row)
	}
	return header, rows
}

// Table is E3's scores per trained function, then their means over all
// of them and over the mid-rate ones.
func (r *E3Result) Table() (header []string, rows [][]string) {
	f3 := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	rows = make([][]string, 0, len(r.PerFunction)+2)
	for _, f := range r.PerFunction {
		rows = append(rows, []string{f.Function, f3(f.Accuracy), f3(f.Precision), f3(f.Recall), f3(f.Balanced), f3(f.Baseline), f3(f.BaseRate)})
	}
	rows = append(rows, []string{fmt.Sprintf("mean over %d trainable", r.FunctionsTrainable), f3(r.Accuracy), f3(r.Precision), f3(r.Recall), f3(r.Balanced), f3(r.Baseline), ""})
	mr := r.MidRate
	rows = append(rows, []string{fmt.Sprintf("mean over %d mid-rate (base rate %.2f-%.2f)", mr.Functions, MidRateLow, MidRateHigh),
		f3(mr.Accuracy), f3(mr.Precision), f3(mr.Recall), f3(mr.Balanced), f3(mr.Baseline), ""})
	return []string{"function", "accuracy", "precision", "recall", "balanced acc.", "majority baseline", "test base rate"}, rows
}

// E4Table is E4's measures, targeted against random inputs at equal
// executions.
func (r *TargetResult) E4Table() (header []string, rows [][]string) {
	f3 := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	f1 := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	return []string{"measure", "targeted", "random, equal executions", "random expected"}, [][]string{
		{fmt.Sprintf("functions reached, of all %d trainable", r.Functions), f3(r.Absolute.Targeted), f3(r.Absolute.Random), f3(r.ExpectedRandom)},
		{fmt.Sprintf("rare functions reached (base rate < %.2f), of %d", RareLimit, r.Rare.Functions), f3(r.Rare.Targeted), f3(r.Rare.Random), f3(r.Rare.Expected)},
		{"share of the inputs asked for that were verified (median)", f3(r.HitRate), "", ""},
		{"share that ran the function when recorded again (median)", f3(r.Relative.Targeted), f3(r.Relative.Random), ""},
		{"mean input size (bytes)", f1(r.Size.Targeted), f1(r.Size.Random), ""},
		{fmt.Sprintf("executions (all %d), per verified input", r.Executions), f1(r.ExecutionsPerInput), "", ""},
	}
}

// E5Table is E5's measures, targeted against random inputs, with the
// Wilcoxon test's p (three significant digits: E5's tests are paired
// over every function, and their p are often small) and Cohen's d.
func (r *TargetResult) E5Table() (header []string, rows [][]string) {
	f2 := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	p3 := func(p float64) string { return fmt.Sprintf("%.3g", p) }
	return []string{"measure", "targeted", "random", "Wilcoxon p", "Cohen's d"}, [][]string{
		{"functions covered per input (median)", fmt.Sprintf("%.1f", r.CoveredPerInputMedian.Targeted), fmt.Sprintf("%.1f", r.CoveredPerInputMedian.Random), "", ""},
		{"functions covered per input (mean)", f2(r.CoveredPerInputMean.Targeted), f2(r.CoveredPerInputMean.Random), p3(r.CoveredP), f2(r.CoveredD)},
		{"calls of the targeted function (mean)", f2(r.CallsMean.Targeted), f2(r.CallsMean.Random), p3(r.CallsP), f2(r.CallsD)},
	}
}

// Table is the suite's line per subject, two decimals: prediction
// against its baselines (all and mid-rate functions), then targeting
// against random inputs.
func (r *SuiteResult) Table() (header []string, rows [][]string) {
	f2 := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	for _, r := range r.Rows {
		if r.E3 == nil {
			rows = append(rows, []string{r.Subject, "error: " + r.Error})
			continue
		}
		e, mr := r.E3, r.E3.MidRate
		row := []string{r.Subject, strconv.Itoa(e.FunctionsTrainable), strconv.Itoa(e.DistinctLabels),
			fmt.Sprintf("%.2f/%.2f/%.2f", e.Accuracy, e.Precision, e.Recall), f2(e.Baseline), f2(e.Balanced),
			fmt.Sprintf("%d: %.2f/%.2f", mr.Functions, mr.Precision, mr.Recall), fmt.Sprintf("%.2f vs %.2f", mr.Accuracy, mr.Baseline)}
		if t := r.E4; t != nil {
			row = append(row, fmt.Sprintf("%.2f vs %.2f (%.2f)", t.Absolute.Targeted, t.Absolute.Random, t.ExpectedRandom),
				fmt.Sprintf("%d: %.2f vs %.2f", t.Rare.Functions, t.Rare.Targeted, t.Rare.Random),
				f2(t.HitRate), fmt.Sprintf("%.0f vs %.0f", t.Size.Targeted, t.Size.Random), fmt.Sprintf("%.1f", t.ExecutionsPerInput))
		} else {
			row = append(row, "error: "+r.Error, "", "", "", "")
		}
		rows = append(rows, row)
	}
	return []string{"subject", "trainable", "label vectors", "acc/prec/rec", "baseline", "balanced", "mid-rate n: prec/rec", "mid-rate acc vs baseline",
		"reach targeted vs random (expected)", "rare n: targeted vs random", "hit rate", "size targeted vs random", "executions per input"}, rows
}

// CSVTable is suite.csv: a line per subject, every figure at full
// precision, empty where the subject has none.
func (r *SuiteResult) CSVTable() (header []string, rows [][]string) {
	header = []string{"subject", "trainable", "label_vectors", "accuracy", "precision", "recall", "baseline_accuracy", "balanced_accuracy",
		"midrate_functions", "midrate_precision", "midrate_recall", "midrate_balanced", "midrate_baseline",
		"reach_targeted", "reach_random", "reach_random_expected", "rare_functions", "rare_reach_targeted", "rare_reach_random", "worse_than_random",
		"hit_rate_median", "size_targeted", "size_random", "executions_per_input", "error"}
	for _, r := range r.Rows {
		cells := []string{r.Subject}
		if r.E3 == nil {
			cells = append(cells, make([]string, len(header)-2)...)
			rows = append(rows, append(cells, r.Error))
			continue
		}
		e, mr := r.E3, r.E3.MidRate
		cells = append(cells, strconv.Itoa(e.FunctionsTrainable), strconv.Itoa(e.DistinctLabels), ftoa(e.Accuracy), ftoa(e.Precision), ftoa(e.Recall),
			ftoa(e.Baseline), ftoa(e.Balanced), strconv.Itoa(mr.Functions), ftoa(mr.Precision), ftoa(mr.Recall), ftoa(mr.Balanced), ftoa(mr.Baseline))
		if t := r.E4; t != nil {
			cells = append(cells, ftoa(t.Absolute.Targeted), ftoa(t.Absolute.Random), ftoa(t.ExpectedRandom),
				strconv.Itoa(t.Rare.Functions), ftoa(t.Rare.Targeted), ftoa(t.Rare.Random), strconv.Itoa(len(t.WorseThanRandom)),
				ftoa(t.HitRate), ftoa(t.Size.Targeted), ftoa(t.Size.Random), ftoa(t.ExecutionsPerInput))
		} else {
			cells = append(cells, make([]string, 11)...)
		}
		rows = append(rows, append(cells, r.Error))
	}
	return header, rows
}

// Table is every guide's counts on every benchmark.
func (r E6Result) Table() (header []string, rows [][]string) {
	for _, b := range r {
		for _, run := range b.Runs {
			c := run.Result
			rows = append(rows, []string{b.Name, run.Guide, strconv.Itoa(c.Trials), strconv.Itoa(c.Valid),
				strconv.Itoa(c.UniqueValid), strconv.Itoa(c.DiverseValid), fmt.Sprintf("%.2f", c.Seconds)})
		}
	}
	return []string{"benchmark", "guide", "trials", "valid", "unique valid", "diverse valid", "seconds"}, rows
}

// CSVTable is E6-NAME.csv: each guide's counts whenever they grew.
func (b *E6Benchmark) CSVTable() (header []string, rows [][]string) {
	for _, r := range b.Runs {
		for _, p := range r.Result.Curve {
			rows = append(rows, []string{r.Guide, strconv.Itoa(p.Trial), ftoa(p.Seconds),
				strconv.Itoa(p.Valid), strconv.Itoa(p.UniqueValid), strconv.Itoa(p.DiverseValid)})
		}
	}
	return []string{"guide", "trial", "seconds", "valid", "unique_valid", "diverse_valid"}, rows
}

// Table is E7's medians per subject and method, a subject that failed
// with its error and a method skipped with its reason.
func (r *E7Result) Table() (header []string, rows [][]string) {
	for _, s := range r.Subjects {
		if s.Error != "" {
			rows = append(rows, []string{s.Subject, "", "error: " + s.Error, "", "", "", "", "", ""})
			continue
		}
		units := fmt.Sprintf("%d %s", s.Units, s.Unit)
		for _, row := range s.Rows {
			method := row.Method
			switch {
			case row.Stopped > 0 && row.Stopped == row.Runs:
				method += " (every run stopped at a failure)"
			case row.Stopped > 0:
				method += fmt.Sprintf(" (%d stopped at a failure, left out)", row.Stopped)
			}
			if row.Restarted > 0 {
				method += fmt.Sprintf(" (started again after failures in %d of %d runs)", row.Restarted, row.Runs)
			}
			rows = append(rows, []string{s.Subject, units, method, fmt.Sprintf("%.0f", row.Execs),
				fmt.Sprintf("%.1f", row.Covered), fmt.Sprintf("%.1f", row.ValidCovered), fmt.Sprintf("%.1f", row.LastGain), PValue(row.PvsZest), PValue(row.PvsRandom)})
		}
		for _, sk := range s.Skipped {
			rows = append(rows, []string{s.Subject, units, sk.Method, "skipped: " + sk.Reason, "", "", "", "", ""})
		}
	}
	return []string{"subject", "units", "method", "executions", "covered", "valid covered", "valid gain, last 10%", "p vs zest", "p vs random"}, rows
}

// CSVTable is e7.csv: every run's final state.
func (r *E7Result) CSVTable() (header []string, rows [][]string) {
	for _, s := range r.Subjects {
		for _, run := range s.Runs {
			rows = append(rows, []string{s.Subject, run.Method, strconv.Itoa(run.Rep), strconv.Itoa(run.Final.Execs),
				strconv.Itoa(run.Final.Covered), strconv.Itoa(run.Final.ValidCovered), s.Unit, strconv.Itoa(s.Units)})
		}
	}
	return []string{"subject", "method", "rep", "executions", "covered", "valid_covered", "unit", "units"}, rows
}

// CurveTable is e7-curves.csv: every run's coverage whenever it grew.
func (r *E7Result) CurveTable() (header []string, rows [][]string) {
	for _, s := range r.Subjects {
		for _, run := range s.Runs {
			for _, p := range run.Curve {
				rows = append(rows, []string{s.Subject, run.Method, strconv.Itoa(run.Rep), ftoa(p.Seconds),
					strconv.Itoa(p.Execs), strconv.Itoa(p.Covered), strconv.Itoa(p.ValidCovered)})
			}
		}
	}
	return []string{"subject", "method", "rep", "seconds", "executions", "covered", "valid_covered"}, rows
}

// Table is E8's medians per subject and variant, with the U tests' p
// against zest.
func (r *E8Result) Table() (header []string, rows [][]string) {
	for _, s := range r.Subjects {
		if s.Error != "" {
			rows = append(rows, []string{s.Subject, "", "error: " + s.Error, "", "", "", "", ""})
			continue
		}
		for _, row := range s.Rows {
			rows = append(rows, []string{s.Subject, strconv.Itoa(len(s.Rare)), row.Variant, fmt.Sprintf("%.1f", row.RareReached), PValue(row.RareP),
				fmt.Sprintf("%.1f", row.Functions), fmt.Sprintf("%.0f", row.MaxCalls), PValue(row.CallsP)})
		}
	}
	return []string{"subject", "rare functions", "variant", "rare reached", "p", "functions", "most calls", "p"}, rows
}

// CSVTable is e8.csv: every run.
func (r *E8Result) CSVTable() (header []string, rows [][]string) {
	for _, s := range r.Subjects {
		for _, run := range s.Runs {
			rows = append(rows, []string{s.Subject, run.Variant, strconv.Itoa(run.Rep), strconv.Itoa(len(s.Rare)), strconv.Itoa(run.RareReached),
				strconv.Itoa(run.Functions), strconv.FormatUint(uint64(run.MaxCalls), 10), run.Costliest})
		}
	}
	return []string{"subject", "variant", "rep", "rare_functions", "rare_reached", "functions_covered", "max_calls", "costliest"}, rows
}

// Table is E9's medians per subject and method, with the U tests' p
// against zest.
func (r *E9Result) Table() (header []string, rows [][]string) {
	for _, s := range r.Subjects {
		if s.Error != "" {
			rows = append(rows, []string{s.Subject, "error: " + s.Error, "", "", "", "", "", "", "", ""})
			continue
		}
		for _, row := range s.Rows {
			rows = append(rows, []string{s.Subject, row.Method, fmt.Sprintf("%.1f %s", row.CorpusCovered, s.Unit), PValue(row.CoveredP),
				fmt.Sprintf("%.1f", row.ValidCovered), fmt.Sprintf("%.1f", row.Files), fmt.Sprintf("%.0f", row.Bytes), PValue(row.BytesP),
				fmt.Sprintf("%.0f", row.Largest), fmt.Sprintf("%.1f", row.BytesPerUnit)})
		}
	}
	return []string{"subject", "method", "corpus covers", "p", "valid", "files", "bytes", "p", "largest", "bytes/unit"}, rows
}

// CSVTable is e9.csv: every run.
func (r *E9Result) CSVTable() (header []string, rows [][]string) {
	for _, s := range r.Subjects {
		for _, run := range s.Runs {
			rows = append(rows, []string{s.Subject, run.Method, strconv.Itoa(run.Rep), s.Unit, strconv.Itoa(run.Execs), strconv.Itoa(run.Covered),
				strconv.Itoa(run.CorpusCovered), strconv.Itoa(run.ValidCovered), strconv.Itoa(run.Files), strconv.Itoa(run.Bytes), strconv.Itoa(run.Largest)})
		}
	}
	return []string{"subject", "method", "rep", "unit", "executions", "covered", "corpus_covered", "corpus_valid_covered", "files", "bytes", "largest"}, rows
}

// Table is E10's figures per subject and filter.
func (r *E10Result) Table() (header []string, rows [][]string) {
	for _, s := range r.Subjects {
		if s.Error != "" {
			rows = append(rows, []string{s.Subject, "", "error: " + s.Error, "", "", ""})
			continue
		}
		for _, row := range s.Rows {
			execs := "not within the budget"
			if row.ExecsToMeet >= 0 {
				execs = fmt.Sprintf("%.0f", row.ExecsToMeet)
			}
			rows = append(rows, []string{s.Subject, s.Unit, row.Filter, fmt.Sprintf("%.1f", row.Covered), fmt.Sprintf("%.0f%%", 100*row.CaughtUp), execs})
		}
	}
	return []string{"subject", "unit", "filter", "seeds cover", "seedless caught up", "executions to catch up"}, rows
}

// CSVTable is e10.csv: every run.
func (r *E10Result) CSVTable() (header []string, rows [][]string) {
	for _, s := range r.Subjects {
		for _, run := range s.Runs {
			rows = append(rows, []string{s.Subject, run.Filter, strconv.Itoa(run.Rep), s.Unit, strconv.Itoa(run.Covered), strconv.Itoa(run.Reached)})
		}
	}
	return []string{"subject", "filter", "rep", "unit", "seeds_covered", "seedless_executions_to_meet"}, rows
}

// Table is every learner on every subject: its mid-rate scores, the size
// of its features and its speed.
func (r *LearnerSuiteResult) Table() (header []string, rows [][]string) {
	f3 := func(x float64) string { return fmt.Sprintf("%.3f", x) }
	for _, r := range r.Results {
		mr := r.MidRate
		rows = append(rows, []string{r.Subject, r.Name, strconv.Itoa(r.TrainInputs), strconv.Itoa(mr.Functions),
			f3(mr.Accuracy) + " / " + f3(mr.Baseline), f3(mr.Precision) + " / " + f3(mr.Recall), f3(mr.Balanced),
			strconv.Itoa(r.Candidates), fmt.Sprintf("%.0f", r.PerInput), fmt.Sprintf("%.2f", r.TrainSeconds), fmt.Sprintf("%.0f", r.PredictPerSecond)})
	}
	return []string{"subject", "learner", "train", "mid-rate n", "mid acc / baseline", "mid prec / rec", "mid balanced",
		"features", "per input", "train s", "predict/s"}, rows
}

// MedianTable is every learner's medians over the subjects that have
// mid-rate functions ("-" where none has), and its prediction throughput
// relative to the first learner's on the same subject.
func (r *LearnerSuiteResult) MedianTable() (header []string, rows [][]string) {
	type agg struct{ acc, prec, rec, bal, speed []float64 }
	byLearner := map[string]*agg{}
	var order []string
	first := map[string]float64{} // subject -> first learner's throughput
	for _, r := range r.Results {
		a := byLearner[r.Name]
		if a == nil {
			a = &agg{}
			byLearner[r.Name] = a
			order = append(order, r.Name)
		}
		if _, ok := first[r.Subject]; !ok {
			first[r.Subject] = r.PredictPerSecond
		}
		if mr := r.MidRate; mr.Functions > 0 {
			a.acc = append(a.acc, mr.Accuracy-mr.Baseline)
			a.prec = append(a.prec, mr.Precision)
			a.rec = append(a.rec, mr.Recall)
			a.bal = append(a.bal, mr.Balanced)
		}
		a.speed = append(a.speed, r.PredictPerSecond/max(first[r.Subject], 1e-9))
	}
	median := func(xs []float64) string {
		if len(xs) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", Median(xs))
	}
	for _, name := range order {
		a := byLearner[name]
		rows = append(rows, []string{name, strconv.Itoa(len(a.acc)), median(a.acc), median(a.prec), median(a.rec), median(a.bal), median(a.speed)})
	}
	return []string{"learner", "subjects", "mid acc - baseline", "mid precision", "mid recall", "mid balanced", "throughput vs first"}, rows
}

// CSVTable is learners.csv: every learner on every subject, at full
// precision.
func (r *LearnerSuiteResult) CSVTable() (header []string, rows [][]string) {
	for _, x := range r.Results {
		mr := x.MidRate
		rows = append(rows, []string{x.Subject, x.Name, x.Features, strconv.FormatBool(x.NoBalance), strconv.FormatBool(x.NoRecount),
			strconv.Itoa(x.MaxDepth), strconv.Itoa(x.TrainInputs), strconv.Itoa(x.FunctionsTrainable),
			strconv.Itoa(mr.Functions), ftoa(mr.Accuracy), ftoa(mr.Precision), ftoa(mr.Recall), ftoa(mr.Balanced), ftoa(mr.Baseline),
			ftoa(x.Accuracy), ftoa(x.Balanced), ftoa(x.Baseline), strconv.Itoa(x.Vocabulary), strconv.Itoa(x.Candidates), ftoa(x.PerInput),
			ftoa(x.TrainSeconds), strconv.FormatFloat(x.PredictPerSecond, 'f', 0, 64)})
	}
	return []string{"subject", "learner", "features", "no_balance", "no_recount", "max_depth", "train_inputs", "trainable", "midrate_functions",
		"midrate_accuracy", "midrate_precision", "midrate_recall", "midrate_balanced", "midrate_baseline",
		"accuracy", "balanced_accuracy", "baseline_accuracy", "vocabulary", "candidates", "features_per_input", "train_seconds", "predict_per_second"}, rows
}

// Table is the bench's ratios, each with its goal and whether this run
// met it.
func (r *BenchResult) Table() (header []string, rows [][]string) {
	for _, row := range r.Rows {
		goal := row.Goal
		if row.Met != nil {
			if *row.Met {
				goal += " met"
			} else {
				goal += " NOT met"
			}
		}
		rows = append(rows, []string{row.Name, row.Compared, fmt.Sprintf("%.4g", row.A), fmt.Sprintf("%.4g", row.B), fmt.Sprintf("%.2f", row.Ratio), row.Unit, goal})
	}
	return []string{"ratio", "A vs B", "A", "B", "A/B", "unit", "goal"}, rows
}

// CSVTable is bench.csv: the ratios at six significant digits (empty
// where infinite or undefined).
func (r *BenchResult) CSVTable() (header []string, rows [][]string) {
	g6 := func(x float64) string {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	for _, row := range r.Rows {
		met := ""
		if row.Met != nil {
			met = strconv.FormatBool(*row.Met)
		}
		rows = append(rows, []string{row.Name, row.Compared, g6(row.A), g6(row.B), g6(row.Ratio), row.Unit, row.Goal, met, row.Note})
	}
	return []string{"name", "compared", "a", "b", "ratio", "unit", "goal", "met", "note"}, rows
}
