package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// Tests of large and deeply nested inputs (issue 14, item 7).

// TestLongFlatInputs: an input that is long but shallow is not taken for
// a deep one by any parser, however many trees are asked for.
func TestLongFlatInputs(t *testing.T) {
	xml := bundled(t, "xml")
	js := bundled(t, "json")
	flatXML := []byte("<r>" + strings.Repeat("<a/>", 20000) + "</r>")
	flatJSON := []byte("[" + strings.Repeat("1,", 15000) + "1]")
	// Every x is derived two ways: 2^n trees, too large to enumerate.
	twice := mustBuild(t, "twice.grammar", `S := X* ; X := "x" | "x" ;`)
	allTrees := func(g *Graph, in []byte) ([]*Tree, error) { return g.ParseAll(in, DefaultTreeLimit) }
	tests := []struct {
		name  string
		g     *Graph
		in    []byte
		parse func(g *Graph, in []byte) ([]*Tree, error)
		trees int
	}{
		{"ambiguous, small", twice, []byte("xxx"), allTrees, 8},
		{"ambiguous, too large to enumerate", twice, bytes.Repeat([]byte("x"), 100000), allTrees, 1},
		{"xml Parse", xml, flatXML, func(g *Graph, in []byte) ([]*Tree, error) {
			tr, err := g.Parse(in)
			return []*Tree{tr}, err
		}, 1},
		{"xml ParseAll", xml, flatXML, allTrees, 1},
		{"json general, one tree", js, flatJSON, func(g *Graph, in []byte) ([]*Tree, error) { return g.parseGeneral(in, 1) }, 1},
		{"json general, all trees", js, flatJSON, func(g *Graph, in []byte) ([]*Tree, error) { return g.parseGeneral(in, DefaultTreeLimit) }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trees, err := tt.parse(tt.g, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(trees) != tt.trees {
				t.Errorf("%d trees, want %d", len(trees), tt.trees)
			}
			for _, tr := range trees {
				if tr.String() != string(tt.in) {
					t.Errorf("the tree does not derive the input")
				}
			}
		})
	}
}

// TestTooDeep: input nested deeper than MaxDepth rule expansions is
// refused with errTooDeep by every parser, without exhausting the stack.
func TestTooDeep(t *testing.T) {
	js := bundled(t, "json")
	xml := bundled(t, "xml")
	deepJSON := []byte(strings.Repeat("[", 13000) + strings.Repeat("]", 13000))
	deepXML := []byte(strings.Repeat("<a>", 26000) + strings.Repeat("</a>", 26000))
	tests := []struct {
		name  string
		parse func() error
	}{
		{"json deterministic", func() error { _, err := js.Parse(deepJSON); return err }},
		{"json general, one tree", func() error { _, err := js.parseGeneral(deepJSON, 1); return err }},
		{"json general, all trees", func() error { _, err := js.parseGeneral(deepJSON, DefaultTreeLimit); return err }},
		{"json lazy", func() error { _, err := js.ParseLazy(deepJSON, DefaultTreeLimit); return err }},
		{"xml all trees", func() error { _, err := xml.ParseAll(deepXML, DefaultTreeLimit); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.parse(); !errors.Is(err, errTooDeep) {
				t.Errorf("got %v, want %v", err, errTooDeep)
			}
		})
	}
}

