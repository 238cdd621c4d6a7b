package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type parser func(io.Reader, string) (*Coverage, error)

func parseFile(t *testing.T, p parser, name string) *Coverage {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := p(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func names(fs []Function) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func TestParseFiles(t *testing.T) {
	tests := []struct {
		file    string
		parse   parser
		all     []string // every function, in report order
		covered []string
		lines   map[string][]Line
	}{
		{"c.info", ParseLcov,
			[]string{"src/lib.c:helper", "src/lib.c:parse", "src/other.c:helper"},
			[]string{"src/lib.c:parse", "src/other.c:helper"},
			map[string][]Line{"src/lib.c": {{2, 0}, {4, 3}, {5, 3}}, "src/other.c": {{7, 1}}}},
		{"lcov2.info", ParseLcov,
			[]string{"src/x.cc:ns::A::f(int)", "src/x.cc:ns::A::f(int) [clone]", "src/x.cc:ns::g()", "src/x.cc:late"},
			[]string{"src/x.cc:late", "src/x.cc:ns::A::f(int)", "src/x.cc:ns::A::f(int) [clone]"},
			map[string][]Line{"src/x.cc": {{3, 5}, {12, 0}}}},
		{"py.info", ParseLcov, nil, nil,
			map[string][]Line{"pkg/mod.py": {{1, 1}, {3, 1}, {4, 0}}}},
		{"c.gcov.json", ParseGcovJSON,
			[]string{"lib.c:helper", "lib.c:parse(char const*)", "main.c:main"},
			[]string{"lib.c:parse(char const*)", "main.c:main"},
			map[string][]Line{"lib.c": {{2, 0}, {5, 5}}, "main.c": {{1, 1}}}},
		{"c.gcov.json.gz", ParseGcovJSON,
			[]string{"lib.c:helper", "lib.c:parse(char const*)", "main.c:main"},
			[]string{"lib.c:parse(char const*)", "main.c:main"}, nil},
		{"py.json", ParseCoveragePy,
			[]string{"pkg.mod.Parser.only_b", "pkg.mod.top"},
			[]string{"pkg.mod.top"},
			map[string][]Line{"pkg/mod.py": {{1, 1}, {3, 1}, {4, 1}, {5, 0}, {8, 1}, {9, 0}, {12, 1}}}},
		{"jacoco.xml", ParseJaCoCo,
			[]string{"org.demo.Parser.<init>()", "org.demo.Parser.parse(int,java.lang.String[])", "org.demo.Parser.onlyB()", "org.demo.Parser$Inner.run(double[][])"},
			[]string{"org.demo.Parser$Inner.run(double[][])", "org.demo.Parser.<init>()", "org.demo.Parser.parse(int,java.lang.String[])"},
			map[string][]Line{"org/demo/Parser.java": {{3, 1}, {5, 1}, {9, 0}}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c := parseFile(t, tt.parse, tt.file)
			if got := names(c.Functions); !slices.Equal(got, tt.all) {
				t.Errorf("functions:\n got %q\nwant %q", got, tt.all)
			}
			if got := c.CoveredNames(); !slices.Equal(got, tt.covered) {
				t.Errorf("covered:\n got %q\nwant %q", got, tt.covered)
			}
			for _, f := range c.Files {
				if want, ok := tt.lines[f.Path]; ok && !slices.Equal(f.Lines, want) {
					t.Errorf("%s lines: got %v, want %v", f.Path, f.Lines, want)
				}
			}
		})
	}
}

func TestLcovDetails(t *testing.T) {
	c := parseFile(t, ParseLcov, "lcov2.info")
	f := c.Functions[0]
	if f.Line != 3 || f.EndLine != 9 || f.Hits != 5 || f.File != "src/x.cc" || f.Symbol != "ns::A::f(int)" {
		t.Errorf("FNL/FNA: %+v", f)
	}
	if late := c.Functions[3]; late.Line != 20 || late.EndLine != 22 || late.Hits != 2 {
		t.Errorf("lcov 2 FN: %+v", late)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		parse parser
		in    string
		want  string
	}{
		{ParseLcov, "SF:a.c\nFN:x,f\n", "r:2: FN record: line number"},
		{ParseLcov, "FNDA:1,f\n", "r:1: FNDA record outside a file"},
		{ParseLcov, "SF:a.c\nDA:1\n", "r:2: DA record: want line,count"},
		{ParseLcov, "SF:a.c\nDA:1,zz\n", "r:2: DA record: count"},
		{ParseLcov, "garbage\n", "r:1: not an lcov record"},
		{ParseLcov, "SF:a.c\nFNA:0,1,f\n", "no FNL record"},
		{ParseGcovJSON, "", "r: empty"},
		{ParseGcovJSON, "{\"files\": []}", "no format_version"},
		{ParseGcovJSON, "{\"format_version\": \"1\",\n \"files\": [}", "r:2:"},
		{ParseGcovJSON, "{\"format_version\": \"1\", \"files\": [{\"file\": \"a.c\", \"functions\": [{\"name\": \"f\", \"execution_count\": \"x\"}]}]}", "execution count"},
		{ParseGcovJSON, "\x1f\x8bxx", "gzip"},
		{ParseCoveragePy, "{}", "not a coverage.py JSON report"},
		{ParseCoveragePy, "{\"meta\": {}, \"files\": {\"a.py\": {\"executed_lines\": [-1]}}}", "negative line"},
		{ParseJaCoCo, "<x/>", "no report element"},
		{ParseJaCoCo, "<report><method name=\"f\"/></report>", "a method outside a class"},
		{ParseJaCoCo, "<report><package name=\"p\"><class name=\"p/C\"><method name=\"f\" desc=\"(Q)V\"/></class></package></report>", "bad type"},
		{ParseJaCoCo, "<report>\n<package>\n</report>", "r:3"},
		{ParseJaCoCo, "<!DOCTYPE report [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><report>&x;</report>", "invalid character entity &x;"},
	}
	for _, tt := range tests {
		_, err := tt.parse(strings.NewReader(tt.in), "r")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%.40q: got error %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}

func TestJavaName(t *testing.T) {
	tests := []struct{ class, method, desc, want string }{
		{"a/B", "f", "()V", "a.B.f()"},
		{"a/B$C", "<init>", "(JLjava/util/List;[[Z)V", "a.B$C.<init>(long,java.util.List,boolean[][])"},
		{"B", "g", "", "B.g"},
		{"B", "h", "(BCDFISZ)I", "B.h(byte,char,double,float,int,short,boolean)"},
	}
	for _, tt := range tests {
		got, err := JavaName(tt.class, tt.method, tt.desc)
		if err != nil || got != tt.want {
			t.Errorf("JavaName(%q, %q, %q) = %q, %v; want %q", tt.class, tt.method, tt.desc, got, err, tt.want)
		}
	}
	for _, bad := range []string{"V", "(", "([", "(L;)V", "(Lx", "(X)V"} {
		if _, err := JavaName("B", "f", bad); err == nil {
			t.Errorf("JavaName accepted descriptor %q", bad)
		}
	}
}

func TestQualifiedName(t *testing.T) {
	tests := []struct{ file, symbol, want string }{
		{"src/lib.c", "parse", "src/lib.c:parse"},
		{"pkg/mod.py", "Parser.parse", "pkg.mod.Parser.parse"},
		{"pkg/__init__.py", "f", "pkg.f"},
		{"./mod.py", "f", "mod.f"},
		{"", "f", "f"},
		{"a.c", "", "a.c"},
	}
	for _, tt := range tests {
		if got := QualifiedName(tt.file, tt.symbol); got != tt.want {
			t.Errorf("QualifiedName(%q, %q) = %q, want %q", tt.file, tt.symbol, got, tt.want)
		}
	}
}

func TestRelative(t *testing.T) {
	root := filepath.Join(string(filepath.Separator), "src", "proj")
	abs := filepath.Join(root, "lib", "a.c")
	c, err := ParseLcov(strings.NewReader("SF:"+abs+"\nFN:1,f\nFNDA:1,f\nend_of_record\nSF:/elsewhere/b.c\nFN:1,g\nend_of_record\n"), "r")
	if err != nil {
		t.Fatal(err)
	}
	c.Relative(root)
	if got := names(c.Functions); !slices.Equal(got, []string{"lib/a.c:f", "/elsewhere/b.c:g"}) {
		t.Errorf("names: %q", got)
	}
	if c.Files[0].Path != "lib/a.c" {
		t.Errorf("file: %q", c.Files[0].Path)
	}
}

func TestAssignLines(t *testing.T) {
	// def top():        1
	//     x = 1         2
	//     def inner():  3
	//         return 2  4
	//     return x      5
	// class K:          6
	//     @dec          7
	//     def m(self):  8
	//         pass      9
	c := &Coverage{Format: "coverage.py", Files: []File{{Path: "m.py", Lines: []Line{{1, 1}, {2, 1}, {3, 1}, {4, 0}, {5, 1}, {6, 1}, {7, 1}, {8, 1}, {9, 0}}}}}
	c.AssignLines(map[string][]Range{"m.py": {{"top", 1, 2, 5}, {"top.inner", 3, 4, 4}, {"K.m", 7, 9, 9}}})
	if got := names(c.Functions); !slices.Equal(got, []string{"m.top", "m.top.inner", "m.K.m"}) {
		t.Errorf("functions: %q", got)
	}
	if got := c.CoveredNames(); !slices.Equal(got, []string{"m.top"}) {
		t.Errorf("covered: %q", got)
	}
	c.Files[0].Lines[3].Hits = 1 // inner's body ran
	c.Functions = nil
	c.AssignLines(map[string][]Range{"m.py": {{"top", 1, 2, 5}, {"top.inner", 3, 4, 4}, {"K.m", 7, 9, 9}}})
	if got := c.CoveredNames(); !slices.Equal(got, []string{"m.top", "m.top.inner"}) {
		t.Errorf("covered: %q", got)
	}
}

func TestParsePythonRanges(t *testing.T) {
	got, err := parsePythonRanges([]byte(`{"a.py": [["f", 1, 2, 3], ["C.g", 5, 6, 9]]}`))
	if err != nil || !slices.Equal(got["a.py"], []Range{{"f", 1, 2, 3}, {"C.g", 5, 6, 9}}) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{`[]`, `{"a.py": [["f", 1, 2]]}`, `{"a.py": [[1, 1, 2, 3]]}`} {
		if _, err := parsePythonRanges([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// TestGcovAsLcov: gcov's JSON read as geninfo reads it names files by
// their absolute paths and functions by their linker names; written as
// an lcov tracefile and read back, it gives the same functions, hits
// and lines.
func TestGcovAsLcov(t *testing.T) {
	c := parseFile(t, ParseGcovJSONLcov, "c.gcov.json")
	var got []string
	for _, f := range c.Functions {
		got = append(got, f.Name+"="+strconv.FormatUint(f.Hits, 10))
	}
	want := []string{"/src/lib.c:helper=0", "/src/lib.c:_Z5parsePKc=4", "main.c:main=1"} // the second object names no folder
	if !slices.Equal(got, want) {
		t.Errorf("functions %q, want %q", got, want)
	}
	for _, name := range []string{"c.gcov.json", "c.info", "lcov2.info"} {
		p := ParseLcov
		if strings.HasSuffix(name, ".json") {
			p = ParseGcovJSONLcov
		}
		c := parseFile(t, p, name)
		var b strings.Builder
		if err := WriteLcov(&b, c); err != nil {
			t.Fatal(err)
		}
		back, err := ParseLcov(strings.NewReader(b.String()), name+" written")
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b.String())
		}
		if !reflect.DeepEqual(summary(back), summary(c)) {
			t.Errorf("%s written and read back:\n%v\nwant\n%v", name, summary(back), summary(c))
		}
	}
}

// summary is what WriteLcov keeps of a coverage: functions with their
// files, first lines and hits, and lines.
func summary(c *Coverage) []string {
	var out []string
	for _, f := range c.Functions {
		out = append(out, fmt.Sprintf("%s %s %d %d", f.Name, f.File, f.Line, f.Hits))
	}
	for _, f := range c.Files {
		out = append(out, fmt.Sprintf("%s %v", f.Path, f.Lines))
	}
	return out
}
