package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRoundTrip parses the text of seeded random trees of every bundled
// grammar: the parse must succeed and derive the same text.
func TestRoundTrip(t *testing.T) {
	for _, name := range bundledNames(t) {
		t.Run(name, func(t *testing.T) {
			g := bundled(t, name)
			r := rand.New(rand.NewPCG(1, uint64(len(name))))
			det := 0
			const n = 300
			for i := 0; i < n; i++ {
				want := randomTree(g, r, 12).String()
				tree, err := g.Parse([]byte(want))
				if err != nil {
					t.Fatalf("input %d %q: %v", i, want, err)
				}
				if got := tree.String(); got != want {
					t.Fatalf("input %d: tree derives %q, want %q", i, got, want)
				}
				if isDet(g, []byte(want)) {
					det++
				}
			}
			t.Logf("%s: %d of %d inputs parsed by the deterministic parser", name, det, n)
			if name == "json" && det != n {
				t.Errorf("json: only %d of %d inputs took the deterministic parser; the json grammar is meant to be LL(1)", det, n)
			}
		})
	}
}

func TestParseGrammars(t *testing.T) {
	tests := []struct {
		name, grammar string
		accept        []string
		reject        []string
	}{
		{"left recursion", `S := S "+" N | N ; N := /[0-9]+/ ;`,
			[]string{"1", "1+2", "1+22+333"}, []string{"", "+", "1+", "1++2"}},
		{"right recursion", `S := N "+" S | N ; N := /[0-9]+/ ;`,
			[]string{"1", "1+2+3"}, []string{"1+"}},
		{"empty alternatives", `S := "a" S "b" | ;`,
			[]string{"", "ab", "aaabbb"}, []string{"a", "abb", "ba"}},
		{"nullable chain", `S := A B C "x" ; A := "a" | "" ; B := A A ; C := B? ;`,
			[]string{"x", "ax", "aax", "aaaax", "aaaaax"}, []string{"aaaaaax", ""}},
		{"bounded quantifier", `S := "a"{2,3} ;`,
			[]string{"aa", "aaa"}, []string{"a", "aaaa"}},
		{"exact quantifier", `S := ("a" "b"?){3} ;`,
			[]string{"aaa", "ababab", "aaba"}, []string{"aa", "aab", "aaaa"}},
		{"at least", `S := "a"{2,} "b" ;`,
			[]string{"aab", "aaaaab"}, []string{"ab", "b"}},
		{"nullable repeated", `S := ("a"?)* "b" ;`,
			[]string{"b", "ab", "aaab"}, []string{"a"}},
		{"regex shorter match needed", `S := /a+/ "ab" ;`,
			[]string{"aab", "aaaab"}, []string{"ab", "aaa"}},
		{"regex empty match", `S := /x*/ "y" ;`,
			[]string{"y", "xxy"}, []string{"x"}},
		{"unicode regex", `S := /[α-ω]+/ "!" ;`,
			[]string{"αβγ!"}, []string{"abc!"}},
		{"unit cycle", `S := A | "x" ; A := S | "y" ;`,
			[]string{"x", "y"}, []string{"xy"}},
		{"terminal root", `S := "abc" ;`,
			[]string{"abc"}, []string{"ab", "abcd"}},
		{"regex root", `S := /[0-9]{2}/ ;`,
			[]string{"12"}, []string{"1", "123"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := mustBuild(t, "t.grammar", tt.grammar)
			for _, in := range tt.accept {
				tree, err := g.Parse([]byte(in))
				if err != nil {
					t.Errorf("Parse(%q): %v", in, err)
					continue
				}
				if tree.String() != in {
					t.Errorf("Parse(%q) derives %q", in, tree.String())
				}
				if !tree.Complete() {
					t.Errorf("Parse(%q) has open slots", in)
				}
			}
			for _, in := range tt.reject {
				if _, err := g.Parse([]byte(in)); err == nil {
					t.Errorf("Parse(%q) succeeded, want an error", in)
				}
			}
		})
	}
}

