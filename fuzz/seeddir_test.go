package fuzz

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSeedsFromDir: the inputs of a folder that parse give seeds, in
// the files' order; one that does not parse and a Go corpus file that
// holds no []byte are skipped, each with its reason naming its file; a
// folder that gives no seed is an error naming the first reasons.
func TestSeedsFromDir(t *testing.T) {
	g := jsonGraph(t)
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.json": `{"a": [1, 2]}`,
		"b.json": `[1, 2`,
		"c":      "go test fuzz v1\nstring(\"x\")\n",
		"d.json": `"d"`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := SeedsFromDir(t.Context(), dir, g, Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Seeds) != 2 || d.Inputs != 4 || d.Skipped != 2 || len(d.Reasons) != 2 ||
		!strings.Contains(d.Reasons[0], "c") || !strings.HasPrefix(d.Reasons[1], filepath.Join(dir, "b.json")+": ") {
		t.Errorf("%d seeds, %+v", len(d.Seeds), d)
	}
	want, _ := SeedsFromInputs(g, [][]byte{[]byte(`{"a": [1, 2]}`), []byte(`"d"`)}, Bounds{})
	if !slices.EqualFunc(d.Seeds, want, slices.Equal) {
		t.Errorf("seeds %v, want those of a.json and d.json: %v", d.Seeds, want)
	}

	os.Remove(filepath.Join(dir, "a.json"))
	os.Remove(filepath.Join(dir, "d.json"))
	if _, err := SeedsFromDir(t.Context(), dir, g, Bounds{}); err == nil || !strings.HasPrefix(err.Error(), "none of the 2 inputs in "+dir) {
		t.Errorf("no seeds: %v", err)
	}
	if _, err := SeedsFromDir(t.Context(), t.TempDir(), g, Bounds{}); err == nil || !strings.HasSuffix(err.Error(), "holds no input") {
		t.Errorf("empty folder: %v", err)
	}
}
