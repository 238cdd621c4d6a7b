package coverage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/coverage/report"
)

// CommandTarget is how a command-line subject was run, kept in the
// coverage file's header so that the file says what it measured and a
// model trained on it can run the subject again.
type CommandTarget struct {
	Argv     []string `json:"argv"`
	Dir      string   `json:"dir,omitempty"`
	Coverage string   `json:"coverage"`       // the report format (ReportFormats)
	Root     string   `json:"root,omitempty"` // source paths in names are relative to it
	Reject   []int    `json:"reject,omitempty"`
	Crash    string   `json:"crash,omitempty"`
}

// A ReportReader reads the coverage a run left in its folder. Paths of
// source files under Root become relative to it, so that function names
// do not depend on where the sources are.
type ReportReader struct {
	Format string
	Root   string
	// Dir is where relative paths in reports point: the folder the
	// command runs in (empty: the current one).
	Dir   string
	parse func(rr *ReportReader, f *os.File, name string) (*report.Coverage, error)
	match func(name string) bool
	// pyRanges caches the function ranges of Python files, which reports
	// of coverage.py before 7.5 lack (read once per file with Python's
	// own parser).
	pyRanges map[string][]report.Range
}

// reportFormats are the report formats a ReportReader reads, with the
// files of a run's folder each reads. It is a table, never written.
var reportFormats = map[string]struct {
	files string
	match func(string) bool
	parse func(rr *ReportReader, f *os.File, name string) (*report.Coverage, error)
}{
	"lcov": {"*.info, *.lcov", func(n string) bool { return strings.HasSuffix(n, ".info") || strings.HasSuffix(n, ".lcov") },
		func(_ *ReportReader, f *os.File, name string) (*report.Coverage, error) {
			return report.ParseLcov(f, name)
		}},
	"gcov": {"*.gcov.json.gz, *.gcov.json (gcov --json-format)", func(n string) bool {
		return strings.HasSuffix(n, ".gcov.json.gz") || strings.HasSuffix(n, ".gcov.json")
	}, func(_ *ReportReader, f *os.File, name string) (*report.Coverage, error) {
		return report.ParseGcovJSON(f, name)
	}},
	"jacoco": {"*.xml (JaCoCo's XML report)", func(n string) bool { return strings.HasSuffix(n, ".xml") },
		func(_ *ReportReader, f *os.File, name string) (*report.Coverage, error) {
			return report.ParseJaCoCo(f, name)
		}},
	"coveragepy": {"*.json (coverage json)", func(n string) bool { return strings.HasSuffix(n, ".json") }, (*ReportReader).parseCoveragePy},
}

// parseCoveragePy reads a coverage.py JSON report. Reports before
// coverage.py 7.5 have lines but no functions: their lines are assigned
// to functions by the source files' own function ranges, read with
// python3 in the command's folder, where the report's relative paths
// point.
func (rr *ReportReader) parseCoveragePy(f *os.File, name string) (*report.Coverage, error) {
	c, err := report.ParseCoveragePy(f, name)
	if err != nil || len(c.Functions) > 0 {
		return c, err
	}
	if rr.pyRanges == nil {
		rr.pyRanges = map[string][]report.Range{}
	}
	var missing []string
	for _, file := range c.Files {
		if _, ok := rr.pyRanges[file.Path]; !ok {
			missing = append(missing, file.Path)
		}
	}
	if len(missing) > 0 {
		ranges, err := report.PythonFunctions(context.Background(), "python3", rr.Dir, missing)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, path := range missing {
			rr.pyRanges[path] = ranges[path]
		}
	}
	c.AssignLines(rr.pyRanges)
	return c, nil
}

// ReportFormats names the formats NewReportReader takes, with the files
// each reads from a run's folder.
func ReportFormats() map[string]string {
	m := map[string]string{}
	for name, f := range reportFormats {
		m[name] = f.files
	}
	return m
}

