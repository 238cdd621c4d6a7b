package features_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// listGrammar is a small list language whose features of every kind can
// be written down by hand.
const listGrammar = `
List := Item ("," Item)* ;
Item := "@"? Name ("=" Num)? ;
Name := /[a-z][a-z0-9-]*/ ;
Num := /[0-9]+/ ;
`

func buildGrammar(t testing.TB, src string) *grammar.Graph {
	t.Helper()
	ast, err := grammar.Parse("test.grammar", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func parseAll(t testing.TB, g *grammar.Graph, inputs ...string) [][]*grammar.Tree {
	t.Helper()
	var out [][]*grammar.Tree
	for _, in := range inputs {
		trees, err := g.ParseAll([]byte(in), grammar.DefaultTreeLimit)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		out = append(out, trees)
	}
	return out
}

func TestParseKinds(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"kpath", "kpath", ""},
		{"", "kpath", ""},
		{"sibling", "kpath,sibling", ""},
		{"count, value ,kpath", "kpath,value,count", ""},
		{"all", "kpath,sibling,value,class,length,count,number,relation,match,adjacent,clause", ""},
		{"relation,match", "kpath,relation,match", ""},
		{"kpath,siblings", "", `unknown feature kind "siblings"`},
	}
	for _, tt := range tests {
		k, err := features.ParseKinds(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseKinds(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || k.String() != tt.want {
			t.Errorf("ParseKinds(%q) = %v, %v; want %s", tt.in, k, err, tt.want)
		}
	}
}

// describe lists an input's features of one kind, as explanations show them.
func describe(v *features.Vocabulary, ids []int, kind features.Kind) []string {
	var out []string
	for _, id := range ids {
		if f := v.Feature(id); f.Kind == kind {
			out = append(out, f.Describe(v.Graph()))
		}
	}
	slices.Sort(out)
	return out
}

// TestKindsOnHandWrittenInputs pins every kind's features of hand-written
// inputs, after fitting a vocabulary on a small corpus.
func TestKindsOnHandWrittenInputs(t *testing.T) {
	g := buildGrammar(t, listGrammar)
	corpus := []string{"a", "ab=1", "@x-y=22,b", "c,d,e", "a=7,a=7,@b", "zz-top=100"}
	v := features.NewVocabulary(g, features.Options{MaxK: 2, Kinds: features.AllKinds})
	rows := v.Fit(parseAll(t, g, corpus...))
	if len(rows) != len(corpus) {
		t.Fatalf("%d rows for %d inputs", len(rows), len(corpus))
	}
	// "@x-y=22,b": the second input with a prefix, a dash and two items.
	ids := rows[2]
	tests := []struct {
		kind features.Kind
		want []string
	}{
		{features.Sibling, []string{
			`in Item: = directly followed by Num`,
			`in Item: @ comes first`,
			`in Item: @ directly followed by Name`,
			`in Item: Name comes first`,
			`in Item: Name comes last`, // in the second item, b
			`in Item: Name directly followed by =`,
			`in Item: Num comes last`,
			`in List: , directly followed by Item`,
			`in List: Item comes first`,
			`in List: Item comes last`,
			`in List: Item directly followed by ,`,
			`in Name: /[a-z][a-z0-9-]*/ comes first`,
			`in Name: /[a-z][a-z0-9-]*/ comes last`,
			`in Num: /[0-9]+/ comes first`,
			`in Num: /[0-9]+/ comes last`,
		}},
		// "22" occurs in one input only: no feature; "b" in two.
		{features.Value, []string{`/[a-z][a-z0-9-]*/ in Name is "b"`}},
		{features.Class, []string{
			`/[0-9]+/ in Num has digit`, `/[0-9]+/ in Num has first char digit`, `/[0-9]+/ in Num has last char digit`,
			`/[a-z][a-z0-9-]*/ in Name has '-'`, `/[a-z][a-z0-9-]*/ in Name has first char letter`,
			`/[a-z][a-z0-9-]*/ in Name has last char letter`, `/[a-z][a-z0-9-]*/ in Name has letter`,
		}},
		// Thresholds lie above the least per-input value (at it, the
		// feature would be the symbol's presence): one Item, "=" or Num
		// is as good as none.
		{features.Occurrences, []string{`#/[a-z][a-z0-9-]*/ ≥ 2`, `#Item ≥ 2`, `#Name ≥ 2`}},
		// Longest Item per input: 1 1 3 4 7 10, so the quantile
		// thresholds are 4, 7 and 10; this input's longest is 7.
		{features.Length, []string{`len(/[0-9]+/) ≥ 2`, `len(/[a-z][a-z0-9-]*/) ≥ 2`, `len(/[a-z][a-z0-9-]*/) ≥ 3`, `len(Item) ≥ 4`, `len(Item) ≥ 7`,
			`len(Name) ≥ 2`, `len(Name) ≥ 3`, `len(Num) ≥ 2`}},
		{features.Number, []string{`/[0-9]+/ ≥ 7 (as a number)`, `/[0-9]+/ ≥ 22 (as a number)`, `Num ≥ 7 (as a number)`, `Num ≥ 22 (as a number)`}},
	}
	for _, tt := range tests {
		got := describe(v, ids, tt.kind)
		want := slices.Sorted(slices.Values(tt.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s features of @x-y=22,b:\n got %q\nwant %q", tt.kind, got, want)
		}
	}
	// Features of a new input: only those in the vocabulary, and the same
	// ids Fit gave the corpus inputs.
	again := v.Features(parseAll(t, g, "@x-y=22,b")[0]...)
	if !slices.Equal(again, ids) {
		t.Errorf("Features of a corpus input differ from its Fit row:\n%v\n%v", again, ids)
	}
	n := v.Len()
	v.Features(parseAll(t, g, "q=99999,w,e,r,t")[0]...)
	if v.Len() != n {
		t.Errorf("Features added to the vocabulary: %d -> %d", n, v.Len())
	}
}

// TestFitDeterministic: the same corpus gives the same features in the
// same order, whatever map iteration does.
func TestFitDeterministic(t *testing.T) {
	g := mustGrammar(t, "url")
	var inputs []string
	for i := range 200 {
		inputs = append(inputs, []string{"http://a.b/c?d=e#f", "https://x:8080/y/z", "ftp://u@h/p;q", "mailto:a@b", "s://[::1]:1/"}[i%5]+strings.Repeat("x", i%7))
	}
	corpus := parseAll(t, g, inputs...)
	var first []string
	for run := range 3 {
		v := features.NewVocabulary(g, features.Options{MaxK: 3, Kinds: features.AllKinds})
		v.Fit(corpus)
		var keys []string
		for id := range v.Len() {
			keys = append(keys, v.Feature(id).Key())
		}
		if run == 0 {
			first = keys
		} else if !slices.Equal(keys, first) {
			t.Fatalf("run %d: vocabulary differs", run)
		}
	}
	// K-paths come first: a learner breaking ties by id prefers them.
	v := features.NewVocabulary(g, features.Options{MaxK: 3, Kinds: features.AllKinds})
	v.Fit(corpus)
	seenOther := false
	for id := range v.Len() {
		if k := v.Feature(id).Kind; k != features.KPath {
			seenOther = true
		} else if seenOther {
			t.Fatalf("k-path feature %d after another kind", id)
		}
	}
}

// TestValueCap: a terminal with many distinct texts gets at most
// MaxValues value features, the most frequent ones, none seen only once.
func TestValueCap(t *testing.T) {
	g := buildGrammar(t, listGrammar)
	var inputs []string
	for i := range 50 {
		inputs = append(inputs, "a="+strings.Repeat("1", 1+i%10)) // 10 values, 5 times each
	}
	inputs = append(inputs, "a=5", "a=6") // once each
	v := features.NewVocabulary(g, features.Options{MaxK: 1, Kinds: features.KPaths.With(features.Value), MaxValues: 4})
	v.Fit(parseAll(t, g, inputs...))
	var values []string
	for id := range v.Len() {
		if f := v.Feature(id); f.Kind == features.Value && f.Text != "a" {
			values = append(values, f.Text)
		}
	}
	if want := []string{"1", "11", "111", "1111"}; !slices.Equal(values, want) {
		t.Errorf("values %q, want %q", values, want)
	}
	if v.CappedTerminals() != 1 {
		t.Errorf("%d terminals capped, want 1 (Num)", v.CappedTerminals())
	}
}
