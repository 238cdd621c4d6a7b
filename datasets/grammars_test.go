package datasets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
)

func TestBundledGrammars(t *testing.T) {
	want := []string{"cel", "cron", "css", "csv", "expr", "exprlang", "gotemplate", "govaluate", "graphql", "html", "ini", "javascript", "json", "markdown", "regexp", "starlark", "toml", "url", "xml", "yaml"}
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
		{"cron", []string{"30 * * * *", "30 3-6,20-23 * * *", "CRON_TZ=Asia/Tokyo 30 04 * * *", "@hourly", "@every 1h30m10s", "0 6 * * ?", "*/15 0 1,15 * MON-FRI", "0 30 9 * JAN-mar sun", "0 0 * * Sun", "0 0 1 Jan *"},
			[]string{"30 * * *", "60 * * * *", "* * * * * * *", "@every", "TZ=UTC", "* * ? * ? ?x"}},
		{"regexp", []string{"a(b|c)*", `^[a-z]+\d{2,3}$`, `(?P<year>\d{4})-(?P<month>\d{2})`, "(?i)hello|world", `[[:alpha:]][^\]x-z]`, `\pL\p{Greek}\PN`, `\Q.*\E\x41\x{263a}\012`, "(?:ab)+?c{2,}", "(?is-U:a.b)", "a||b", "", `\x{10FFFF}`, `[\x00-\x1F\x7F]`},
			[]string{"a(b", "[a-", "a**", "(?x)", `\8`, "(?i)*", `\Q\E+`}},
		{"gotemplate", []string{"Hello, {{.Name}}!", "{{if .Enabled}}on{{else}}off{{end}}", "{{range $i, $v := .Items}}{{$i}}={{$v}} {{end}}",
			"{{with .User}}{{.Name}}{{else with .Nested}}n{{end}}", `{{define "row"}}r{{end}}{{template "row" .}}`, "{{- /* c */ -}}",
			`{{printf "%d" (len .Items) | print}}`, `{{range .Tags}}{{if eq . "x"}}{{break}}{{end}}{{end}}`, "{{$x := 3}}{{$x = 4}}{{$x}}", `{{block "item" .}}b{{end}}`},
			[]string{"{{.Name}", "{{if .Enabled}}x", "{{end}}", `{{define "row"}}{{define "item"}}{{end}}{{end}}`, "{{.Name | 3}}", "{{print ($x := 1)}}", "{{if .Enabled}}{{break}}{{end}}"}},
		{"yaml", []string{"a: 1\n", "name: arbor\nversion: 1.2\ntags: [x, y]\n", "---\nitems:\n  - one\n  - two # c\n",
			"base: &base\n  port: 80\nprod:\n  <<: *base\n  host: example.com\n", "text: |\n  line one\n  line two\nfolded: >-\n  a b\n",
			"- 1\n- \"two\\n\"\n- 'it''s'\n- {a: 1, b: [true, null]}\n", "%YAML 1.2\n---\nv: !!str 123\n...\n", "# top\nx: ~\n"},
			[]string{"a: 1", "a:\n b: 1\n", "a: [1, 2\n", "- a\n -b\n", "a: b: c\n", "#c\n...\n"}},
		{"graphql", []string{`{ user(id: "1") { name } }`, "query Q($id: ID!, $first: Int = 10) { user(id: $id) { friends(first: $first) { ...userFields } } }",
			"fragment userFields on User { id name @include(if: true) }", `mutation { addPost(input: {title: """block""" score: 1.5e3}) { id } }`,
			`{ search(text: "a\n") { __typename ... on Post { title } } }`, "# c\n{ users(color: RED) { a: age } }"},
			[]string{`{ user(id: "1") { name }`, "{ user(id:) }", "query ($id: ID!) { }", "fragment on on User { id }", "{ user(id: $1) }", "query @skip(if: true) { id }"}},
		{"html", []string{
			"<!DOCTYPE html><html><head><title>x</title></head><body><p>x</p></body></html>",
			"<!doctype html>\n<html lang=en>\n<head>\n<meta charset=\"utf-8\">\n<title>Sample page</title>\n</head>\n<body>\n<h1>Sample page</h1>\n<p>This is a <a href=\"demo.html\">simple</a> sample.</p>\n<!-- this is a comment -->\n</body>\n</html>\n",
			"<!DOCTYPE html SYSTEM \"about:legacy-compat\"><html><head><title>A &amp; B &#169; &#xA9;</title><style>p{color:red}</style></head><body><ul><li>one<li>two</ul><table><tr><td>1<td>2<tr><th>h</table></body></html>",
			"<!DOCTYPE html><html><head><title>t</title></head><body><form action=/go method=post><input name=q disabled><select><option>a<option selected>b</select><textarea>\nhi</textarea></form><img src=x.png alt=\"\" /></body></html>",
			"<!DOCTYPE html><html><head><title>t</title><script>var x = 1;</script></head><body><svg><g><rect/><circle></circle></g><![CDATA[ raw ]]></svg><math><mi>x</mi><mo>=</mo><mn>2</mn></math><pre>\n  code</pre></body></html>",
		}, []string{
			"<p>x</p>",
			"<!DOCTYPE html><html><head></head><body></body></html>",
			htmlPage("<p>a < b</p>"), htmlPage("<br></br>"), htmlPage("<a href=x><a>y</a></a>"), htmlPage("<p>&#0;</p>"),
		}},
		{"css", []string{
			"p { color: red; }",
			"@charset \"UTF-8\";\n@import url(\"theme.css\") screen and (min-width: 600px);\n/* base */\nbody { margin: 0; font-family: \"Helvetica Neue\", sans-serif; }\n",
			"ul > li:first-child a[href^=\"https\"]::after, #main .note:not(.hidden) { background-color: #fff8e0 !important; padding: 4px 1.5em; }",
			"@media screen and (max-width: 800px) {\n  .grid { display: block; width: calc(100% - 2 * 16px); }\n  @media print { a { text-decoration: underline } }\n}",
			"@keyframes spin { from { transform: rotate(0deg) } 50%, 75% { opacity: .5 } to { transform: rotate(360deg) scale(1.5) } }",
			":root { --accent: rgba(255, 0, 0, 0.5); } tr:nth-child(2n+1) td ~ td + td { color: var(--accent, hsl(120, 50%, 40%)); border: 1px solid #abc; }",
		}, []string{
			"p { color: red", "p { color red; }", "a::before:hover { color: blue }", "div { width: calc(100%-10px) }", "p:not(:not(a)) { color: red }", "@keyframes k { 120% { opacity: 1 } }",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.grammar, func(t *testing.T) {
			g, err := datasets.Grammar(tt.grammar)
			if err != nil {
				t.Fatal(err)
			}
			checkSamples(t, g, tt.accept, tt.reject)
		})
	}
}

