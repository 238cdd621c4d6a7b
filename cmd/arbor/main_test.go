package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runArbor(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestGrammarStatsJSON(t *testing.T) {
	out, errOut, code := runArbor(t, "", "grammar", "stats", "expr", "--max-k", "5", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Nodes, Symbols int
		KPaths         map[string]int64
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := map[string]int64{"1": 39, "2": 125, "3": 523, "4": 2331, "5": 10245}
	if got.Nodes != 54 || got.Symbols != 39 || len(got.KPaths) != 5 {
		t.Fatalf("stats %+v", got)
	}
	for k, v := range want {
		if got.KPaths[k] != v {
			t.Errorf("kpaths[%s] = %d, want %d", k, got.KPaths[k], v)
		}
	}
	if !strings.HasPrefix(out, `{"nodes":54,"symbols":39,"kpaths":{"1":39,`) {
		t.Errorf("JSON field order or names changed: %s", out)
	}
}

func TestCommands(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"a": [1, 2]}`), 0o644)
	os.WriteFile(bad, []byte("{\"a\": [1, 2,]}"), 0o644)
	badGrammar := filepath.Join(dir, "bad.grammar")
	os.WriteFile(badGrammar, []byte("S := \"a\" T ;\nU := \"u\" ;"), 0o644)

	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout []string // substrings
		stderr []string
	}{
		{"stats table", "", []string{"grammar", "stats", "json", "--max-k", "5"}, 0, []string{"json: 112 nodes, 80 symbols", "│ 5 │ 377"}, nil},
		{"check", "", []string{"grammar", "check", "expr"}, 0, []string{"expr: ok", "left-recursive rules", "AddExpr, MultExpr", "3-paths", "523"}, nil},
		{"check conflicts", "", []string{"grammar", "check", "expr", "--conflicts"}, 0, []string{"conflict: expr.grammar:4:12: alternatives of AddExpr overlap in their first byte"}, nil},
		{"check errors", "", []string{"grammar", "check", badGrammar}, 1, nil, []string{"bad.grammar:1:10: undefined symbol T"}},
		{"subjects", "", []string{"subjects"}, 0, []string{"json", "url", "RFC 3986"}, nil},
		{"parse text", "", []string{"parse", "json", good}, 0, []string{"Value_", "Array_"}, nil},
		{"parse stdin", "x+42", []string{"parse", "expr", "-"}, 0, []string{"AddExpr_0\n  AddExpr_5\n"}, nil},
		{"parse full", "x", []string{"parse", "expr", "-", "--full"}, 0, []string{"Alt_1"}, nil},
		{"parse dot", "x", []string{"parse", "expr", "-", "--dot"}, 0, []string{"digraph tree {", "->"}, nil},
		{"parse json", "", []string{"parse", "json", good, bad, "--json"}, 1,
			[]string{`{"file":"` + good + `","trees":[{"id":0,"kind":"Cat"`, `{"error":"` + bad + `:1:13 (byte 12): unexpected ']'`},
			[]string{"1 of 2 inputs did not parse"}},
		{"parse error", "", []string{"parse", "json", bad, good}, 1, []string{"== " + good}, []string{bad + ":1:13 (byte 12): unexpected ']'"}},
		{"missing file", "", []string{"parse", "json", filepath.Join(dir, "nope.json")}, 1, nil, []string{"read input", "no such file"}},
		{"unknown grammar", "", []string{"grammar", "stats", "nosuch"}, 1, nil, []string{`no bundled grammar named "nosuch"`}},
		{"bad k", "", []string{"grammar", "stats", "expr", "--max-k", "0"}, 2, nil, []string{"--max-k must be between 1 and 64"}},
		{"bad flag", "", []string{"grammar", "stats", "expr", "--nope"}, 2, nil, []string{"unknown flag: --nope"}},
		{"missing args", "", []string{"parse", "json"}, 2, nil, []string{"requires at least 2 arg(s)"}},
		{"json and dot", "x", []string{"parse", "expr", "-", "--json", "--dot"}, 2, nil, []string{"exclude each other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runArbor(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
}

func TestParseAll(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "amb.grammar")
	os.WriteFile(g, []byte(`E := E "+" E | "1" ;`), 0o644)
	out, errOut, code := runArbor(t, "1+1+1", "parse", g, "-", "--all", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, "(tree "); n != 2 || !strings.Contains(out, "(tree 2 of 2)") {
		t.Errorf("want 2 trees of 1+1+1:\n%s", out)
	}
}

// TestParseEveryBundledGrammar runs 'arbor parse' on a sample input of each
// bundled grammar in every output form.
func TestParseEveryBundledGrammar(t *testing.T) {
	samples := map[string]string{
		"expr": "(x+42)*-y",
		"json": `{"name": "arbor", "tags": ["go", "ml"], "stars": 1.5e3, "ok": true}`,
		"url":  "https://user@example.com:8080/a/b%20c?q=1#top",
		"csv":  "name,age\r\n\"Doe, Jane\",42\r\n",
		"xml":  "<?xml version=\"1.0\"?>\n<project default=\"build\"><target name=\"build\"><echo>hi &amp; bye</echo></target></project>\n",
		"ini":  "; settings\n[server]\nport = 8080\nhost: localhost\n",
	}
	for name, in := range samples {
		for _, form := range []string{"", "--json", "--dot"} {
			args := []string{"parse", name, "-"}
			if form != "" {
				args = append(args, form)
			}
			out, errOut, code := runArbor(t, in, args...)
			if code != 0 || out == "" {
				t.Errorf("arbor %s: exit %d, stderr %s", strings.Join(args, " "), code, errOut)
			}
			if form == "--json" {
				var v struct {
					Trees []json.RawMessage `json:"trees"`
				}
				if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Trees) != 1 {
					t.Errorf("%s --json: %v: %s", name, err, out)
				}
			}
		}
	}
}