func TestAmbiguity(t *testing.T) {
	g := mustBuild(t, "t.grammar", `E := E "+" E | "1" ;`)
	// 1+1+1+1 has Catalan(3) = 5 trees.
	in := []byte("1+1+1+1")
	trees, err := g.ParseAll(in, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(trees) != 5 {
		t.Fatalf("ParseAll found %d trees, want 5", len(trees))
	}
	seen := map[string]bool{}
	for _, tr := range trees {
		if tr.String() != string(in) {
			t.Errorf("tree derives %q", tr.String())
		}
		seen[dump(tr)] = true
	}
	if len(seen) != 5 {
		t.Errorf("only %d distinct trees among 5", len(seen))
	}
	if trees, _ := g.ParseAll(in, 2); len(trees) != 2 {
		t.Errorf("ParseAll with limit 2 returned %d trees", len(trees))
	}
	// A regex that can split a run of letters in two places.
	g = mustBuild(t, "t.grammar", `S := /a*/ /a*/ ;`)
	if trees, _ := g.ParseAll([]byte("aaa"), 10); len(trees) != 4 {
		t.Errorf("/a*/ /a*/ on aaa: %d trees, want 4", len(trees))
	}
}

func TestDeterministicAgreesWithGeneral(t *testing.T) {
	for _, name := range bundledNames(t) {
		g := bundled(t, name)
		r := rand.New(rand.NewPCG(7, 7))
		for i := 0; i < 100; i++ {
			in := []byte(randomTree(g, r, 10).String())
			det, _ := g.parseDeterministicContext(context.Background(), in) // bounded, as Parse is
			if det == nil {
				continue
			}
			gen, err := g.parseGeneral(in, 2)
			if err != nil || len(gen) != 1 || dump(gen[0]) != dump(det) {
				t.Fatalf("%s %q: deterministic and general parsers disagree (err %v, %d trees)", name, in, err, len(gen))
			}
		}
	}
}

func TestRejection(t *testing.T) {
	json := bundled(t, "json")
	expr := bundled(t, "expr")
	tests := []struct {
		name   string
		g      *Graph
		in     string
		want   string
		offset int
	}{
		{"json trailing comma", json, "[1,]", `1:4 (byte 3): unexpected ']'; expected one of "-", "0", "[", "\"", "false", "null", "true", "{", /[1-9][0-9]*/`, 3},
		{"json second line", json, "{\"a\": 1,\n  \"b\" 2}", `2:7 (byte 15): unexpected '2'; expected ":"`, 15},
		{"json end of input", json, `{"a": [1, 2`, `1:12 (byte 11): unexpected end of input; expected one of ",", ".", "E", "]", "e"`, 11},
		{"json bad escape", json, `"\x"`, `1:3 (byte 2): unexpected 'x'; expected one of "/", "\"", "\\", "b", "f", "n", "r", "t", "u"`, 2},
		{"json invalid utf8", json, "[\xff]", `1:2 (byte 1): unexpected byte 0xff; expected one of "-", "0"`, 1},
		{"expr", expr, "x+*y", `1:3 (byte 2): unexpected '*'; expected one of "(", "+", "++", "-", "--", "0", "1", "2", "3", "4", "5", "6" and 6 more`, 2},
		{"expr empty", expr, "", `1:1 (byte 0): unexpected end of input; expected one of "(", "+", "++"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.g.Parse([]byte(tt.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if !strings.HasPrefix(pe.Error(), tt.want) {
				t.Errorf("error:\n%s\nwant prefix:\n%s", pe.Error(), tt.want)
			}
			if pe.Pos.Offset != tt.offset {
				t.Errorf("offset %d, want %d", pe.Pos.Offset, tt.offset)
			}
			pe.Pos.Filename = "in.json"
			if !strings.HasPrefix(pe.Error(), "in.json:") {
				t.Errorf("error with a filename: %s", pe.Error())
			}
		})
	}
}

func TestTreeRendering(t *testing.T) {
	g := bundled(t, "expr")
	tree, err := g.Parse([]byte("x+4"))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := tree.WriteText(&text, true); err != nil {
		t.Fatal(err)
	}
	wantText := `AddExpr_0
  AddExpr_5
    MultExpr_2
      UnaryExpr_8
        Identifier_16
          "x"_39
  "+"_10
  MultExpr_7
    UnaryExpr_8
      DecDigits_22
        DecDigit_42
          "4"_48
`
	if text.String() != wantText {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), wantText)
	}
	js, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(js), `{"id":0,"kind":"Ref","label":"AddExpr","children":[{"id":1,"kind":"Alt","label":"Alt","children":[{"id":3,"kind":"Cat"`) ||
		!strings.Contains(string(js), `{"id":39,"kind":"Lit","label":"\"x\"","text":"x"}`) {
		t.Errorf("JSON: %s", js)
	}
	var dot strings.Builder
	if err := tree.WriteDOT(&dot); err != nil {
		t.Fatal(err)
	}
	d := dot.String()
	if !strings.HasPrefix(d, "digraph tree {") || strings.Count(d, "->") != tree.Size()-1 || !strings.Contains(d, `label="AddExpr_0"`) {
		t.Errorf("DOT:\n%s", d)
	}
}

func TestSlots(t *testing.T) {
	g := bundled(t, "expr")
	// A partial tree: AddExpr_0 → Alt_1 → Cat_3 with the "+" filled in.
	cat := g.Nodes[3]
	plus := &Tree{Node: g.Nodes[6], Children: []*Tree{{Node: g.Nodes[10], Value: "+"}}}
	root := &Tree{Node: g.Nodes[0], Children: []*Tree{{Node: g.Nodes[1], Children: []*Tree{{Node: cat, Children: []*Tree{nil, plus, nil}}}}}}
	slots := root.Slots()
	if len(slots) != 2 || root.Complete() {
		t.Fatalf("slots %v complete %v", slots, root.Complete())
	}
	if slots[0].Index != 0 || slots[0].Node() != g.Nodes[5] || slots[0].Depth != 1 {
		t.Errorf("slot 0: index %d node %v depth %d", slots[0].Index, slots[0].Node(), slots[0].Depth)
	}
	if slots[1].Index != 2 || slots[1].Node() != g.Nodes[7] {
		t.Errorf("slot 1: index %d node %v", slots[1].Index, slots[1].Node())
	}
	if root.String() != "+" {
		t.Errorf("partial tree derives %q", root.String())
	}
}

// TestDeepNesting: deeply nested inputs parse or fail with an error, and
// never exhaust the stack.
func TestDeepNesting(t *testing.T) {
	g := bundled(t, "json")
	for _, depth := range []int{1000, 10000, 100000} {
		in := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		tree, err := g.Parse([]byte(in))
		if err != nil {
			if depth <= 10000 {
				t.Errorf("depth %d: %v", depth, err)
			}
			if !strings.Contains(err.Error(), "deep") {
				t.Errorf("depth %d: error %v does not say the input is too deep", depth, err)
			}
			continue
		}
		if tree.String() != in {
			t.Errorf("depth %d: tree does not derive the input", depth)
		}
	}
}