// NewReportReader returns the reader of a report format.
func NewReportReader(format, root string) (*ReportReader, error) {
	f, ok := reportFormats[format]
	if !ok {
		var names []string
		for n := range reportFormats {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown coverage format %q (there are: %s)", format, strings.Join(names, ", "))
	}
	return &ReportReader{Format: format, Root: root, parse: f.parse, match: f.match}, nil
}

// Read reads every report of the format below dir and merges them (a
// function in several reports gets the sum of its hits). A folder with
// no report is an error.
func (rr *ReportReader) Read(dir string) (*report.Coverage, error) {
	var files []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && rr.match(d.Name()) {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		return nil, fmt.Errorf("the run left no %s report (%s) in its folder", rr.Format, reportFormats[rr.Format].files)
	}
	sort.Strings(files)
	merged := &report.Coverage{Format: rr.Format}
	index := map[string]int{}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		c, err := rr.parse(rr, f, filepath.Base(path))
		f.Close()
		if err != nil {
			return nil, err
		}
		c.Relative(rr.Root)
		for _, fn := range c.Functions {
			if i, ok := index[fn.Name]; ok {
				merged.Functions[i].Hits = addHits(merged.Functions[i].Hits, fn.Hits)
				continue
			}
			index[fn.Name] = len(merged.Functions)
			merged.Functions = append(merged.Functions, fn)
		}
		merged.Files = append(merged.Files, c.Files...)
	}
	return merged, nil
}

func addHits(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// RecordCommand runs the inputs through a command-line subject, one
// process per input, reads each run's coverage report with rr, and
// appends the records to the coverage file out, skipping inputs it
// already holds. The functions of the file's header are those the first
// run's report lists (coverage tools list every instrumented function,
// run or not); a function a later report names that the header lacks is
// left out and counted (Summary.Unlisted).
func RecordCommand(ctx context.Context, c *Command, rr *ReportReader, inputs []string, out string, opts Options) (*Summary, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	target, err := c.prepareRecording(ctx, rr, opts)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Outcomes: map[Outcome]int{}}
	// The header comes from the file, when there is one, or else from the
	// first input's report; so that input is run before the file is opened.
	var h Header
	var todo []pending
	var first *CommandRun
	var firstCov *report.Coverage
	if f, err := ReadFile(out); err == nil {
		h = f.Header
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	} else {
		// A new file: nothing is done yet, so the queue is known now.
		todo = queue(inputs, func(string) bool { return false }, opts, sum)
		if len(todo) == 0 {
			return sum, fmt.Errorf("no inputs to record")
		}
		if h, first, firstCov, err = firstHeader(ctx, c, rr, todo[0], opts.Subject); err != nil {
			return nil, err
		}
		defer first.Close()
	}
	h.Target = &Target{Command: target}
	w, err := OpenWriter(ctx, out, h, opts.Wait)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if first == nil {
		todo = queue(inputs, w.Done, opts, sum)
	}
	rc := &commandRecording{c: c, rr: rr, w: w, opts: opts, sum: sum,
		index: make(map[string]int, len(h.Functions)), unlisted: map[string]bool{}}
	for i, name := range h.Functions {
		rc.index[name] = i
	}
	start := time.Now()
	if err := rc.recordAll(ctx, todo, first, firstCov); err != nil {
		return sum, err
	}
	if len(rc.unlisted) > 0 {
		sum.Unlisted = len(rc.unlisted)
		opts.Warn(fmt.Errorf("%d functions ran that the first report did not list, and are left out (%s)", len(rc.unlisted), strings.Join(firstNames(rc.unlisted, 3), ", ")))
	}
	if sum.Recorded > 0 {
		sum.SubjectTime = rc.subject / time.Duration(sum.Recorded)
		sum.RecordTime = time.Since(start) / time.Duration(sum.Recorded)
	}
	return sum, sum.fileStats(out)
}

// prepareRecording sets c's limits and output from opts, has it drive
// rr's coverage tool, and returns the target the coverage file names.
func (c *Command) prepareRecording(ctx context.Context, rr *ReportReader, opts Options) (*CommandTarget, error) {
	c.Timeout, c.Output = opts.Timeout, opts.Output
	if c.Memory == 0 {
		// The session's limit (DefaultMemory unless said), as
		// RecordInputs gives it.
		c.Memory = commandMemory(opts.Memory)
	}
	if err := c.drive(ctx, rr.Format); err != nil {
		return nil, err
	}
	if rr.Dir == "" {
		rr.Dir = c.Dir
	}
	target := &CommandTarget{Argv: c.Argv, Dir: c.Dir, Coverage: rr.Format, Root: rr.Root, Reject: c.Reject}
	if c.Crash != nil {
		target.Crash = c.Crash.String()
	}
	return target, nil
}

