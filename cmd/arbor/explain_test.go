package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExplainLegend: explain's text says how to read the tree and the
// constraints, and a k-path test leads with its symbols, the readable
// part, with the grammar text after "in:"; --json and --dot carry no
// legend (issue 31, item 3).
func TestExplainLegend(t *testing.T) {
	model := trainTinyModel(t, t.TempDir())
	explain := []string{"explain", "--model", model, "--function", "f.array"}
	out, errOut, code := runArbor(t, "", explain...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"How to read it:", "parent→child", `after "in:"`, "gini 0 is all one class",
		"covering constraints (", "with every ∃ feature of one of them and none of its ∄ ones"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "   [") {
		t.Errorf("a k-path's symbols still trail in brackets:\n%s", out)
	}
	// Every test of a k-path is "has|not SYMBOLS   in: TEXT", or the
	// symbols alone when they are the text.
	test := regexp.MustCompile(`^\s+(has|not) (\S+)(   in: .+?)?  (→|\[)`)
	tests := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "has ") || strings.HasPrefix(strings.TrimSpace(line), "not ") {
			tests++
			if !test.MatchString(line) {
				t.Errorf("test line %q does not lead with the symbols", line)
			}
		}
	}
	if tests == 0 {
		t.Errorf("no tests in the tree:\n%s", out)
	}
	ascii, _, _ := runArbor(t, "", append(explain, "--ascii")...)
	if !strings.Contains(ascii, "with every has feature of one of them and none of its not ones") {
		t.Errorf("--ascii legend:\n%s", ascii)
	}
	for _, flag := range []string{"--json", "--dot"} {
		out, _, code := runArbor(t, "", append(explain, flag)...)
		if code != 0 || strings.Contains(out, "How to read it") {
			t.Errorf("%s: exit %d, or a legend in it:\n%s", flag, code, out)
		}
		if flag == "--json" {
			var v struct {
				Function    string
				Constraints []struct{ Literals []string }
			}
			if err := json.Unmarshal([]byte(out), &v); err != nil || v.Function != "f.array" {
				t.Errorf("--json: %v: %s", err, out)
			}
		}
	}
}

// TestExplainAccuracyLabels: explain says which accuracy is of which
// tree: training accuracy of the kept tree on all training inputs,
// cross-validated accuracy of trees refitted without one fold each
// (issue 31, item 8: the second can be the higher).
func TestExplainAccuracyLabels(t *testing.T) {
	dir := t.TempDir()
	trainTinyModel(t, dir)
	model := filepath.Join(dir, "cv.model.gz")
	if _, errOut, code := runArbor(t, "", "train", "--grammar", "json", "--inputs", filepath.Join(dir, "tiny"),
		"--coverage", filepath.Join(dir, "tiny.cov.jsonl"), "--out", model, "--cv", "2"); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	runCases(t, []cliCase{
		{name: "one function", args: []string{"explain", "--model", model, "--function", "f.array"},
			stdout: []string{"training accuracy 1.000: this tree, on all 10 training inputs\n",
				"cross-validated accuracy ", ": 2 trees refitted, each on the inputs of the other folds, scored on one fold it did not see"}},
		{name: "listing", args: []string{"explain", "--model", model},
			stdout: []string{"training accuracy (this tree)", "cv accuracy / majority (refits)",
				"training accuracy: the tree the model keeps, on all its training inputs; cv accuracy: 2 other trees,",
				"They are different trees, so either can be the higher."}},
	})
}
