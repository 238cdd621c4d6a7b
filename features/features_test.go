package features_test

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

var bundled = []string{"csv", "expr", "exprlang", "govaluate", "ini", "json", "markdown", "toml", "url", "xml"}

func TestEnumerate(t *testing.T) {
	for _, name := range bundled {
		g := mustGrammar(t, name)
		for k := 1; k <= 4; k++ {
			all, err := features.All(g, k)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(all)) != features.Count(g, k).Int64() {
				t.Errorf("%s: %d %d-paths listed, %v counted", name, len(all), k, features.Count(g, k))
			}
			seen := map[string]bool{}
			for i, p := range all {
				if len(p) != k || seen[p.Key()] {
					t.Fatalf("%s: bad or repeated path %v", name, p)
				}
				seen[p.Key()] = true
				if i > 0 && slices.Compare(all[i-1], p) >= 0 {
					t.Fatalf("%s: paths not in increasing order at %d", name, i)
				}
			}
		}
	}
	g := mustGrammar(t, "expr")
	if _, err := features.All(g, 40); !errors.Is(err, features.ErrTooMany) {
		t.Errorf("All(expr, 40) error %v, want ErrTooMany", err)
	}
	n := 0
	features.Enumerate(g, 40, func(features.Path) bool { n++; return n < 10 })
	if n != 10 {
		t.Errorf("lazy enumeration did not stop: %d", n)
	}
}

