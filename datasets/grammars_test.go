package datasets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
)

func TestBundledGrammars(t *testing.T) {
	want := []string{"csv", "expr", "exprlang", "govaluate", "ini", "json", "markdown", "toml", "url", "xml"}
	infos := datasets.Grammars()
	var names []string
	for _, info := range infos {
		names = append(names, info.Name)
		if info.Description == "" {
			t.Errorf("%s has no description comment", info.Name)
		}
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("bundled grammars %v, want %v", names, want)
	}
	for _, name := range want {
		g, err := datasets.Grammar(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		// Duplicate alternatives would make inputs ambiguous for no reason.
		for _, w := range g.Warnings {
			if !strings.Contains(w.Msg, "left-recursive") {
				t.Errorf("%s: %v", name, w)
			}
		}
	}
}

// TestSampleInputs parses hand-written inputs of every bundled format and
// rejects near misses.
func TestSampleInputs(t *testing.T) {
	tests := []struct {
		grammar string
		accept  []string
		reject  []string
	}{
		{"json", []string{`{}`, ` [ ] `, `{"a":[1,-0.5e10,true,false,null,"\u00e9\"\\"]}`, `"plain"`, `0`, "{\n\t\"k\": {}\r\n}"},
			[]string{`{`, `[1,]`, `01`, `"\x"`, `{"a" 1}`, `tru`, `1.`, "\"a\nb\""}},
		{"url", []string{"https://user:pw@example.com:8080/a/b?q=1&r=%20#frag", "mailto:someone@example.org", "//host/path", "../up/one", "", "?query", "#f", "http://[::1]/", "http://[2001:db8::7]:80", "http://192.168.0.1/", "urn:isbn:0451450523", "http://[v1.fe]/"},
			[]string{"http://exa mple.com", "%zz", "http://[::1/", "a b"}},
		{"csv", []string{"a,b,c\r\n1,2,3\r\n", "a,\"b,\"\"c\"\"\",d\n", "x", "", "\"multi\nline\",2"},
			[]string{"a\"b,c", "\"unclosed", "\"a\"b"}},
		{"xml", []string{"<a/>", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<project name='p'>\n  <!-- c -->\n  <target a=\"1\">text &amp; &#65;<![CDATA[<raw>]]></target>\n</project>\n", "<a><b></b><?pi data?></a>"},
			[]string{"<a>", "<a></b >x", "<a x=1/>", "text"}},
		{"ini", []string{"; comment\nname = arbor\n[section]\nkey: value\n\n# more\n", "[s]\nk=v", "a=1\r\n[b]\r\nc=2\r\n"},
			[]string{"[unclosed\n", "=value\n"}},
		{"expr", []string{"x", "1+2*3", "-(x--y)%z", "++x"}, []string{"", "1+", "(x", "x y"}},
	}
	for _, tt := range tests {
		t.Run(tt.grammar, func(t *testing.T) {
			g, err := datasets.Grammar(tt.grammar)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range tt.accept {
				tree, err := g.Parse([]byte(in))
				if err != nil {
					t.Errorf("rejects %q: %v", in, err)
				} else if tree.String() != in {
					t.Errorf("tree of %q derives %q", in, tree.String())
				}
			}
			for _, in := range tt.reject {
				if _, err := g.Parse([]byte(in)); err == nil {
					t.Errorf("accepts %q", in)
				}
			}
		})
	}
}

func TestLoadGrammar(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.grammar")
	if err := os.WriteFile(file, []byte(`S := "a" | "b" ;`), 0o644); err != nil {
		t.Fatal(err)
	}
	if g, err := datasets.LoadGrammar(file); err != nil || g.Start != "S" {
		t.Errorf("LoadGrammar(file): %v", err)
	}
	if g, err := datasets.LoadGrammar("json"); err != nil || g.Start != "JSON" {
		t.Errorf("LoadGrammar(json): %v", err)
	}
	bad := filepath.Join(dir, "bad.grammar")
	os.WriteFile(bad, []byte("S := T ;"), 0o644)
	tests := []struct{ arg, want string }{
		{"nosuch", `no bundled grammar named "nosuch" (bundled: csv, expr, exprlang, govaluate, ini, json, markdown, toml, url, xml)`},
		{filepath.Join(dir, "missing.grammar"), "does not exist"},
		{bad, "bad.grammar:1:6: undefined symbol T"},
	}
	for _, tt := range tests {
		_, err := datasets.LoadGrammar(tt.arg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadGrammar(%q) error %v, want %q", tt.arg, err, tt.want)
		}
	}
}
