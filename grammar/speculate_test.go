package grammar

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sameTree reports where two trees differ ("" if nowhere): nodes, values
// and children.
func sameTree(a, b *Tree, path string) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return path + ": one tree is nil"
		}
		return ""
	case a.Node != b.Node:
		return fmt.Sprintf("%s: node %s, want %s", path, a.Node.Label(), b.Node.Label())
	case a.Value != b.Value:
		return fmt.Sprintf("%s: value %q, want %q", path, a.Value, b.Value)
	case len(a.Children) != len(b.Children):
		return fmt.Sprintf("%s/%s: %d children, want %d", path, a.Node.Label(), len(a.Children), len(b.Children))
	}
	for i := range a.Children {
		if d := sameTree(a.Children[i], b.Children[i], path+"/"+a.Node.Label()); d != "" {
			return d
		}
	}
	return ""
}

// TestDeterministicMatchesGeneral parses many generated inputs of every
// bundled grammar, and mutations of them, with the deterministic parser
// (which decides lookahead conflicts by speculation) and with the general
// parser. Wherever the deterministic parser gives a tree, the input must
// have exactly that one tree by the general parser; wherever it refuses
// an input, Parse still gives the general parser's first tree. Checking
// without building must agree with building.
func TestDeterministicMatchesGeneral(t *testing.T) {
	inputs := 300
	if testing.Short() {
		inputs = 60
	}
	for _, name := range bundledNames(t) {
		g := bundled(t, name)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(17, uint64(len(name))))
			det := 0
			for i := 0; i < inputs; i++ {
				in := []byte(randomTree(g, r, 6+i%6).String())
				if i%3 == 2 && len(in) > 0 {
					// A mutation: most are outside the language.
					k := r.IntN(len(in))
					switch r.IntN(3) {
					case 0:
						in = append(in[:k:k], in[k+1:]...)
					case 1:
						in = append(in[:k:k], append([]byte{in[r.IntN(len(in))]}, in[k:]...)...)
					default:
						in = bytes.Clone(in)
						in[k] = in[r.IntN(len(in))]
					}
				}
				if len(in) > 20000 {
					continue
				}
				dt, derr := g.parseDeterministicContext(context.Background(), in)
				ok, cerr := g.checkDeterministicContext(context.Background(), in)
				if (dt != nil) != ok || (derr == nil) != (cerr == nil) {
					t.Fatalf("input %q: building gives %v, %v; checking %v, %v", in, dt != nil, derr, ok, cerr)
				}
				if derr != nil {
					continue
				}
				trees, err := g.parseGeneral(in, 2)
				if dt == nil {
					continue
				}
				det++
				if err != nil {
					t.Fatalf("input %q: the deterministic parser gives a tree, the general parser %v", in, err)
				}
				if len(trees) != 1 {
					t.Fatalf("input %q: the deterministic parser gives a tree, the general parser %d", in, len(trees))
				}
				if d := sameTree(dt, trees[0], ""); d != "" {
					t.Fatalf("input %q: trees differ at %s", in, d)
				}
				var a, b strings.Builder
				if err := dt.WriteText(&a, true); err != nil {
					t.Fatal(err)
				}
				p, err := g.ParseLazy(in, DefaultTreeLimit)
				if err != nil {
					t.Fatal(err)
				}
				tw := NewTextWriter(&b, true)
				p.Visit(0, tw)
				if err := tw.Flush(); err != nil {
					t.Fatal(err)
				}
				if a.String() != b.String() {
					t.Fatalf("input %q: the visited outline differs from the tree's", in)
				}
			}
			t.Logf("%s: %d of %d inputs parsed deterministically", name, det, inputs)
		})
	}
}

