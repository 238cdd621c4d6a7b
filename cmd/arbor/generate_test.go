package main

import (
	"fmt"
	"os"
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

// TestGenerateUnrepaired: inputs that break a clause the search cannot
// mend are still written, and generate names on stderr the clauses they
// break, with how many inputs break each; a clause the search mends is
// not named.
func TestGenerateUnrepaired(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "g.grammar")
	// Doc has at most four items, so the second clause is never met;
	// the first is mended in every input; the third, a comparison the
	// clause's first line leaves open, is cut at its line's end.
	grammarText := `Doc := Item (" " Item){,3} ;
Item := "a" | "b" ;
where all(Item, {.text == "a"}) ;
where Doc: len(Item) > 9 ;
where Doc: len(Item) >
  20 ;
`
	if err := os.WriteFile(src, []byte(grammarText), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, errOut, code := runArbor(t, "", "generate", src, "-n", "4", "--seed", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	files, err := os.ReadDir(out)
	if err != nil || len(files) != 4 {
		t.Fatalf("%d files written (%v), want 4", len(files), err)
	}
	distinct := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(out, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		distinct[string(b)] = true
	}
	want := fmt.Sprintf("4 inputs in %s (%d distinct, seed 2)\n", out, len(distinct)) +
		"4 of 4 inputs break a constraint the search could not repair (arbor parse --constraints on shows where); the clauses they break:\n" +
		"  " + src + ":4:1 (4 inputs): where Doc: len(Item) > 9 ;\n" +
		"  " + src + ":5:1 (4 inputs): where Doc: len(Item) >...\n"
	if errOut != want {
		t.Errorf("stderr\n%s\nwant\n%s", errOut, want)
	}
}
