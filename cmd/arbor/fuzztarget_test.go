package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFuzzTarget: fuzz-target refuses what it cannot write, and writes a
// fuzz package with its seeds from a corpus folder (the package's own
// tests build and fuzz what it writes).
func TestFuzzTarget(t *testing.T) {
	mod := filepath.Join(t.TempDir(), "m")
	corpusDir := filepath.Join(t.TempDir(), "corpus")
	for path, text := range map[string]string{
		filepath.Join(mod, "go.mod"):         "module example.com/m\n\ngo 1.24\n",
		filepath.Join(corpusDir, "a.json"):   `{"a":[1,2]}`,
		filepath.Join(corpusDir, "b.json"):   `[null]`,
		filepath.Join(corpusDir, "bad.json"): `{"a":`,
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(mod, "fuzz", "decode")
	args := func(extra ...string) []string {
		return append([]string{"fuzz-target", "--go", "example.com/m/decoder.Decode", "--grammar", "json", "--fuzz-target", "FuzzDecode", "--out", out}, extra...)
	}
	runCases(t, []cliCase{
		{name: "no function", args: []string{"fuzz-target", "--grammar", "json", "--fuzz-target", "FuzzDecode", "--out", out}, code: exitUsage,
			stderr: []string{"--go names the function to fuzz"}},
		{name: "no grammar", args: []string{"fuzz-target", "--go", "example.com/m/decoder.Decode", "--fuzz-target", "FuzzDecode", "--out", out}, code: exitUsage,
			stderr: []string{"--grammar names the grammar"}},
		{name: "bad target", args: append(args(), "--fuzz-target", "Fuzzdecode"), code: exitUsage,
			stderr: []string{"not a fuzz target's name"}},
		{name: "unknown grammar", args: append(args(), "--grammar", "no-such-grammar"), code: 1,
			stderr: []string{"no-such-grammar"}},
		{name: "writes", args: args("--inputs", corpusDir),
			stdout: []string{"fuzz target FuzzDecode in package example.com/m/fuzz/decode", "wrote fuzz/decode/fuzz_test.go", "wrote .clusterfuzzlite/build.sh",
				"seeds: 2 in fuzz/decode/testdata/fuzz/FuzzDecode; 1 left out:", "bad.json", "to do: the module does not require github.com/arbor-fuzz/arbor"}},
		{name: "clauses", args: append(args("--out", filepath.Join(mod, "fuzz", "cron")), "--grammar", "cron", "--fuzz-target", "FuzzCron"),
			stdout: []string{"the target's inputs keep the grammar's 6 where clauses"}},
		{name: "clauses off", args: append(args("--out", filepath.Join(mod, "fuzz", "cron2")), "--grammar", "cron", "--fuzz-target", "FuzzCron", "--constraints", "off"),
			stdout: []string{"note: the target's inputs follow the grammar's rules, not its 6 where clauses (--constraints off)"}},
		{name: "bad constraints", args: append(args(), "--constraints", "maybe"), code: exitUsage, stderr: []string{"--constraints must be on or off"}},
		{name: "again", args: args("--inputs", corpusDir, "--json"),
			stdout: []string{`"written":[]`, `"seeds":2`, `"package":"example.com/m/fuzz/decode"`}},
	})
}
