package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestUnknownCommands (issue 15, item 3): a command or subcommand that
// does not exist is bad usage (exit 2) with a suggestion, at every level;
// before, "arbor eval E7" printed eval's help and exited 0, and an
// unknown command of arbor exited 1.
func TestUnknownCommands(t *testing.T) {
	runCases(t, []cliCase{
		{name: "root", args: []string{"frobnicate"}, code: exitUsage, stderr: []string{`unknown command "frobnicate" for "arbor"`, "there are: completion, coverage"}},
		{name: "root typo", args: []string{"trian"}, code: exitUsage, stderr: []string{"did you mean train?"}},
		{name: "eval E99", args: []string{"eval", "E99"}, code: exitUsage, stderr: []string{`unknown command "E99" for "arbor eval"`}},
		{name: "eval case", args: []string{"eval", "e4"}, code: exitUsage, stderr: []string{"did you mean E4?"}},
		{name: "grammar", args: []string{"grammar", "frob"}, code: exitUsage, stderr: []string{`unknown command "frob" for "arbor grammar"`}},
		{name: "record merge", args: []string{"record", "merge"}, code: exitUsage},
		{name: "group alone", args: []string{"eval"}, code: 0, stdout: []string{"Available Commands:"}},
		{name: "arbor alone", args: nil, code: 0, stdout: []string{"Available Commands:"}},
	})
}

func TestVersion(t *testing.T) {
	runCases(t, []cliCase{
		{name: "flag", args: []string{"--version"}, code: 0, stdout: []string{"arbor ", "go1."}},
		{name: "command", args: []string{"version"}, code: 0, stdout: []string{"arbor ", "go1."}},
	})
	out, errOut, code := runArbor(t, "", "version", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var b buildInfo
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("version --json: %v\n%s", err, out)
	}
	if b.Module != "github.com/arbor-fuzz/arbor" || b.Version == "" || !strings.HasPrefix(b.Go, "go") || b.Libraries["github.com/spf13/cobra"] == "" {
		t.Errorf("version --json: %+v", b)
	}
}

// TestCompletion: the shell completion names bundled grammars for a
// GRAMMAR argument and --grammar, bundled subjects for --subject, and the
// model's functions for --function once --model is given.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	model := trainTinyModel(t, dir) // functions f.array and f.any
	tests := []struct {
		name string
		args []string
		want string
		not  string // no completion starts so
	}{
		{"grammar argument", []string{"parse", "js"}, "json\t", "url"},
		{"grammar flag", []string{"train", "--grammar", "ur"}, "url\t", "json"},
		{"subject flag", []string{"record", "--subject", "gj"}, "gjson\t", "json"},
		{"function without model", []string{"explain", "--function", ""}, "give --model first", ""},
		{"function", []string{"explain", "--model", model, "--function", "f.ar"}, "f.array", "f.any"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runArbor(t, "", append([]string{"__complete"}, tt.args...)...)
			if code != 0 || !strings.Contains(out, tt.want) || (tt.not != "" && strings.Contains("\n"+out, "\n"+tt.not)) {
				t.Errorf("exit %d; completions %q, want %q and not %q\n%s", code, out, tt.want, tt.not, errOut)
			}
		})
	}
}

// TestRenamedFlags (issue 15, item 3): one flag name, one meaning. The
// depth of each decision tree is --tree-depth (--max-depth is the depth
// of generated inputs), and k-paths for k = 1..K are --max-k wherever
// they are features; the old names still work, with a warning.
func TestRenamedFlags(t *testing.T) {
	out := t.TempDir()
	runCases(t, []cliCase{
		{name: "train --max-depth", args: []string{"train", "--max-depth", "3", "--grammar", "json", "--inputs", out, "--coverage", "none.jsonl", "--out", out + "/m.gz"},
			code: exitFailure, stderr: []string{"--max-depth is now --tree-depth"}},
		{name: "train --tree-depth 0", args: []string{"train", "--tree-depth", "0", "--grammar", "json", "--inputs", out, "--coverage", "none.jsonl", "--out", out + "/m.gz"},
			code: exitUsage, stderr: []string{"--tree-depth"}},
		{name: "eval --k", args: []string{"eval", "E3", "--subject", "nosuch", "--k", "2"},
			code: exitFailure, stderr: []string{"--k is now --max-k"}},
	})
}

// TestTrainLeftOut: train says which inputs it left out in words, not as
// a Go map (it printed "left out: map[does not parse:2]").
func TestTrainLeftOut(t *testing.T) {
	_, out := trainTiny(t, t.TempDir(), []string{`[1]`, `{"a": 1}`, `[[]]`, `null`, `{`, `[}`, `{"b": [2]}`, `"s"`, `[]`, `7`})
	if want := "left out: 2 inputs: does not parse\n"; !strings.Contains(out, want) || strings.Contains(out, "map[") {
		t.Errorf("train printed\n%s\nwant %q", out, want)
	}
}