// TestOutlineDepthMarker: past MaxIndent levels the outline shows the
// depth as a number instead of indenting further, so its size is linear
// in the tree's.
func TestOutlineDepthMarker(t *testing.T) {
	g := mustBuild(t, "parens.grammar", `P := "(" P ")" | "x" ;`)
	for _, depth := range []int{3, MaxIndent + 2, 3000} {
		t.Run(fmt.Sprint(depth), func(t *testing.T) {
			in := strings.Repeat("(", depth) + "x" + strings.Repeat(")", depth)
			tree, err := g.Parse([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := tree.WriteText(&b, true); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			// Only Refs have symbolic children, so a symbolic node's
			// outline depth is the number of Refs above it.
			var depths []int
			tree.Walk(func(n *Tree, d int) bool {
				if n.Node.Kind.Symbolic() {
					depths = append(depths, d)
				}
				return true
			})
			if len(lines) != len(depths) || len(lines) != 3*depth+1 {
				t.Fatalf("%d lines, want %d", len(lines), 3*depth+1)
			}
			for i, line := range lines {
				d := depths[i]
				var want string
				if d < MaxIndent {
					want = strings.Repeat("  ", d)
				} else {
					want = fmt.Sprintf("·[%d] ", d)
				}
				if !strings.HasPrefix(line, want) || strings.HasPrefix(line, want+" ") {
					t.Fatalf("line %d is %q; want it to start with %q", i, line, want)
				}
			}
			if limit := 32*len(in) + 6*MaxIndent*MaxIndent; b.Len() > limit {
				t.Errorf("outline of %d bytes, want at most %d", b.Len(), limit)
			}
		})
	}
}

// maxWriter records the largest single write.
type maxWriter struct {
	n, largest int
}

func (w *maxWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	w.largest = max(w.largest, len(p))
	return len(p), nil
}

// TestWritersStream: the text, DOT and JSON writers write as they walk,
// never holding the whole output.
func TestWritersStream(t *testing.T) {
	g := bundled(t, "json")
	tree, err := g.Parse(realisticJSON(256<<10, 7))
	if err != nil {
		t.Fatal(err)
	}
	const limit = 64 << 10
	for _, tt := range []struct {
		name  string
		write func(w *maxWriter) error
	}{
		{"text", func(w *maxWriter) error { return tree.WriteText(w, true) }},
		{"full text", func(w *maxWriter) error { return tree.WriteText(w, false) }},
		{"dot", func(w *maxWriter) error { return tree.WriteDOT(w) }},
		{"json", func(w *maxWriter) error { return tree.WriteJSON(w) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w maxWriter
			if err := tt.write(&w); err != nil {
				t.Fatal(err)
			}
			if w.n < 1<<20 || w.largest > limit {
				t.Errorf("wrote %d bytes, the largest write %d; want writes of at most %d", w.n, w.largest, limit)
			}
		})
	}
}

// refJSON is the JSON form trees had when encoding/json wrote them; the
// iterative writer must write the same bytes.
type refJSON struct {
	ID       int        `json:"id"`
	Kind     string     `json:"kind"`
	Label    string     `json:"label"`
	Text     *string    `json:"text,omitempty"`
	Children []*refJSON `json:"children,omitempty"`
}

func toRefJSON(t *Tree) *refJSON {
	if t == nil {
		return nil
	}
	j := &refJSON{ID: t.Node.ID, Kind: t.Node.Kind.String(), Label: t.Node.Label()}
	if t.Node.Kind == KindLit || t.Node.Kind == KindRegex {
		v := t.Value
		j.Text = &v
	}
	for _, c := range t.Children {
		j.Children = append(j.Children, toRefJSON(c))
	}
	return j
}

// TestWriteJSONFormat: WriteJSON and MarshalJSON write what encoding/json
// wrote before, for random trees of every bundled grammar (their labels
// and texts hold quotes, backslashes, control and non-ASCII characters),
// for trees with open slots, and for text that is not UTF-8.
func TestWriteJSONFormat(t *testing.T) {
	var trees []*Tree
	for _, name := range bundledNames(t) {
		g := bundled(t, name)
		r := rand.New(rand.NewPCG(3, uint64(len(name))))
		for range 20 {
			trees = append(trees, randomTree(g, r, 8))
		}
	}
	expr := bundled(t, "expr")
	lit := &Tree{Node: expr.Nodes[10], Value: "+"}
	trees = append(trees,
		&Tree{Node: expr.Nodes[0], Children: []*Tree{nil}},
		&Tree{Node: expr.Nodes[0], Children: []*Tree{{Node: expr.Nodes[3], Children: []*Tree{nil, lit, nil}}}},
		&Tree{Node: expr.Nodes[10], Value: "bad \xff utf-8 \u2028 <&> \x00\x1f\t"},
	)
	for i, tr := range trees {
		want, err := json.Marshal(toRefJSON(tr))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := tr.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Fatalf("tree %d: WriteJSON wrote\n%s\nwant\n%s", i, b.Bytes(), want)
		}
		got, err := json.Marshal(tr)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("tree %d: json.Marshal gave %s, %v", i, got, err)
		}
	}
}

// BenchmarkLargeParseMemory measures what parsing one large input and
// writing its outline allocates, per input byte ("B/input-byte"): with
// the tree built (Parse, WriteText) and without it (ParseLazy,
// Parsed.Visit), for a wide JSON of 4 MB and a deep one of 12,000
// nested arrays, and with the general parser for a wide XML of 600 KB.
// docs/limits.md quotes the results.
func BenchmarkLargeParseMemory(b *testing.B) {
	var xml strings.Builder
	xml.WriteString("<r>")
	for i := 0; xml.Len() < 600<<10; i++ {
		fmt.Fprintf(&xml, "<item id=\"%d\" name=\"n%d\">text %d &amp; more<b/></item>\n", i, i, i)
	}
	xml.WriteString("</r>")
	inputs := []struct {
		name, grammar string
		in            []byte
	}{
		{"json-wide-4MB", "json", realisticJSON(4<<20, 9)},
		{"json-deep-12000", "json", []byte(strings.Repeat("[", 12000) + strings.Repeat("]", 12000))},
		{"xml-wide-600KB", "xml", []byte(xml.String())},
	}
	for _, in := range inputs {
		g := bundled(b, in.grammar)
		b.Run(in.name+"/tree", func(b *testing.B) {
			measureAlloc(b, len(in.in), func() {
				t, err := g.Parse(in.in)
				if err != nil {
					b.Fatal(err)
				}
				if err := t.WriteText(io.Discard, true); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(in.name+"/lazy", func(b *testing.B) {
			measureAlloc(b, len(in.in), func() {
				p, err := g.ParseLazy(in.in, 1)
				if err != nil {
					b.Fatal(err)
				}
				tw := NewTextWriter(io.Discard, true)
				p.Visit(0, tw)
				if err := tw.Flush(); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// measureAlloc runs f b.N times and reports the bytes it allocated per
// run and input byte.
func measureAlloc(b *testing.B, size int, f func()) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		f()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(size), "B/input-byte")
}
