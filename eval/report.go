package eval

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/internal/atomicfile"
)

// report.md's sections. Each lays out its experiment's Table in Markdown
// after a paragraph that says how the experiment ran; where the report
// tables several subjects, a row starts with the subject, and where its
// column labels say more than the terminal's, it names its own.

func e1Intro(b *strings.Builder, reps int) {
	fmt.Fprintf(b, "\n## E1: k-path covering sets against grammar-random sets of the same size\n\n%d repetitions; block and function coverage are shares of the subject's blocks and functions; p is the two-sided Mann–Whitney U test of block coverage.\n\n", reps)
	markdownHeader(b, []string{"subject", "k", "set size", "blocks k-path", "blocks random", "p", "functions k-path", "functions random"})
}

// e1Rows are a subject's rows of E1's table in the report (Table's,
// without the p of function coverage) and of its panics.
func e1Rows(r *E1Result) (rows, panics [][]string) {
	_, rows = r.Table()
	for i := range rows {
		rows[i] = rows[i][:len(rows[i])-1]
	}
	_, panics = r.PanicTable()
	return withSubject(r.Subject, rows), withSubject(r.Subject, panics)
}

func e1Panics(b *strings.Builder, panics [][]string) {
	if len(panics) == 0 {
		b.WriteString("\nNo panics were found by either technique.\n")
		return
	}
	b.WriteString("\nPanics found (share of repetitions whose set found each):\n\n")
	markdownTable(b, []string{"subject", "k", "stack hash", "k-path", "random"}, panics)
}

func e2Intro(b *strings.Builder, sets, maxK int) {
	fmt.Fprintf(b, "\n## E2: k-path coverage against block coverage\n\n%d forestation sets per subject; Spearman's ρ per k.\n\n", sets)
	header := []string{"subject"}
	for k := 1; k <= maxK; k++ {
		header = append(header, fmt.Sprintf("ρ k=%d", k))
	}
	markdownHeader(b, header)
}

// e2Row is a subject's row of E2's table in the report: Table's ρ per k,
// side by side.
func e2Row(r *E2Result) []string {
	_, rows := r.Table()
	row := []string{r.Subject}
	for _, k := range rows {
		row = append(row, k[1])
	}
	return row
}

func suiteIntro(b *strings.Builder, budgets SuiteBudgets) {
	fmt.Fprintf(b, "\n## E3 and E4: the generalization suite\n\nEvery bundled subject; %d training and %d test inputs (test inputs identical to a training input dropped); targeting asks for %d inputs per function and spends at most %d executions on it; random inputs get as many executions as targeting spent, function by function, from %d separate random inputs that also give the base rates. "+
		"acc/prec/rec: means over trainable functions; baseline: always predicting the training majority class; mid-rate: functions with test base rate in [%.2f, %.2f]; reach: share of all trainable functions reached at least once (random's expectation 1-(1-p)^E in parentheses); rare: base rate < %.2f; hit rate: median share of the inputs asked for that were verified.\n\n",
		budgets.Train, budgets.Test, budgets.Inputs, budgets.Budget, budgets.BaseInputs, MidRateLow, MidRateHigh, RareLimit)
	markdownHeader(b, []string{"subject", "trainable", "label vectors", "acc / prec / rec", "baseline", "balanced", "mid-rate n: prec / rec", "mid-rate acc vs baseline",
		"reach targeted vs random (expected)", "rare n: targeted vs random", "hit rate"})
}

