package grammar

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// eventLog is a Visitor that writes down what it is told, node by node.
type eventLog struct{ b strings.Builder }

func (l *eventLog) Enter(n *Node, text string) {
	if n == nil {
		l.b.WriteString("(open\n")
		return
	}
	fmt.Fprintf(&l.b, "(%d %q\n", n.ID, text)
}

func (l *eventLog) Leave(n *Node) {
	if n == nil {
		l.b.WriteString(")open\n")
		return
	}
	fmt.Fprintf(&l.b, ")%d\n", n.ID)
}

func visited(p *Parsed, i int) string {
	var l eventLog
	p.Visit(i, &l)
	return l.b.String()
}

// parserInputs returns generated inputs of g and mutations of them (most
// of which are outside the language), of every size up to 20,000 bytes,
// in an order that mixes long and short ones.
func parserInputs(g *Graph, seed uint64, n int) [][]byte {
	r := rand.New(rand.NewPCG(seed, 3))
	var out [][]byte
	for i := 0; i < n; i++ {
		in := []byte(randomTree(g, r, 4+i%9).String())
		if i%3 == 2 && len(in) > 0 {
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
		if len(in) <= 20000 {
			out = append(out, in)
		}
	}
	return out
}

// TestParserMatchesGraph holds one reused Parser, over many inputs of
// every bundled grammar in turn, to what the Graph's own parsers give:
// Parser.Parse the tree of Graph.Parse (node by node, values included)
// and its error; Parser.ParseLazy the number of trees of Graph.ParseLazy
// and, tree by tree, the same visited nodes and texts (replayed from the
// record where Graph.ParseLazy parses again) and the same built trees.
func TestParserMatchesGraph(t *testing.T) {
	inputs := 200
	if testing.Short() {
		inputs = 50
	}
	p := (*Parser)(nil)
	for _, name := range bundledNames(t) {
		g := bundled(t, name)
		// One parser across grammars would not do (it belongs to one
		// graph); across this grammar's inputs it is reused throughout.
		p = g.NewParser()
		t.Run(name, func(t *testing.T) {
			recorded := 0
			for _, in := range parserInputs(g, uint64(len(name)), inputs) {
				want, werr := g.Parse(in)
				got, gerr := p.Parse(in)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) {
					t.Fatalf("input %q: Parser.Parse error %v, Graph.Parse %v", in, gerr, werr)
				}
				if werr == nil {
					if d := sameTree(got, want, ""); d != "" {
						t.Fatalf("input %q: Parser.Parse's tree differs at %s", in, d)
					}
				}
				lazy, lerr := g.ParseLazy(in, 3)
				rec, rerr := p.ParseLazy(in, 3)
				if fmt.Sprint(lerr) != fmt.Sprint(rerr) {
					t.Fatalf("input %q: Parser.ParseLazy error %v, Graph.ParseLazy %v", in, rerr, lerr)
				}
				if lerr != nil {
					continue
				}
				if rec.rec != nil {
					recorded++
				}
				if rec.Len() != lazy.Len() {
					t.Fatalf("input %q: %d trees, want %d", in, rec.Len(), lazy.Len())
				}
				if rec.Input() != lazy.Input() {
					t.Fatalf("input %q: Input %q", in, rec.Input())
				}
				wantTrees, err := lazy.Trees()
				if err != nil {
					t.Fatal(err)
				}
				gotTrees, err := rec.Trees()
				if err != nil {
					t.Fatal(err)
				}
				for i := range rec.Len() {
					if a, b := visited(rec, i), visited(lazy, i); a != b {
						t.Fatalf("input %q, tree %d: visited\n%s\nwant\n%s", in, i, a, b)
					}
					// Twice: a replay leaves the record as it was.
					if a, b := visited(rec, i), visited(lazy, i); a != b {
						t.Fatalf("input %q, tree %d: visited again\n%s\nwant\n%s", in, i, a, b)
					}
					if d := sameTree(gotTrees[i], wantTrees[i], ""); d != "" {
						t.Fatalf("input %q, tree %d: Parsed.Trees differs at %s", in, i, d)
					}
					var tl eventLog
					wantTrees[i].Visit(&tl)
					if a := visited(rec, i); a != tl.b.String() {
						t.Fatalf("input %q, tree %d: visited differs from the tree's Visit", in, i)
					}
				}
			}
			t.Logf("%s: %d inputs recorded", name, recorded)
		})
	}
}