// checkSamples checks that g derives every input of accept, each to a
// tree whose text is the input again, and none of reject.
func checkSamples(t *testing.T, g *grammar.Graph, accept, reject []string) {
	t.Helper()
	for _, in := range accept {
		tree, err := g.Parse([]byte(in))
		if err != nil {
			t.Errorf("rejects %q: %v", in, err)
		} else if tree.String() != in {
			t.Errorf("tree of %q derives %q", in, tree.String())
		}
	}
	for _, in := range reject {
		if _, err := g.Parse([]byte(in)); err == nil {
			t.Errorf("accepts %q", in)
		}
	}
}

// htmlPage wraps body content in the smallest document the html grammar accepts.
func htmlPage(body string) string {
	return "<!DOCTYPE html><html><head><title>t</title></head><body>" + body + "</body></html>"
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
	g4 := filepath.Join(dir, "S.g4")
	os.WriteFile(g4, []byte("grammar S;\ns : 'a' {act();} B ;\nB : 'b' ;\n"), 0o644)
	if g, err := datasets.LoadGrammar(g4); err != nil || g.Start != "s" || len(g.Warnings) == 0 || !strings.Contains(g.Warnings[0].String(), "action {...} dropped") {
		t.Errorf("LoadGrammar(g4): %v", err)
	}
	bad := filepath.Join(dir, "bad.grammar")
	os.WriteFile(bad, []byte("S := T ;"), 0o644)
	tests := []struct{ arg, want string }{
		{"nosuch", `no bundled grammar named "nosuch" (bundled: cel, cron, css, csv, expr, exprlang, gotemplate, govaluate, graphql, html, ini, javascript, json, markdown, regexp, starlark, toml, url, xml, yaml)`},
		{filepath.Join(dir, "missing.grammar"), "does not exist"},
		{filepath.Join(dir, "none.g4"), "does not exist"},
		{bad, "bad.grammar:1:6: undefined symbol T"},
	}
	for _, tt := range tests {
		_, err := datasets.LoadGrammar(tt.arg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadGrammar(%q) error %v, want %q", tt.arg, err, tt.want)
		}
	}
}

// TestLoadGrammarBesideFolder: a folder named like a bundled grammar
// (cron/, of cron inputs) in the working folder does not hide it, as
// 'arbor generate cron --out cron/' then 'arbor record --subject cron'
// make one; a folder named by a path is still refused.
func TestLoadGrammarBesideFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "cron"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if g, err := datasets.LoadGrammar("cron"); err != nil || g.Start != "Spec" {
		t.Errorf("LoadGrammar(cron) beside a folder cron: %v", err)
	}
	if _, err := datasets.LoadGrammar("./cron"); err == nil {
		t.Error("LoadGrammar(./cron) read a folder as a grammar")
	}
}

// TestImportGrammar imports a bundled grammar from another start rule,
// and refuses a lexer grammar for it.
func TestImportGrammar(t *testing.T) {
	ast, warnings, err := datasets.ImportGrammar("json", datasets.ImportOptions{Start: "Array"})
	if err != nil || ast.Rules[0].Name != "Array" || len(warnings) == 0 {
		t.Errorf("ImportGrammar(json, start Array): %v, %d warnings", err, len(warnings))
	}
	_, _, err = datasets.ImportGrammar("json", datasets.ImportOptions{Lexers: []string{"L.g4"}})
	if want := "json.grammar: only an ANTLR parser grammar takes a lexer grammar as well"; err == nil || err.Error() != want {
		t.Errorf("ImportGrammar(json, lexer): %v, want %s", err, want)
	}
}