// suiteRows are a subject's rows of the report's suite table and, if it
// has E4's figures, of its E5 table (else nil). The report's suite table
// is not SuiteResult.Table: it keeps three decimals of prediction, links
// the subject's suite.json, and leaves sizes and executions to E5's.
func suiteRows(r SuiteRow) (suite, e5 []string) {
	name := r.Subject
	if r.E3 == nil {
		return []string{name, "error: " + r.Error}, nil
	}
	e, mr := r.E3, r.E3.MidRate
	suite = []string{fmt.Sprintf("[%s](suite/%s/suite.json)", name, name), fmt.Sprint(e.FunctionsTrainable), fmt.Sprint(e.DistinctLabels),
		fmt.Sprintf("%.3f / %.3f / %.3f", e.Accuracy, e.Precision, e.Recall), fmt.Sprintf("%.3f", e.Baseline), fmt.Sprintf("%.3f", e.Balanced),
		fmt.Sprintf("%d: %.3f / %.3f", mr.Functions, mr.Precision, mr.Recall), fmt.Sprintf("%.3f vs %.3f", mr.Accuracy, mr.Baseline)}
	t := r.E4
	if t == nil {
		return append(suite, "error: "+r.Error, "", ""), nil
	}
	suite = append(suite, fmt.Sprintf("%.3f vs %.3f (%.3f)", t.Absolute.Targeted, t.Absolute.Random, t.ExpectedRandom),
		fmt.Sprintf("%d: %.2f vs %.2f", t.Rare.Functions, t.Rare.Targeted, t.Rare.Random), fmt.Sprintf("%.2f", t.HitRate))
	e5 = []string{name, fmt.Sprintf("%.1f vs %.1f", t.Size.Targeted, t.Size.Random), fmt.Sprintf("%.1f", t.ExecutionsPerInput),
		fmt.Sprintf("%.2f vs %.2f, p %s, d %.2f", t.CoveredPerInputMean.Targeted, t.CoveredPerInputMean.Random, PValue(&t.CoveredP), t.CoveredD),
		fmt.Sprintf("%.2f vs %.2f, p %s, d %.2f", t.CallsMean.Targeted, t.CallsMean.Random, PValue(&t.CallsP), t.CallsD)}
	return suite, e5
}

func e5Section(b *strings.Builder, rows [][]string) {
	b.WriteString("\n## E5: what targeted inputs run\n\nThe suite's E4 inputs (the verified ones) beside as many random inputs per function; functions covered per input and calls of the targeted function, Wilcoxon signed-rank p (paired by function) and Cohen's d.\n\n")
	markdownTable(b, []string{"subject", "mean size (bytes) targeted vs random", "executions per verified input", "functions per input (mean)", "calls of the target (mean)"}, rows)
	if len(rows) == 0 {
		b.WriteString("\n") // the table's end, as with rows
	}
}

func e6Section(b *strings.Builder, r E6Result) {
	b.WriteString("\n## E6: bandit generator\n\nrandom: uniform choices; rlcheck: RLCheck's published settings; rl: with count bonus and decaying ε.\n\n")
	header, rows := r.Table()
	for i := range rows {
		rows[i] = rows[i][:len(rows[i])-1] // not the seconds, which vary with the machine
	}
	markdownTable(b, header[:len(header)-1], rows)
	for _, bm := range r {
		fmt.Fprintf(b, "\n![%s](%s)\n", bm.Name, filepath.Base(bm.SVG))
	}
}

func e7Section(b *strings.Builder, r *E7Result, per time.Duration, files []string) {
	fmt.Fprintf(b, "\n## E7: coverage over time\n\nEach method runs %v of wall time, %d times per subject: random, grammar-random inputs; rl, the bandit generator rewarded by validity; zest, arbor fuzz (coverage- and validity-guided mutation of choice sequences); gofuzz, Go's own fuzzer (go test -fuzz) on the grammar-aware fuzz target, Go subjects only, left out of the quick preset (its build costs more than its half-second runs); unless the report's constraints are off, every method's inputs satisfy the grammar's constraints (gofuzz's generator repairs each tree its bytes make, the same way for the same bytes). Coverage counts basic blocks where the subject records them, else functions; valid coverage counts what accepted inputs ran (Zest's semantic coverage). Every run starts in a fresh process of the subject, so that each is credited alike with what a process does once. Medians over runs (Go's fuzzer, which stops at a failure, is started again for the time left; a gofuzz run it stopped early is left out; e7.json keeps the first failing input and message); valid gain, last 10%%: what valid coverage grew in the last tenth of a run, above 0 where it was still rising at the end; p: two-sided Mann–Whitney U of valid coverage against zest and against random, exact for samples of up to 50 runs together.\n\n", per, r.Reps)
	header, rows := r.Table()
	markdownTable(b, header, rows)
	fmt.Fprintf(b, "\nFiles: %s\n", topLinks(files))
}

func e8Section(b *strings.Builder, r *E8Result, files []string) {
	fmt.Fprintf(b, "\n## E8: FairFuzz and PerfFuzz against plain fuzzing\n\n%d executions per run, %d runs per variant: zest, Zest's domains; fairfuzz, with FairFuzz's rare-part search; perffuzz, with PerfFuzz's per-function maxima added. Rare functions: base rate below %.2f in %d random inputs. Medians over runs; p: two-sided Mann–Whitney U against zest.\n\n", r.Execs, r.Reps, RareLimit, r.BaseInputs)
	_, rows := r.Table()
	markdownTable(b, []string{"subject", "rare functions", "variant", "rare reached", "p", "functions covered", "most calls of one function", "p"}, rows)
	fmt.Fprintf(b, "\nFiles: %s\n", topLinks(files))
}