// TestParserReuse parses a long input, then a short one, with one
// parser, and the short one with a fresh parser: nothing of the first
// parse may show in the second. It also checks that a tree's values
// outlive the parser's next call, which reuses the tree's nodes.
func TestParserReuse(t *testing.T) {
	tests := []struct {
		grammar     string
		long, short string
	}{
		{"json", `{"a": [1, 2, {"b": "c\n"}], "d": [true, false, null, "<&>"], "e": -1.5e+300}`, `[7]`},
		{"json", `[[[[[[[[[[1]]]]]]]]]]`, `"x"`},
		{"xml", `<a x="1"><b>t&amp;<![CDATA[c]]><!-- c --></b><c/></a>`, `<a/>`},
		{"csv", "a,\"b\"\"c\",d\r\n1,2,3\n", "x\n"},
		{"expr", "x+42*(y--3)/z", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.grammar, func(t *testing.T) {
			g := bundled(t, tt.grammar)
			reused := g.NewParser()
			long, err := reused.Parse([]byte(tt.long))
			if err != nil {
				t.Fatal(err)
			}
			var values []string
			long.Walk(func(n *Tree, _ int) bool {
				values = append(values, n.Value)
				return true
			})
			if _, err := reused.ParseLazy([]byte(tt.long), 2); err != nil {
				t.Fatal(err)
			}
			// The short input, into a copy that is then overwritten:
			// a tree's values must not share the caller's bytes.
			in := []byte(tt.short)
			got, err := reused.Parse(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := g.NewParser().Parse([]byte(tt.short))
			if err != nil {
				t.Fatal(err)
			}
			if d := sameTree(got, want, ""); d != "" {
				t.Fatalf("after a long input, the short one's tree differs at %s", d)
			}
			if got.String() != tt.short {
				t.Fatalf("tree derives %q", got.String())
			}
			for i := range in {
				in[i] = '#'
			}
			if got.String() != tt.short {
				t.Fatalf("after its input changed, the tree derives %q", got.String())
			}
			// The long tree's nodes are reused, but the values read
			// off it before are strings of their own.
			if strings.Join(values, "") != strings.Join(valuesOf(t, g, tt.long), "") {
				t.Fatalf("the long input's values changed after the parser's next call")
			}
			lazyLong, err := reused.ParseLazy([]byte(tt.long), 2)
			if err != nil {
				t.Fatal(err)
			}
			longEvents := visited(lazyLong, 0)
			short, err := reused.ParseLazy([]byte(tt.short), 2)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := g.NewParser().ParseLazy([]byte(tt.short), 2)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := visited(short, 0), visited(fresh, 0); a != b {
				t.Fatalf("after a long input, the short one visits\n%s\nwant\n%s", a, b)
			}
			if a := visited(short, 0); a == longEvents {
				t.Fatalf("the short input visits the long one's nodes")
			}
		})
	}
}

func valuesOf(t *testing.T, g *Graph, in string) []string {
	tree, err := g.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	tree.Walk(func(n *Tree, _ int) bool {
		values = append(values, n.Value)
		return true
	})
	return values
}

// TestRecordFull: a parse with more nodes than the record may hold is
// finished as a check, and its Parsed visits by parsing again, as
// Graph.ParseLazy's does, and builds its tree as Graph.Parse does;
// Parser.Parse refuses it (the tree would be too large to build).
func TestRecordFull(t *testing.T) {
	g := bundled(t, "json")
	in := []byte(`{"a": [1, 2, {"b": "c"}], "d": "e"}`)
	want, err := g.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	var tl eventLog
	want.Visit(&tl)
	for _, limit := range []int{1, 10, 40, 1000} {
		p := g.NewParser()
		p.recMax = limit
		parsed, err := p.ParseLazy(in, 1)
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		if full := parsed.rec == nil; full != (limit < 100) {
			t.Fatalf("limit %d: record full %v", limit, full)
		}
		if a := visited(parsed, 0); a != tl.b.String() {
			t.Fatalf("limit %d: visits\n%s\nwant\n%s", limit, a, tl.b.String())
		}
		trees, err := parsed.Trees()
		if err != nil {
			t.Fatal(err)
		}
		if d := sameTree(trees[0], want, ""); d != "" {
			t.Fatalf("limit %d: Trees differs at %s", limit, d)
		}
		tree, err := p.Parse(in)
		if limit < 100 {
			if err != errTooLarge {
				t.Fatalf("limit %d: Parse gives %v, want errTooLarge", limit, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := sameTree(tree, want, ""); d != "" {
			t.Fatalf("limit %d: Parse's tree differs at %s", limit, d)
		}
	}
}

// TestParserDeep parses inputs nested deeper than a recursive tree
// builder or replay could take, and too deep to parse at all.
func TestParserDeep(t *testing.T) {
	g := bundled(t, "json")
	p := g.NewParser()
	p.recMax = 1 << 30 // record deep trees too
	for _, depth := range []int{10000, 100000} {
		in := []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))
		tree, err := p.Parse(in)
		lazy, lerr := p.ParseLazy(in, 1)
		if depth > 10000 {
			if err == nil || lerr == nil || !strings.Contains(err.Error(), "deep") || err.Error() != lerr.Error() {
				t.Fatalf("depth %d: errors %v and %v, want too deep", depth, err, lerr)
			}
			continue
		}
		if err != nil || lerr != nil {
			t.Fatalf("depth %d: %v, %v", depth, err, lerr)
		}
		if tree.String() != string(in) {
			t.Fatalf("depth %d: the tree does not derive the input", depth)
		}
		if lazy.rec == nil {
			t.Fatalf("depth %d: not recorded", depth)
		}
		var a, b eventLog
		lazy.Visit(0, &a)
		g.visitDeterministic(in, string(in), &b)
		if a.b.String() != b.b.String() {
			t.Fatalf("depth %d: replay differs from a visiting parse", depth)
		}
	}
}

// TestGraphParseConcurrent parses with one graph from several goroutines
// at once: the graph's pooled parsers must not mix their inputs (run
// with -race to see the pool's use checked too).
func TestGraphParseConcurrent(t *testing.T) {
	g := bundled(t, "json")
	ins := parserInputs(g, 9, 120)
	want := make([]string, len(ins))
	for i, in := range ins {
		if p, err := g.ParseLazy(in, 1); err == nil {
			want[i] = visited(p, 0)
		} else {
			want[i] = err.Error()
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, in := range ins {
				got := ""
				if p, err := g.ParseLazy(in, 1); err == nil {
					got = visited(p, 0)
				} else {
					got = err.Error()
				}
				if got != want[i] {
					errs <- fmt.Sprintf("input %q: concurrent parse differs", in)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestParseLazyLarge: Parser.ParseLazy records an input of up to
// lazyRecordMax nodes and no larger one, whose Parsed visits by parsing
// again, with the same nodes.
func TestParseLazyLarge(t *testing.T) {
	g := bundled(t, "json")
	p := g.NewParser()
	for _, n := range []int{10, 100000} {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"a": [1, "x"]}`)
		}
		b.WriteString("]")
		in := []byte(b.String())
		parsed, err := p.ParseLazy(in, 1)
		if err != nil {
			t.Fatal(err)
		}
		if recorded := parsed.rec != nil; recorded != (n == 10) {
			t.Fatalf("%d elements (%d bytes): recorded %v", n, len(in), recorded)
		}
		if cap(p.det.rec) > 2*lazyRecordMax {
			t.Fatalf("%d elements: the parser keeps a record of %d nodes", n, cap(p.det.rec))
		}
		var a, want eventLog
		parsed.Visit(0, &a)
		g.visitDeterministic(in, string(in), &want)
		if a.b.String() != want.b.String() {
			t.Fatalf("%d elements: visits differ", n)
		}
	}
}
