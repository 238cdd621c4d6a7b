package main

import (
	"path/filepath"
	"testing"
)

// TestGenerateOutSummary: generate --out DIR says on stderr how many
// inputs went where, how many are distinct (url's shortest inputs are
// one input twice) and from which seed, in every mode, and nothing when the
// inputs go to stdout as data (issue 31, item 6).
func TestGenerateOutSummary(t *testing.T) {
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name   string
		args   []string
		stderr string // the whole of it, when --out - (want) is empty
	}{
		{"random", []string{"generate", "json", "-n", "7", "--seed", "3", "--out", out("r")}, "7 inputs in " + out("r") + " (7 distinct, seed 3)\n"},
		{"shortest", []string{"generate", "url", "--mode", "shortest", "-n", "2", "--out", out("s")}, "2 inputs in " + out("s") + " (1 distinct, seed 1)\n"},
		{"choices", []string{"generate", "csv", "-n", "4", "--seed", "9", "--choices", "--out", out("c")},
			"4 inputs in " + out("c") + " (4 distinct, seed 9); their choices in " + filepath.Join(out("c"), "choices.jsonl") + "\n"},
		{"stdout", []string{"generate", "json", "-n", "3", "--out", "-"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runArbor(t, "", tt.args...)
			if code != 0 || errOut != tt.stderr {
				t.Errorf("exit %d, stderr %q, want %q", code, errOut, tt.stderr)
			}
		})
	}
}