func e9Section(b *strings.Builder, r *E9Result, files []string) {
	fmt.Fprintf(b, "\n## E9: Bonsai's bounded lattice against unbounded fuzzing\n\n%d executions per run, %d runs per method: zest, one campaign with the generator's usual bounds; top, one campaign with the lattice's top bounds; bonsai, a lattice of %d levels per axis (distinct values per terminal, repetitions, depth) sharing the same budget, the top campaign's corpus kept. Corpus covers: what the corpus's inputs run again (blocks where the subject records them, else functions). Medians over runs; p: two-sided Mann–Whitney U against zest.\n\n", r.Execs, r.Reps, r.Levels)
	_, rows := r.Table()
	markdownTable(b, []string{"subject", "method", "corpus covers", "p", "valid", "files", "bytes", "p", "largest input", "bytes per unit"}, rows)
	fmt.Fprintf(b, "\nFiles: %s\n", topLinks(files))
}

func e10Section(b *strings.Builder, r *E10Result, files []string) {
	fmt.Fprintf(b, "\n## E10: seeding from the bandit generator (Kummer)\n\n%d repetitions: the bandit generator makes %d inputs judged by the subject; each filter keeps %d of the distinct valid ones (seeds cost %d executions); a seedless campaign runs up to %d executions. Seeds cover: median blocks (or functions) the seeds ran; caught up: share of repetitions in which seedless fuzzing ran as much; executions: median it took.\n\n", r.Reps, r.Trials, r.Seeds, r.Trials+r.Seeds, r.Execs)
	// The report names the unit beside the coverage, not in a column.
	_, rows := r.Table()
	for i, row := range rows {
		subject, unit, filter, covers := row[0], row[1], row[2], row[3]
		if covers != "" {
			covers += " " + unit
		}
		rows[i] = append([]string{subject, filter, covers}, row[4:]...)
	}
	markdownTable(b, []string{"subject", "filter", "seeds cover", "seedless caught up", "executions to catch up"}, rows)
	fmt.Fprintf(b, "\nFiles: %s\n", topLinks(files))
}

// markdownTable lays a table out in Markdown: the header, its rule and a
// line per row.
func markdownTable(b *strings.Builder, header []string, rows [][]string) {
	markdownHeader(b, header)
	markdownRows(b, rows)
}

func markdownHeader(b *strings.Builder, header []string) {
	markdownRow(b, header)
	b.WriteString("|" + strings.Repeat("---|", len(header)) + "\n")
}

func markdownRows(b *strings.Builder, rows [][]string) {
	for _, r := range rows {
		markdownRow(b, r)
	}
}

// markdownRow writes a table's line: "| " and " |" around every cell,
// so that a value that prints as nothing (a p-value where there is none)
// is "|  |"; but a row that says why there are no figures (an error, a
// method skipped) leaves its other cells blank, "| |".
func markdownRow(b *strings.Builder, cells []string) {
	note := slices.ContainsFunc(cells, func(c string) bool {
		return strings.HasPrefix(c, "error: ") || strings.HasPrefix(c, "skipped: ")
	})
	b.WriteString("|")
	for _, c := range cells {
		if c != "" || !note {
			b.WriteString(" " + c)
		}
		b.WriteString(" |")
	}
	b.WriteString("\n")
}

// withSubject puts the subject's name before every row: report.md
// tables an experiment over several subjects.
func withSubject(name string, rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = append([]string{name}, r...)
	}
	return out
}

// topLinks links files written to the report's own folder.
func topLinks(files []string) string {
	var links []string
	for _, f := range files {
		links = append(links, fmt.Sprintf("[%s](%s)", filepath.Base(f), filepath.Base(f)))
	}
	return strings.Join(links, " · ")
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	// Whole or not at all: results are rewritten as a run goes, and a
	// kill must leave the last complete file.
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}

func writeCSV(path string, header []string, rows [][]string) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes(), 0o644)
}

// writeJSONAndCSV writes dir/name.json (the result) and dir/name.csv.
func writeJSONAndCSV(dir, name string, result any, header []string, rows [][]string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, name)
	if err := writeJSON(base+".json", result); err != nil {
		return nil, err
	}
	if err := writeCSV(base+".csv", header, rows); err != nil {
		return nil, err
	}
	return []string{base + ".json", base + ".csv"}, nil
}