// bruteForce lists a tree's k-paths by trying every downward path.
func bruteForce(t *grammar.Tree, k int) []string {
	set := map[string]bool{}
	var from func(n *grammar.Tree, path []int)
	from = func(n *grammar.Tree, path []int) {
		if n.Node.Kind.Symbolic() {
			path = append(append([]int(nil), path...), n.Node.ID)
			if len(path) == k {
				set[features.Path(path).Key()] = true
				return
			}
		}
		for _, c := range n.Children {
			from(c, path)
		}
	}
	var starts func(n *grammar.Tree)
	starts = func(n *grammar.Tree) {
		if n.Node.Kind.Symbolic() {
			from(n, nil)
		}
		for _, c := range n.Children {
			starts(c)
		}
	}
	starts(t)
	var out []string
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func TestExtract(t *testing.T) {
	inputs := map[string]string{
		"json": `{"a": [1, {"b": null}], "c": "x\ny"}`,
		"expr": "(x+42)*-y/3",
		"url":  "http://u@h:8/p/q?x#f",
		"xml":  "<a b='1'><c/>t</a>",
	}
	for name, in := range inputs {
		g := mustGrammar(t, name)
		tree, err := g.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		all := features.Extract(tree, 5)
		for k := 1; k <= 5; k++ {
			var got []string
			for _, p := range all[k-1] {
				got = append(got, p.Key())
			}
			slices.Sort(got)
			if want := bruteForce(tree, k); !slices.Equal(got, want) {
				t.Errorf("%s k=%d: Extract found %d paths, brute force %d", name, k, len(got), len(want))
			}
		}
	}
}

func TestVocabularyAndMatrix(t *testing.T) {
	g := mustGrammar(t, "json")
	v := features.NewVocabulary(g, features.Options{MaxK: 3})
	m := features.NewMatrix()
	docs := []string{`[1]`, `{"a": true}`, `[1, 2]`, `"s"`}
	var rows [][]int
	for _, d := range docs {
		tree, err := g.Parse([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		ids := v.Add(tree)
		rows = append(rows, ids)
		m.AddRow(ids)
		// The ids are exactly the tree's k-paths for k = 1..3.
		want := 0
		for _, ps := range features.Extract(tree, 3) {
			want += len(ps)
			for _, p := range ps {
				id, ok := v.ID(features.Feature{Path: p})
				if !ok || !slices.Contains(ids, id) || slices.Compare(v.Feature(id).Path, p) != 0 {
					t.Fatalf("%s: path %s not interned as one of its ids", d, p.Format(g))
				}
			}
		}
		if len(ids) != want || !slices.IsSorted(ids) {
			t.Fatalf("%s: %d ids, want %d sorted", d, len(ids), want)
		}
	}
	// Ids are dense and a repeated document adds nothing.
	n := v.Len()
	tree, _ := g.Parse([]byte(`[1]`))
	if ids := v.Add(tree); !slices.Equal(ids, rows[0]) || v.Len() != n {
		t.Errorf("re-adding [1] changed the vocabulary")
	}
	// Features never adds: a new shape yields only known ids.
	tree, _ = g.Parse([]byte(`{"k": [null]}`))
	for _, id := range v.Features(tree) {
		if id >= n {
			t.Errorf("Features returned a new id %d", id)
		}
	}
	if v.Len() != n {
		t.Errorf("Features grew the vocabulary")
	}
	cols := m.Columns(v.Len())
	if len(cols) != v.Len() || m.Rows() != len(docs) {
		t.Fatalf("%d columns, %d rows", len(cols), m.Rows())
	}
	for f := range cols {
		for r := range docs {
			if cols[f].Has(r) != slices.Contains(rows[r], f) {
				t.Fatalf("column %d row %d disagrees with the row", f, r)
			}
		}
	}
	var all features.Bitset = features.NewBitset(len(docs))
	for r := range docs {
		all.Set(r)
	}
	root, _ := v.ID(features.Feature{Path: features.Path{0}})
	if cols[root].Count() != len(docs) || cols[root].AndCount(all) != len(docs) {
		t.Errorf("the root 1-path is not in every row")
	}
}

func TestCoverage(t *testing.T) {
	g := mustGrammar(t, "expr")
	c := features.NewCoverage(g, 3)
	for _, in := range []string{"x+42", "(y)"} {
		tree, err := g.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		c.Add(tree)
	}
	if c.Inputs() != 2 {
		t.Errorf("inputs %d", c.Inputs())
	}
	for k := 1; k <= 3; k++ {
		missing, err := c.Missing(k)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(missing)+c.Covered(k)) != c.Total(k).Int64() {
			t.Errorf("k=%d: %d missing + %d covered != %v", k, len(missing), c.Covered(k), c.Total(k))
		}
		for _, p := range missing {
			if c.Has(p) {
				t.Fatalf("missing path %v is covered", p)
			}
		}
		if f := c.Fraction(k); f <= 0 || f >= 1 {
			t.Errorf("k=%d coverage %v", k, f)
		}
	}
	if c.Covered(2) != len(unionKeys(t, g, 2, "x+42", "(y)")) {
		t.Errorf("2-path coverage is not the union of the inputs' 2-paths")
	}
}

func unionKeys(t *testing.T, g *grammar.Graph, k int, inputs ...string) map[string]bool {
	set := map[string]bool{}
	for _, in := range inputs {
		tree, _ := g.Parse([]byte(in))
		for _, p := range features.Of(tree, k) {
			set[p.Key()] = true
		}
	}
	return set
}

func TestPattern(t *testing.T) {
	expr := mustGrammar(t, "expr")
	json := mustGrammar(t, "json")
	tests := []struct {
		g    *grammar.Graph
		path features.Path
		want string
	}{
		{expr, features.Path{15, 36, 11}, "MultExpr (* | / | %) ( AddExpr - MultExpr )"},
		{expr, features.Path{39}, "x"},
		{expr, features.Path{22, 42, 48}, "4+"},
		{json, features.Path{6, 36, 89}, "{ WS (Member (, WS Member)*)? }"},
	}
	for _, tt := range tests {
		if got := features.Pattern(tt.g, tt.path); got != tt.want {
			t.Errorf("Pattern(%s) = %q, want %q", tt.path.Format(tt.g), got, tt.want)
		}
	}
	lits := []features.Literal{{Path: features.Path{15, 36, 11}, Present: true}, {Path: features.Path{39}}}
	if got := features.Conjunction(expr, lits, false); got != "∃ MultExpr (* | / | %) ( AddExpr - MultExpr )\n∄ x" {
		t.Errorf("Conjunction = %q", got)
	}
	if got := features.Conjunction(expr, lits, true); !strings.HasPrefix(got, "has MultExpr") || !strings.HasSuffix(got, "\nnot x") {
		t.Errorf("ASCII conjunction = %q", got)
	}
}

// TestPatternsReadable renders every 1-, 2- and 3-path of every bundled
// grammar: no node ids, no empty text, the last element's text present,
// grouping parentheses balanced (literal parentheses aside).
func TestPatternsReadable(t *testing.T) {
	ids := regexp.MustCompile(`\b[A-Za-z]+_[0-9]+\b|"_[0-9]+`)
	for _, name := range bundled {
		g := mustGrammar(t, name)
		for k := 1; k <= 3; k++ {
			features.Enumerate(g, k, func(p features.Path) bool {
				text := features.Pattern(g, p)
				last := g.Node(p[len(p)-1])
				lastText := last.Name
				if last.Kind == grammar.KindRegex {
					lastText = grammar.QuoteRegex(last.Name)
				}
				switch {
				case text == "":
					t.Errorf("%s: empty pattern for %s", name, p.Format(g))
				case ids.MatchString(text):
					t.Errorf("%s: pattern %q of %s shows node ids", name, text, p.Format(g))
				case last.Kind != grammar.KindLit && !strings.Contains(text, lastText):
					t.Errorf("%s: pattern %q of %s lacks %q", name, text, p.Format(g), lastText)
				}
				return true
			})
		}
	}
}
