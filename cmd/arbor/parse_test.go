package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseInputs: parse and kpaths take folders of inputs as record and
// train do, refuse a missing file by name before parsing anything, and
// parse an ambiguous grammar's long input within a budget that names
// the ambiguous rule (issues 29 and 31).
func TestParseInputs(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "inputs")
	os.MkdirAll(filepath.Join(folder, "sub"), 0o755)
	os.WriteFile(filepath.Join(folder, "a.txt"), []byte("x+1"), 0o644)
	os.WriteFile(filepath.Join(folder, "sub", "b.txt"), []byte("(y)*2"), 0o644)
	os.WriteFile(filepath.Join(folder, "manifest.jsonl"), []byte("{}\n"), 0o644) // not an input
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("x+"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	missing := filepath.Join(dir, "missing.txt")
	amb := filepath.Join(dir, "amb.grammar")
	os.WriteFile(amb, []byte(`E := E "+" E | "1" ;`), 0o644)
	long := filepath.Join(dir, "long.txt")
	os.WriteFile(long, []byte("1"+strings.Repeat("+1", 3000)), 0o644)
	short := filepath.Join(dir, "short.txt")
	os.WriteFile(short, []byte("1"+strings.Repeat("+1", 40)), 0o644)

	a, b := filepath.Join(folder, "a.txt"), filepath.Join(folder, "sub", "b.txt")
	runCases(t, []cliCase{
		{"folder", "", []string{"parse", "expr", folder}, 0, []string{"== " + a + " (tree 1 of 1)", "== " + b + " (tree 1 of 1)"}, nil},
		{"folder and stdin", "z", []string{"parse", "expr", folder, "-", "--json"}, 0, []string{`{"file":"` + a, `{"file":"` + b, `{"file":"-"`}, nil},
		{"folder with a bad input", "", []string{"parse", "expr", folder, bad}, 1, []string{"== " + b}, []string{bad + ":1:3", "1 of 3 inputs did not parse"}},
		{"missing file", "", []string{"parse", "expr", a, missing}, 1, nil, []string{"read input: stat " + missing + ": no such file or directory"}},
		{"empty folder", "", []string{"parse", "expr", empty}, 1, nil, []string{empty + ": the folder holds no inputs"}},
		{"kpaths of a folder", "", []string{"kpaths", "expr", folder, "--k", "1"}, 0, []string{"== " + a + ":", "== " + b + ":"}, nil},
		{"kpaths of a missing file", "", []string{"kpaths", "expr", missing}, 1, nil, []string{"read input: stat " + missing}},
		{"ambiguous, over the budget", "", []string{"parse", amb, short, long}, 1, []string{"== " + short},
			[]string{long + ": parse budget of 6,001,000 items exceeded", `rule E is ambiguous ("1+1+1" at byte 0 has several trees)`, "1 of 2 inputs did not parse"}},
		{"ambiguous, a small budget", "", []string{"kpaths", amb, short, "--parse-budget", "1000"}, 1, nil, []string{"parse budget of 1,000 items exceeded", "rule E is ambiguous"}},
		{"ambiguous, no budget", "", []string{"parse", amb, short, "--parse-budget", "-1", "--trees", "3"}, 0, []string{"(tree 3 of 3)"}, nil},
	})
}

// TestParseConstraints (issue 26): parse reports the constraint
// instances an input breaks, in text and JSON, keeps the input and its
// tree, and does not fail for them; --constraints off reports none; a
// malformed constraint is an error at its place in the grammar file.
func TestParseConstraints(t *testing.T) {
	dir := t.TempDir()
	gram := filepath.Join(dir, "ranges.grammar")
	os.WriteFile(gram, []byte("Ranges := Range (\" \" Range)* ;\nRange := Start \"-\" End ;\nStart := Num ;\nEnd := Num ;\nNum := /[0-9]+/ ;\nwhere Range: Start.num <= End.num ;\n"), 0o644)
	bad := filepath.Join(dir, "bad.grammar")
	os.WriteFile(bad, []byte("Ranges := Range ;\nRange := Start \"-\" End ;\nStart := /[0-9]/ ;\nEnd := /[0-9]/ ;\nwhere Range: Start.num <= Stop.num ;\n"), 0o644)
	good, broken := filepath.Join(dir, "good.txt"), filepath.Join(dir, "broken.txt")
	os.WriteFile(good, []byte("1-2 3-3"), 0o644)
	os.WriteFile(broken, []byte("1-2 9-3 8-7"), 0o644)
	clause := "where Range: Start.num <= End.num ;"
	runCases(t, []cliCase{
		{"text", "", []string{"parse", gram, good, broken}, 0,
			[]string{"breaks " + gram + ":6:1: " + clause + ` at offset 4 ("9-3")`, `at offset 8 ("8-7")`},
			[]string{"1 of 2 inputs break a constraint"}},
		{"json", "", []string{"parse", gram, broken, "--json"}, 0,
			[]string{`"violations":[[{"clause":"` + clause + `","pos":"` + gram + `:6:1","at":4,"text":"9-3"},{"clause"`}, nil},
		{"json, none broken", "", []string{"parse", gram, good, "--json"}, 0, []string{`"violations":[[]]}`}, nil},
		{"off", "", []string{"parse", gram, broken, "--json", "--constraints", "off"}, 0, []string{`"trees":[{`}, nil},
		{"bad flag", "", []string{"parse", gram, broken, "--constraints", "maybe"}, 2, nil, []string{"--constraints must be on or off"}},
		{"malformed", "", []string{"parse", bad, good}, 1, nil, []string{bad + ":5:27: Stop is neither a rule of the grammar nor a variable"}},
	})
}

// TestGrammarCheckSamples (issue 26): grammar check parses sample
// inputs, reports those that do not parse (exit 1) and the constraint
// instances the others break (exit 0), in text and JSON.
func TestGrammarCheckSamples(t *testing.T) {
	dir := t.TempDir()
	gram := filepath.Join(dir, "ranges.grammar")
	os.WriteFile(gram, []byte("Ranges := Range (\" \" Range)* ;\nRange := Start \"-\" End ;\nStart := Num ;\nEnd := Num ;\nNum := /[0-9]+/ ;\nwhere Range: Start.num <= End.num ;\n"), 0o644)
	good, broken, bad := filepath.Join(dir, "good.txt"), filepath.Join(dir, "broken.txt"), filepath.Join(dir, "bad.txt")
	os.WriteFile(good, []byte("1-2 3-3"), 0o644)
	os.WriteFile(broken, []byte("9-3"), 0o644)
	os.WriteFile(bad, []byte("9-"), 0o644)
	runCases(t, []cliCase{
		{"text", "", []string{"grammar", "check", gram, good, broken}, 0,
			[]string{"constraints", "sample " + broken + " breaks " + gram + ":6:1:", "samples: 2, 0 do not parse, 1 break a constraint"}, nil},
		{"a sample that does not parse", "", []string{"grammar", "check", gram, good, bad}, 1,
			[]string{"sample " + bad + ":1:3", "samples: 2, 1 do not parse, 0 break a constraint"}, nil},
		{"json", "", []string{"grammar", "check", gram, broken, "--json"}, 0,
			[]string{`"constraints": 1`, `"file": "` + broken + `"`, `"at": 0`}, nil},
		{"off", "", []string{"grammar", "check", gram, broken, "--constraints", "off"}, 0,
			[]string{"samples: 1, 0 do not parse, 0 break a constraint"}, nil},
	})
}