// TestRegexAmongMatches checks how the deterministic parser matches a
// regex whose longest match need not be the viable one (parseRegexAmong):
// where exactly one of its matches can be followed by the literal after
// it (or is its only match), it takes that one; where several can, it
// leaves the input to the general parser; either way the tree is the
// general parser's one tree.
func TestRegexAmongMatches(t *testing.T) {
	tests := []struct {
		grammar, input string
		det, ok        bool // parsed deterministically; in the language
	}{
		{`S := "<!--" /([^-]|-[^-])*/ "-->" ;`, "<!-- a - b -->", true, true},
		{`S := "<!--" /([^-]|-[^-])*/ "-->" ;`, "<!---->", true, true},
		{`S := "<!--" /([^-]|-[^-])*/ "-->" ;`, "<!-- a -- b -->", false, false},
		{`S := "[" /([^\]]|\][^\]]|\]\][^>])*/ "]]>" ;`, "[x]y]]z]]>", true, true},
		{`S := C+ ; C := "(" /([^)]|\)[^;])*/ ");" ;`, "(a);(b);(c) d);", true, true},
		// The literal follows the Cat the regex ends, and an optional
		// part the regex is in.
		{`S := "<" (N (" " /([^?]|\?[^>])*/)?) "?>" ; N := /[a-z]+/ ;`, "<pi x ? y?>", true, true},
		// Its only match, wherever it is.
		{`S := /[a-z]+/ /[0-9]/ | /[a-z]+/ "." ;`, "ab.", true, true},
		// Through a rule and an alternative the literal still follows.
		{`S := "'" (Word | Num) "'" ; Word := /[a-z']+/ ; Num := /[0-9]+/ ;`, "'its'", true, true},
		{`S := "'" (Word | Num) "'" ; Word := /[a-z']+/ ; Num := /[0-9]+/ ;`, "'it's'", false, true},
		// Two matches are followed by "a": the general parser decides.
		{`S := /a+/ "a" ;`, "aaa", false, true},
		{`S := /a+/ "a" "b" ;`, "aaab", false, true},
		// No match is followed by the literal.
		{`S := /[a-z]+/ "." ;`, "abc", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.grammar+" "+tt.input, func(t *testing.T) {
			src, err := Parse("t", []byte(tt.grammar))
			if err != nil {
				t.Fatal(err)
			}
			g, err := Build(src)
			if err != nil {
				t.Fatal(err)
			}
			dt, err := g.parseDeterministic([]byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			if ok, _ := g.checkDeterministic([]byte(tt.input)); ok != (dt != nil) {
				t.Errorf("checking says %v, building %v", ok, dt != nil)
			}
			if (dt != nil) != tt.det {
				t.Errorf("deterministic tree: %v, want %v", dt != nil, tt.det)
			}
			trees, err := g.parseGeneral([]byte(tt.input), 2)
			if (err == nil) != tt.ok {
				t.Fatalf("general parser: %v, want in the language %v", err, tt.ok)
			}
			if dt != nil {
				if len(trees) != 1 {
					t.Fatalf("the general parser finds %d trees", len(trees))
				}
				if d := sameTree(dt, trees[0], ""); d != "" {
					t.Errorf("trees differ at %s", d)
				}
			}
		})
	}
}

// TestXMLDeterministic checks that the bundled XML grammar parses a
// realistic document (comments, CDATA, references in attributes and
// text, empty and nested elements) without the general parser.
func TestXMLDeterministic(t *testing.T) {
	g := bundled(t, "xml")
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<!-- a - catalog -->\n<catalog version=\"2\">\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "  <item id=\"%d\" kind='a &amp; b' note=\"x&#169;y&#x2014;\">\n", i)
		b.WriteString("    <name>delta &amp; gamma</name><empty/><empty a='1' />\n")
		b.WriteString("    <code><![CDATA[if a < b && c]> d { x[y] = ]] }]]></code>\n")
		b.WriteString("    <?pi some ? data?><!-- note - yes -->\n  </item>\n")
	}
	b.WriteString("</catalog>\n")
	in := []byte(b.String())
	if dt, err := g.parseDeterministic(in); dt == nil || err != nil {
		t.Fatalf("the deterministic parser refuses the document: %v", err)
	}
}

// TestPrefixes checks the text every derivation of a node is taken to
// start with (ll1.prefix), which lets a speculation fail without parsing:
// every subtree of many generated trees of every bundled grammar, and of
// a left-recursive grammar, must start with its node's prefix.
func TestPrefixes(t *testing.T) {
	graphs := map[string]*Graph{}
	for _, name := range bundledNames(t) {
		graphs[name] = bundled(t, name)
	}
	src, err := Parse("leftrec", []byte(`S := S "+" T | T ; T := "(" S ")" | "x" "y" | "x" "z" ;`))
	if err != nil {
		t.Fatal(err)
	}
	if graphs["leftrec"], err = Build(src); err != nil {
		t.Fatal(err)
	}
	for name, g := range graphs {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(len(name))))
			nonEmpty := 0
			for _, p := range g.ll.prefix {
				if p != "" {
					nonEmpty++
				}
			}
			if nonEmpty == 0 {
				t.Fatal("no node has a prefix")
			}
			for i := 0; i < 100; i++ {
				randomTree(g, r, 4+i%6).Walk(func(n *Tree, _ int) bool {
					if s, pre := n.String(), g.ll.prefix[n.Node.ID]; !strings.HasPrefix(s, pre) {
						t.Fatalf("%s derives %q, which does not start with its prefix %q", n.Node, s, pre)
					}
					return true
				})
			}
		})
	}
}