// firstHeader runs the first input of a new coverage file and makes the
// file's header from the functions its report lists. The caller closes
// the run.
func firstHeader(ctx context.Context, c *Command, rr *ReportReader, in pending, subject string) (Header, *CommandRun, *report.Coverage, error) {
	first, cov, err := runAndRead(ctx, c, rr, in.data)
	if err != nil {
		return Header{}, nil, nil, fmt.Errorf("%s: %w", in.name, err)
	}
	h := NewHeader(subject, functionNames(cov))
	if len(h.Functions) == 0 {
		first.Close()
		return Header{}, nil, nil, fmt.Errorf("the %s report of %s lists no functions: is the program built or run for coverage?", rr.Format, in.name)
	}
	return h, first, cov, nil
}

// commandRecording is RecordCommand's state while it records.
type commandRecording struct {
	c        *Command
	rr       *ReportReader
	w        *Writer
	opts     Options
	sum      *Summary
	index    map[string]int  // the header's functions: name -> id
	unlisted map[string]bool // functions that ran and are not in the header
	subject  time.Duration   // the runs' time, summed
}

// recordAll runs the queued inputs and writes their records. The first
// may have run already (first, whose report is firstCov).
func (rc *commandRecording) recordAll(ctx context.Context, todo []pending, first *CommandRun, firstCov *report.Coverage) error {
	for i, in := range todo {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, cov := first, firstCov
		if i > 0 || first == nil {
			var err error
			if r, cov, err = runAndRead(ctx, rc.c, rc.rr, in.data); err != nil {
				if ctx.Err() != nil {
					return ctx.Err() // cut short: not recorded
				}
				return fmt.Errorf("%s: %w", in.name, err)
			}
		}
		r.Covered, r.Counts = covered(cov, rc.index, rc.unlisted)
		rc.subject += r.Duration
		rec := Record{Input: in.name, SHA256: in.sha, Covered: r.Covered, Counts: r.Counts, Outcome: r.Outcome,
			MS: float64(r.Duration.Microseconds()) / 1000, Error: r.Message, Stack: r.Stack}
		if r != first {
			r.Close()
		}
		if err := rc.w.Write(rec); err != nil {
			return err
		}
		rc.sum.Recorded++
		rc.sum.Outcomes[r.Outcome]++
		if rc.opts.Progress != nil {
			rc.opts.Progress("record", i+1, len(todo))
		}
	}
	return nil
}

// runAndRead runs one input and reads its report. A run that crashed or
// timed out may have left no report: it is recorded with no coverage. A
// run that ended normally and left none means the command line does not
// produce the report, which is an error.
func runAndRead(ctx context.Context, c *Command, rr *ReportReader, input []byte) (*CommandRun, *report.Coverage, error) {
	run, err := c.Run(ctx, input)
	if err != nil {
		return nil, nil, err
	}
	cov, err := rr.Read(run.Dir)
	if err != nil {
		if run.Outcome == Panic || run.Outcome == Timeout {
			return run, &report.Coverage{}, nil
		}
		run.Close()
		if c.hint != "" {
			return nil, nil, fmt.Errorf("%w: %s", err, c.hint)
		}
		return nil, nil, fmt.Errorf("%w; does the command write it to {dir} (ARBOR_RUN_DIR)?", err)
	}
	return run, cov, nil
}

// functionNames are the report's functions, sorted, each once.
func functionNames(cov *report.Coverage) []string {
	var names []string
	for _, f := range cov.Functions {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// covered maps a report onto the header's functions (index: name → id),
// sorted by id with their counts; functions that ran but are not in the
// header go to unlisted.
func covered(cov *report.Coverage, index map[string]int, unlisted map[string]bool) ([]int, []uint32) {
	var r Result
	for _, fn := range cov.Functions {
		if fn.Hits == 0 {
			continue
		}
		if id, ok := index[fn.Name]; ok {
			r.Covered = append(r.Covered, id)
			r.Counts = append(r.Counts, uint32(min(fn.Hits, math.MaxUint32)))
		} else {
			unlisted[fn.Name] = true
		}
	}
	sortCovered(&r)
	return r.Covered, r.Counts
}

// sortCovered sorts covered functions by id, keeping counts alongside.
func sortCovered(r *Result) {
	idx := make([]int, len(r.Covered))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return r.Covered[idx[a]] < r.Covered[idx[b]] })
	cov, counts := make([]int, len(idx)), make([]uint32, len(idx))
	for i, j := range idx {
		cov[i], counts[i] = r.Covered[j], r.Counts[j]
	}
	r.Covered, r.Counts = cov, counts
}

func firstNames(set map[string]bool, n int) []string {
	var names []string
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) > n {
		names = append(names[:n], "...")
	}
	return names
}