// TestJSONResults (issue 15, item 3): commands that print a result print
// it as JSON with --json, in the fields docs/json.md lists, and nothing
// else on stdout.
func TestJSONResults(t *testing.T) {
	dir := t.TempDir()
	model, _ := trainTiny(t, dir, []string{`[1]`, `{"a": 1}`, `[[]]`, `null`, `{`, `{"b": [2]}`, `"s"`, `[]`, `7`, `[{}]`})
	decode := func(t *testing.T, args ...string) map[string]any {
		t.Helper()
		out, errOut, code := runArbor(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: not one JSON object: %v\n%s", args, err, out)
		}
		return v
	}
	t.Run("train", func(t *testing.T) {
		v := decode(t, "train", "--grammar", "json", "--inputs", dir+"/tiny", "--coverage", dir+"/tiny.cov.jsonl", "--out", dir+"/again.gz", "--cv", "3", "--json")
		if v["inputs"] != 9.0 || v["functions_trainable"] != 1.0 || v["functions_always_covered"] != 1.0 || v["cv_folds"] != 3.0 {
			t.Errorf("train --json: %v", v)
		}
		if lo, _ := v["left_out"].(map[string]any); lo["does not parse"] != 1.0 {
			t.Errorf("left_out: %v", v["left_out"])
		}
	})
	t.Run("grammar check", func(t *testing.T) {
		v := decode(t, "grammar", "check", "expr", "--json")
		warnings, _ := v["warnings"].([]any)
		nodes, _ := v["nodes"].(map[string]any)
		if v["ok"] != true || v["start"] != "Expr" || len(warnings) != 2 || nodes["all"] != 54.0 {
			t.Errorf("grammar check --json: %v", v)
		}
		bad := writeInput(t, dir, "bad.grammar", []byte("A := B ;\n"))
		out, _, code := runArbor(t, "", "grammar", "check", bad, "--json")
		var b grammarCheck
		if err := json.Unmarshal([]byte(out), &b); err != nil || code != exitFailure || b.OK || len(b.Errors) != 1 || b.Errors[0].Line != 1 || b.Errors[0].Col != 6 {
			t.Errorf("a bad grammar: exit %d, %+v (%v)", code, b, err)
		}
	})
	t.Run("subjects", func(t *testing.T) {
		v := decode(t, "subjects", "--json")
		subjects, _ := v["subjects"].([]any)
		grammars, _ := v["grammars"].([]any)
		if len(subjects) < 19 || len(grammars) < 17 {
			t.Errorf("subjects --json: %d subjects, %d grammars", len(subjects), len(grammars))
		}
	})
	t.Run("explain", func(t *testing.T) {
		v := decode(t, "explain", "--model", model, "--json")
		fns, _ := v["functions"].([]any)
		if v["grammar"] != "json" || len(fns) != 1 {
			t.Fatalf("explain --json: %v", v)
		}
		if f := fns[0].(map[string]any); f["name"] != "f.array" || f["positives"] != 5.0 || f["trusted"] != true {
			t.Errorf("function: %v", f)
		}
	})
	if testing.Short() {
		return
	}
	t.Run("record", func(t *testing.T) {
		corpus := jsonCorpus(t, dir, 20, 4)
		v := decode(t, "record", "--subject", "json", "--inputs", corpus, "--out", dir+"/cov.jsonl", "--json")
		outcomes, _ := v["outcomes"].(map[string]any)
		recorded, _ := v["recorded"].(float64)
		if recorded < 15 || v["inputs_in_file"] != recorded || len(outcomes) != 4 || v["functions"].(float64) < 20 {
			t.Errorf("record --json: %v", v)
		}
	})
	t.Run("demo", func(t *testing.T) {
		v := decode(t, "demo", "--out", dir+"/demo", "--train", "200", "--test", "50", "--json")
		pred, _ := v["prediction"].(map[string]any)
		cmp, _ := v["comparison"].(map[string]any)
		if v["out"] != dir+"/demo" || v["function"] == "" || pred["accuracy"] == nil || cmp["absolute"] == nil {
			t.Errorf("demo --json: %v", v)
		}
	})
}

// TestOneMeaningPerFlag: a flag name means one thing in every command
// (the flags whose names were taken by two meanings are renamed, the old
// names kept hidden). Each listed name must have one usage text
// everywhere, so a new command cannot quietly give it a second meaning.
func TestOneMeaningPerFlag(t *testing.T) {
	root := newRoot(strings.NewReader(""))
	usage := map[string]map[string]string{} // flag → usage → a command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			if usage[f.Name] == nil {
				usage[f.Name] = map[string]string{}
			}
			usage[f.Name][f.Usage] = c.CommandPath()
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for _, name := range []string{"tree-depth", "trees", "timeout", "solve-timeout", "memory", "subject", "go", "dir", "coverpkg", "features", "max-gini", "max-nodes", "min-samples-leaf"} {
		if len(usage[name]) != 1 {
			t.Errorf("--%s has %d meanings: %v", name, len(usage[name]), usage[name])
		}
	}
	// One type for --seed everywhere, so scripts pass any seed to any command.
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		if f := c.LocalFlags().Lookup("seed"); f != nil && f.Value.Type() != "uint64" {
			t.Errorf("%s --seed is %s, not uint64", c.CommandPath(), f.Value.Type())
		}
		for _, s := range c.Commands() {
			visit(s)
		}
	}
	visit(root)
	if u := usage["all"]; len(u) != 1 {
		t.Errorf("--all has %d meanings: %v", len(u), u)
	}
}

// TestInputNames: generate, target and rlcheck name the inputs they write
// alike (rlcheck wrote 000001 without an extension).
func TestInputNames(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"generate", "json", "-n", "3", "--out", dir + "/generate"},
		{"rlcheck", "--grammar", "json", "--oracle-cmd", "true", "--trials", "20", "--out", dir + "/rlcheck"},
	} {
		if _, errOut, code := runArbor(t, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, errOut)
		}
		entries, err := os.ReadDir(dir + "/" + args[0])
		if err != nil || len(entries) == 0 {
			t.Fatalf("%s wrote nothing: %v", args[0], err)
		}
		if name := entries[0].Name(); name != "00001.json" {
			t.Errorf("%s names its first input %s, want 00001.json", args[0], name)
		}
	}
	if got := corpus.Name(99999, 123456, ".xml"); got != "100000.xml" {
		t.Errorf("input 100,000 of 123,456: %s", got)
	}
}
