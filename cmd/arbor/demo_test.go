package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDemoFolder: demo's default folder is named after the subject, a
// folder that holds files is refused unless --force, which removes only
// what a demo writes, and the closing list is of the folder as it is
// (issue 31, item 1).
func TestDemoFolder(t *testing.T) {
	for _, tt := range []struct{ subject, want string }{
		{"json", "arbor-demo-json"},
		{"example.com/semver.Run", "arbor-demo-semver.Run"},
		{"a b/c:d*", "arbor-demo-c-d-"},
		{"x/", "arbor-demo-subject"},
	} {
		if got := demoFolder(tt.subject); got != tt.want {
			t.Errorf("demoFolder(%q) = %q, want %q", tt.subject, got, tt.want)
		}
	}

	dir := filepath.Join(t.TempDir(), "demo")
	if err := prepareDemoFolder(dir, false); err != nil {
		t.Fatalf("a new folder: %v", err)
	}
	for _, f := range []string{"train/00001", "train/00002", "model.json.gz", "targeted/00001.json", "targeted/manifest.jsonl",
		"comparison/base/00001", "comparison/targeted/000001", "comparison/targeted/000002", "comparison/base.cov.jsonl", "notes.txt"} {
		writeInput(t, dir, f, []byte("x"))
	}
	var b strings.Builder
	if err := listDemoFolder(&b, dir); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`^  train/ +2 grammar-random training inputs`,
		`^  model.json.gz +the model`,
		`^  targeted/ +1 inputs of step 4$`,
		`^    manifest.jsonl +the constraint`,
		`^  comparison/ +step 6 \(E4\)$`,
		`^    base/ +1 grammar-random inputs`,
		`^    base.cov.jsonl +the functions each ran`,
		`^    targeted/ +2 distinct inputs`,
		`^  notes.txt +not written by this demo$`,
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d %q, want %s", i+1, lines[i], re)
		}
	}

	runCases(t, []cliCase{
		{name: "no training inputs", args: []string{"demo", "--out", filepath.Join(dir, "x"), "--train", "0"}, code: exitUsage, stderr: []string{"--train and --test must be at least 1"}},
	})
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Errorf("a refused demo made its folder")
	}

	err := prepareDemoFolder(dir, false)
	if err == nil || !strings.Contains(err.Error(), "already holds 5 entries") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("a folder with files: %v", err)
	}
	if err := prepareDemoFolder(dir, true); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "notes.txt" {
		t.Errorf("--force left %v, want only the user's notes.txt", entries)
	}
}

// TestDemoNumbers: every step's numbers say where they come from
// (duplicates removed, inputs training had seen, what step 5 and step
// 6's verified share measure), the folder is named at the start, and the
// closing list names every entry in it (issue 31, items 1 and 2).
func TestDemoNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline")
	}
	dir := filepath.Join(t.TempDir(), "demo")
	args := []string{"demo", "--out", dir, "--train", "300", "--test", "150"}
	out, errOut, code := runArbor(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, re := range []string{
		`^arbor demo on .*: everything goes to the folder ` + regexp.QuoteMeta(dir) + `\n`,
		`300 training inputs generated; \d+ duplicates? removed: \d+ distinct inputs recorded`,
		`\d+ functions ran at least once: \d+ on every input, \d+ on some but not all`,
		`150 test inputs generated; \d+ duplicates? removed, and \d+ that training had seen: \d+ new inputs`,
		`How to read it:`,
		`\d+ of \d+ targeted inputs ran .*: what the tree alone gets, with no feedback`,
		`all \d+ verified for \d+ functions, some for \d+, none for \d+`,
		`verified \(median\) is the loop's share`,
		`Everything is in ` + regexp.QuoteMeta(dir) + `:\n`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	_, list, _ := strings.Cut(out, "Everything is in "+dir+":\n")
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		names = append(names, name)
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + ` `).MatchString(list) {
			t.Errorf("the closing list lacks %s:\n%s", name, list)
		}
	}
	if strings.Contains(list, "not written by this demo") {
		t.Errorf("the demo's own files listed as another's:\n%s", list)
	}
	for _, want := range []string{"comparison/", "model.json.gz", "targeted/", "test/", "test.cov.jsonl", "train/", "train.cov.jsonl"} {
		if !slices.Contains(names, want) {
			t.Errorf("the folder lacks %s: %v", want, names)
		}
	}
	// The inputs of step 4 are alone in targeted/: ten, the manifest and
	// step 5's coverage.
	if files, _ := os.ReadDir(filepath.Join(dir, "targeted")); len(files) > 12 {
		t.Errorf("targeted/ holds %d files: step 6's inputs are mixed in", len(files))
	}
	if _, errOut, code := runArbor(t, "", args...); code != exitUsage || !strings.Contains(errOut, "already holds") {
		t.Errorf("a second run into the folder: exit %d, %s", code, errOut)
	}
}
