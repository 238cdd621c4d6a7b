package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// maxSuiteFile bounds the suite.json ReadSuite reads: a whole suite's is
// a few megabytes.
const maxSuiteFile = 256 << 20

// ReadSuite reads a suite.json that Suite wrote (one shard's, or a whole
// suite's). The file is data from elsewhere, perhaps another machine: a
// file that is not a suite's result is an error, never a panic.
func ReadSuite(path string) (*SuiteResult, error) {
	return readResult(path, maxSuiteFile, "a suite's result", DecodeSuite)
}

// readResult reads a result file of at most max bytes and decodes it.
func readResult[R any](path string, max int, what string, decode func([]byte) (R, error)) (R, error) {
	var zero R
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return zero, err
	}
	if len(b) > max {
		return zero, fmt.Errorf("%s: larger than %d MB, not %s", path, max>>20, what)
	}
	r, err := decode(b)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// shardOf checks a shard's number i of n (0 of 0 meaning the whole, 1/1)
// and returns them with the shard's label: "i/n", or "" for the whole.
func shardOf(i, n int) (int, int, string, error) {
	if n == 0 {
		i, n = 1, 1
	}
	if i < 1 || i > n {
		return 0, 0, "", fmt.Errorf("shard %d/%d: want 1 <= i <= n", i, n)
	}
	if n == 1 {
		return i, n, "", nil
	}
	return i, n, fmt.Sprintf("%d/%d", i, n), nil
}

// DecodeSuite decodes a suite.json and checks that it is whole: a list of
// subjects, and rows only of subjects in it, each once.
func DecodeSuite(b []byte) (*SuiteResult, error) {
	var r SuiteResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("not a suite's result: %w", err)
	}
	if len(r.All) == 0 {
		return nil, errors.New("not a suite's result: no list of subjects (all_subjects)")
	}
	if dup := duplicate(r.All); dup != "" {
		return nil, fmt.Errorf("subject %s is listed twice", dup)
	}
	seen := map[string]bool{}
	for _, row := range r.Rows {
		switch {
		case !slices.Contains(r.All, row.Subject):
			return nil, fmt.Errorf("a row of subject %q, which is not in the suite's list", row.Subject)
		case seen[row.Subject]:
			return nil, fmt.Errorf("two rows of subject %s", row.Subject)
		}
		seen[row.Subject] = true
	}
	return &r, nil
}

// MergeSuite joins the results of a suite's shards (or of any runs of
// the same suite: the same subjects, budgets, seed and constraints
// setting) into one result with a row per subject, in the suite's order.
// A subject with rows in two results is an error; missing lists the
// subjects no result has a row for (a shard not run, or stopped early),
// and the merged result leaves them out.
func MergeSuite(results []*SuiteResult) (merged *SuiteResult, missing []string, err error) {
	if len(results) == 0 {
		return nil, nil, errors.New("no results to merge")
	}
	first := results[0]
	rows := map[string]SuiteRow{}
	for i, r := range results {
		switch {
		case r.Budgets != first.Budgets:
			return nil, nil, fmt.Errorf("result %d has budgets %+v, result 1 %+v", i+1, r.Budgets, first.Budgets)
		case r.Seed != first.Seed:
			return nil, nil, fmt.Errorf("result %d has seed %d, result 1 %d", i+1, r.Seed, first.Seed)
		case r.NoConstraints != first.NoConstraints:
			return nil, nil, fmt.Errorf("result %d was run with constraints %s, result 1 %s", i+1, onOff(!r.NoConstraints), onOff(!first.NoConstraints))
		case !slices.Equal(r.All, first.All):
			return nil, nil, fmt.Errorf("result %d is of another list of subjects (%v, result 1 %v)", i+1, r.All, first.All)
		}
		for _, row := range r.Rows {
			if _, dup := rows[row.Subject]; dup {
				return nil, nil, fmt.Errorf("subject %s has a row in two results (the second is result %d)", row.Subject, i+1)
			}
			rows[row.Subject] = row
		}
	}
	merged = &SuiteResult{Budgets: first.Budgets, Seed: first.Seed, NoConstraints: first.NoConstraints, All: first.All, Rows: []SuiteRow{}}
	for _, name := range first.All {
		if row, ok := rows[name]; ok {
			merged.Rows = append(merged.Rows, row)
		} else {
			missing = append(missing, name)
		}
	}
	return merged, missing, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// duplicate returns a name that is in names twice, or "".
func duplicate(names []string) string {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}
