package antlr_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
	"github.com/arbor-fuzz/arbor/synth"
)

// load converts a fixture and builds it.
func load(t *testing.T, file string, lexers ...string) (*grammar.Graph, []grammar.Warning) {
	t.Helper()
	for i, l := range lexers {
		lexers[i] = filepath.Join("testdata", l)
	}
	ast, warnings, err := antlr.Load(filepath.Join("testdata", file), lexers...)
	if err != nil {
		t.Fatalf("convert %s: %v", file, err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatalf("build %s: %v\n%s", file, err, grammar.Format(ast))
	}
	return g, warnings
}

// TestConstructs converts a fixture per construct and checks that the
// result accepts and rejects chosen inputs, and that inputs generated
// from it parse back.
func TestConstructs(t *testing.T) {
	tests := []struct {
		file   string
		lexers []string
		accept []string
		reject []string
		rules  []string // rule names the result must have
		// minGen is the least share (%) of generated inputs that must
		// parse back (default 100): a WordGap that draws nothing before
		// a word glues two words, which the parser then rejects.
		minGen int
	}{
		{file: "Calc.g4",
			accept: []string{"x=1;", "  x = 1 + 2*3 ;\n", "print 'a\\'b', x;", "y=-(1.5)^2^x;/* c */",
				"a=1; # comment\nb=2;", "s='\\u00e9';", "print x /* a * b */ ,y;", "z=1;/**/", "x=1;/* ** */"},
			reject: []string{"x=1", "x=;", "x=1;/* open", "x=1; # comment b=2;", "x=1;/* a */ */",
				"s='\\q';", "1x=2;"},
			rules: []string{"prog", "stat", "expr", "Assign", "Print", "Bare", "Pow", "Mul", "Add", "Neg", "Num", "Var",
				"Str", "Parens", "ID", "NUMBER", "STRING", "ESC", "HEX", "LETTER", "DIGIT", antlr.Gap, antlr.WordGap},
			minGen: 90},
		{file: "ListParser.g4",
			accept: []string{"[]", "[a, 1, [b]]", "[ [ ] ,x ]"},
			reject: []string{"[a,]", "[a b]", "[\ta]"},
			rules:  []string{"list", "item", "WORD", "INT"}},
		{file: "ListParser.g4", lexers: []string{"ListLexer.g4"},
			accept: []string{"[a,[1]]"}},
		{file: "Pairs.g4",
			accept: []string{`a="x";b="y z"`},
			reject: []string{`a="x";`, `a = "x"`}},
		{file: "Sets.g4",
			accept: []string{"abé", "F09", "A", "!y", "@x", "@ ", "%αβ", `\]`, `\-`, `\\`, "'a b'", "--", "-😀", "ab F1 !a"},
			reject: []string{"!x", "G", "%a", `\a`, "'a\nb'", "É"},
			minGen: 90},
		{file: "Lazy.g4",
			accept: []string{"/* a * b */", "/**/", "/* a */ /* b */", "<!-- a -- b -->", `"a\"b"`, `"\\"`, `"""a "" b"""`,
				"// x\n", "// x\r\n", "// y\r", "a b ;", "!", "a !"},
			reject: []string{"/* a */ b */", "<!---->", `"a"b"`, `"""a""" b"""`, "// x"}},
		{file: "Nested.g4",
			accept: []string{`""`, `"a"`, `"&&"`, `"a&b&"`},
			reject: []string{`"a<"`, `"a"b"`, `"`}},
		{file: "Keywords.g4",
			accept: []string{"if a then b", "f(x)", "f (x)", "a b", "x+y", "x +y"},
			reject: []string{"ifa then b", "if athen b", "ab", "f(x)y"},
			minGen: 90},
		{file: "NoSpace.g4",
			accept: []string{"a,b\nc,\"d\"\"e\"\n", ",,\r\n", "x y,z"},
			reject: []string{"a,\"b\n", "\"a\"b"}},
		{file: "Case.g4",
			accept: []string{"select a from b", "SELECT A, Bc FROM d", "SeLeCt x fRoM y"},
			reject: []string{"selecta from b", "select from b"},
			minGen: 80},
		{file: "Types.g4",
			accept: []string{"1", "0x1f + 2 +0xa"},
			reject: []string{"0x", "1+"},
			rules:  []string{"sum", "NUM", "HEX", "DEC"}},
		{file: "Wild.g4",
			accept: []string{"begin end", "begin a b x ) end", "(a b)", "()"},
			reject: []string{"(x)", "(a ) )", "begin c end"},
			minGen: 75},
		{file: "Actions.g4",
			accept: []string{"a", "aaa"},
			reject: []string{"", "b"}},
		{file: "EndOfLine.g4",
			accept: []string{"ab\ncd", "ab\n", "\n\n"},
			reject: []string{"ab\ncd\nx y"}},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".g4")+strings.Join(tt.lexers, ""), func(t *testing.T) {
			g, _ := load(t, tt.file, tt.lexers...)
			for _, in := range tt.accept {
				if _, err := g.Parse([]byte(in)); err != nil {
					t.Errorf("%q does not parse: %v", in, err)
				}
			}
			for _, in := range tt.reject {
				if _, err := g.Parse([]byte(in)); err == nil {
					t.Errorf("%q parses, but ANTLR rejects it", in)
				}
			}
			have := map[string]bool{}
			for _, r := range g.Rules {
				have[r] = true
			}
			for _, r := range tt.rules {
				if !have[r] {
					t.Errorf("no rule %s among %v", r, g.Rules)
				}
			}
			if tt.minGen == 0 {
				tt.minGen = 100
			}
			checkGenerated(t, g, 100, tt.minGen)
		})
	}
}

