package main

import "testing"

// TestTrainMissingFlags: train names exactly the required flags that are
// missing (issue 31, item 5).
func TestTrainMissingFlags(t *testing.T) {
	runCases(t, []cliCase{
		{name: "none", args: []string{"train"}, code: exitUsage, stderr: []string{"--coverage, --grammar and --inputs are required"}},
		{name: "coverage", args: []string{"train", "--grammar", "json", "--inputs", "in"}, code: exitUsage, stderr: []string{"arbor: --coverage is required"}},
		{name: "grammar and inputs", args: []string{"train", "--coverage", "c.jsonl"}, code: exitUsage, stderr: []string{"--grammar and --inputs are required"}},
	})
}
