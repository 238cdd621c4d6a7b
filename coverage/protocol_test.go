//go:build linux

package coverage

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// recordHostile records the inputs of testdata/hostile (one file each,
// named by position) and returns their records in input order.
func recordHostile(t *testing.T, bin *Binary, inputs []string, opts Options) []Record {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i, in := range inputs {
		name := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(name, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	out := filepath.Join(t.TempDir(), "cov.jsonl")
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	if _, err := RecordInputs(context.Background(), bin, files, out, opts); err != nil {
		t.Fatalf("the recording stopped: %v", err)
	}
	f, err := ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]Record, len(inputs))
	seen := make([]bool, len(inputs))
	for _, r := range f.Records {
		i := slices.Index(files, r.Input)
		if i < 0 || seen[i] {
			t.Fatalf("record of %s: unknown or twice", r.Input)
		}
		seen[i] = true
		r.Error = strings.Join(append([]string{r.Error}, names(f, r.Covered)...), " ")
		recs[i] = r
	}
	for i, ok := range seen {
		if !ok {
			t.Errorf("%q was not recorded", inputs[i])
		}
	}
	return recs
}

// TestForgedReply (issue 29, item 3): a subject that writes bytes shaped
// like a reply to fd 4, where replies once went, or to every pipe it
// holds, cannot pass them for the reply to its input. On fd 4 they now
// reach nothing; written to the real reply pipe they lack the request's
// token, and the input is labelled "harness protocol" while the inputs
// after it (pipelined behind it) keep their own labels. Before, "forge4"
// and "forge" were recorded as panics and every later input in flight
// took the label of the one before it, or the recording stopped with
// "malformed coverage data".
func TestForgedReply(t *testing.T) {
	bin, _ := hostileBinary(t)
	inputs := []struct {
		input   string
		outcome Outcome
		message string // in the error, or a function covered
	}{
		{"ok 1", OK, "calm"},
		{"forge4 1", OK, "calm"},
		{"ok 2", OK, "calm"},
		{"bogus 1", Error, "unknown word"},
		{"forge 1", Error, "harness protocol"},
		{"ok 3", OK, "calm"},
		{"bogus 2", Error, "unknown word"},
		{"panic", Panic, "hostile: panic"},
		{"forge 2", Error, "harness protocol"},
		{"forge4 2", OK, "calm"},
		{"ok 4", OK, "calm"},
	}
	var words []string
	for _, in := range inputs {
		words = append(words, in.input)
	}
	for _, isolate := range []bool{false, true} {
		recs := recordHostile(t, bin, words, Options{Subject: "hostile", Isolate: isolate})
		for i, in := range inputs {
			r := recs[i]
			if r.Outcome != in.outcome || !strings.Contains(r.Error, in.message) {
				t.Errorf("isolate %v, %q: %s %q, want %s with %q", isolate, in.input, r.Outcome, r.Error, in.outcome, in.message)
			}
		}
	}
}