// checkGenerated generates n inputs and checks that at least minPct %
// of them parse back, and that those that do not were glued by a
// WordGap that drew nothing (synth draws \B as nothing): they parse once
// every gap is drawn again as a space.
func checkGenerated(t *testing.T, g *grammar.Graph, n, minPct int) {
	t.Helper()
	gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
	failed := 0
	for i := 0; i < n; i++ {
		tree := gen.Generate()
		in := tree.String()
		if _, err := g.Parse([]byte(in)); err == nil {
			continue
		}
		failed++
		spaced := spaceWordGaps(tree)
		if _, err := g.Parse([]byte(spaced)); err != nil {
			t.Errorf("generated %q does not parse, nor with its word gaps spaced (%q): %v", in, spaced, err)
		}
	}
	t.Logf("%d of %d generated inputs parse back", n-failed, n)
	if 100*(n-failed) < minPct*n {
		t.Errorf("%d of %d generated inputs parse back, want at least %d%%", n-failed, n, minPct)
	}
}

// spaceWordGaps writes a tree's text with every empty WordGap a space.
func spaceWordGaps(t *grammar.Tree) string {
	var b strings.Builder
	var walk func(t *grammar.Tree)
	walk = func(t *grammar.Tree) {
		if t.Node.Kind == grammar.KindRef && t.Node.Name == antlr.WordGap && t.String() == "" {
			b.WriteByte(' ')
			return
		}
		if len(t.Children) == 0 {
			b.WriteString(t.Value)
			return
		}
		for _, c := range t.Children {
			walk(c)
		}
	}
	walk(t)
	return b.String()
}

// TestUnsupported checks that constructs arbor cannot convert are
// refused with their position.
func TestUnsupported(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"Modes.g4", []string{"Modes.g4:3:15: unsupported: lexer command pushMode", "Modes.g4:6:1: unsupported: lexer mode TAG"}},
		{"Predicate.g4", []string{"Predicate.g4:3:6: unsupported: semantic predicate"}},
		{"Import.g4", []string{"Import.g4:2:1: unsupported: import"}},
		{"Broken.g4", []string{"Broken.g4:3:17: expected ')'", "Broken.g4:4:5: literal is not closed"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, _, err := antlr.Load(filepath.Join("testdata", tt.file))
			if err == nil {
				t.Fatal("converted")
			}
			var list grammar.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %T is not a grammar.ErrorList: %v", err, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), filepath.Join("testdata", w)) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	_, warnings := load(t, "Actions.g4")
	var text []string
	for _, w := range warnings {
		text = append(text, w.String())
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"Actions.g4:7:27: warning: action {...} dropped", "Actions.g4:7:40: warning: action {...} dropped", "Actions.g4:8:9: warning: lexer action {...} dropped"} {
		if !strings.Contains(all, filepath.Join("testdata", want)) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

// TestNames checks that the rules keep the grammar's names and order.
func TestNames(t *testing.T) {
	g, _ := load(t, "Calc.g4")
	// expr's alternatives keep their labels' rules, each followed by its
	// variants, then come expr's precedence levels (leftrec.go).
	want := "prog stat Assign Print Bare expr Pow Pow' Mul Mul' Add Add' Neg Num Var Str Parens expr' expr_1 expr_1' expr_2 expr_2' expr_3 expr_3' ID NUMBER STRING ESC HEX LETTER DIGIT _ _w"
	if got := strings.Join(g.Rules, " "); got != want {
		t.Errorf("rules\n%s\nwant\n%s", got, want)
	}
}

// TestApproximations pins what the conversion accepts beyond ANTLR, as
// docs/importing.md says: a keyword where an identifier may stand; and
// that a left-recursive rule keeps ANTLR's precedence: 1+2*3 has one
// tree, * under +.
func TestApproximations(t *testing.T) {
	g, _ := load(t, "Calc.g4")
	if _, err := g.Parse([]byte("print;")); err != nil {
		t.Errorf("print; (a keyword read as an identifier) does not parse: %v", err)
	}
	trees, err := g.ParseAll([]byte("x=1+2*3;"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(trees) != 1 {
		t.Fatalf("1+2*3 has %d trees, want 1", len(trees))
	}
	if got := grouping(trees[0], map[string]bool{"Add": true, "Mul": true}); got != "x=[1+[2*3]];" {
		t.Errorf("1+2*3 groups as %s", got)
	}
}

func TestStart(t *testing.T) {
	c := antlr.Config{Start: "expr"}
	ast, _, err := c.Load(filepath.Join("testdata", "Calc.g4"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	if g.Start != "expr" {
		t.Errorf("start %s", g.Start)
	}
	if _, err := g.Parse([]byte(" 1 + x")); err != nil {
		t.Error(err)
	}
	for _, r := range g.Rules {
		if r == "prog" || r == "stat" {
			t.Errorf("rule %s is not reachable from expr but kept", r)
		}
	}
	c.Start = "nosuch"
	if _, _, err := c.Load(filepath.Join("testdata", "Calc.g4")); err == nil || !strings.Contains(err.Error(), "no rule named nosuch") {
		t.Errorf("err %v", err)
	}
}

func TestMissingLexer(t *testing.T) {
	f, err := antlr.Parse("Lone.g4", []byte("parser grammar Lone;\noptions { tokenVocab = Gone; }\ns : A ;\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := antlr.Convert(f); err == nil || !strings.Contains(err.Error(), "undefined token A") {
		t.Errorf("err %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "Lone.g4")
	writeFile(t, path, "parser grammar Lone;\noptions { tokenVocab = Gone; }\ns : A ;\n")
	if _, _, err := antlr.Load(path); err == nil || !strings.Contains(err.Error(), "Gone.g4 does not exist") {
		t.Errorf("err %v", err)
	}
}
