package features_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// declGrammar declares and uses names, and has ranges: the relations
// relational features must tell.
const declGrammar = `
Doc     := Item (";" Item)* ;
Item    := Decl | Use | Range ;
Decl    := "let " VarDecl ;
Use     := "print " VarUse ;
VarDecl := Name ;
VarUse  := Name ;
Range   := Start "-" End ;
Start   := Num ;
End     := Num ;
Num     := /[0-9]{1,3}/ ;
Name    := /[a-z]{1,8}/ ;
where Range: Start.num <= End.num ;
`

func TestRelationalFeatures(t *testing.T) {
	g := buildGrammar(t, declGrammar)
	v := features.NewVocabulary(g, features.Options{MaxK: 2,
		Kinds: features.KPaths.With(features.Relation).With(features.Match).With(features.Adjacent).With(features.Clause)})
	train := []string{"let a;print a", "let b;print b", "print c;let c", "print d", "5-3", "3-5", "4-4;let x;let x", "let y;let y"}
	v.Fit(parseAll(t, g, train...))
	tests := []struct {
		in        string
		has, lack []string
	}{
		{"let a;print a",
			[]string{"any(VarDecl, {.text in map(VarUse, .text)})"},
			[]string{"any(VarUse, {.text not in map(VarDecl, .text)})",
				"any(VarUse, {let x = #; none(VarDecl, {.text == x.text && before(#, x)})})"}},
		{"print a;let a",
			[]string{"any(VarUse, {let x = #; none(VarDecl, {.text == x.text && before(#, x)})})"},
			[]string{"any(VarUse, {.text not in map(VarDecl, .text)})"}},
		{"print a;let b",
			[]string{"any(VarUse, {.text not in map(VarDecl, .text)})",
				"any(VarUse, {let x = #; none(VarDecl, {.text == x.text && before(#, x)})})"},
			[]string{"any(VarDecl, {.text in map(VarUse, .text)})"}},
		{"let q;let q",
			[]string{"len(uniq(map(VarDecl, .text))) < len(VarDecl)"}, nil},
		{"let q;let r",
			nil, []string{"len(uniq(map(VarDecl, .text))) < len(VarDecl)"}},
		{"7-2",
			[]string{"some Range: Start[0].num > End[0].num", "breaks where Range: Start.num <= End.num ;",
				"a token ending in digit directly before one starting with '-'"},
			[]string{"some Range: Start[0].num < End[0].num"}},
		{"let q;7-2",
			[]string{"some Decl ends before the first broken clause (if any)"},
			[]string{"some Range ends before the first broken clause (if any)", "some Start ends before the first broken clause (if any)"}},
		{"2-7",
			[]string{"some Range: Start[0].num < End[0].num", "some Range ends before the first broken clause (if any)"},
			[]string{"some Range: Start[0].num > End[0].num", "breaks where Range: Start.num <= End.num ;"}},
	}
	for _, tt := range tests {
		var got []string
		for _, id := range v.Features(parseAll(t, g, tt.in)[0]...) {
			got = append(got, v.Feature(id).Describe(g))
		}
		for _, want := range tt.has {
			if !slices.Contains(got, want) {
				t.Errorf("%q lacks %q; has:\n%s", tt.in, want, strings.Join(got, "\n"))
			}
		}
		for _, bad := range tt.lack {
			if slices.Contains(got, bad) {
				t.Errorf("%q has %q", tt.in, bad)
			}
		}
	}
}

// TestWhere checks that a feature's clause holds exactly on the inputs
// that have the feature (present) or lack it.
func TestWhere(t *testing.T) {
	g := buildGrammar(t, declGrammar)
	v := features.NewVocabulary(g, features.Options{MaxK: 1, Kinds: features.KPaths.With(features.Relation).With(features.Match)})
	inputs := []string{"let a;print a", "let b;print b", "print c;let c", "print d", "5-3", "3-5", "4-4;let x;let x",
		"let y;let y", "print a;let b", "7-2;2-7", "let q;print q;print r"}
	rows := v.Fit(parseAll(t, g, inputs...))
	checked := 0
	for id := range v.Len() {
		f := v.Feature(id)
		if f.Kind != features.Relation && f.Kind != features.Match {
			continue
		}
		for _, present := range []bool{true, false} {
			w, err := features.Where(g, f, present)
			if err != nil {
				t.Errorf("%s: %v", f.Describe(g), err)
				continue
			}
			set, err := constraint.CompileClauses(g, []*grammar.Where{w})
			if err != nil {
				t.Fatalf("%s: the clause returned does not compile: %v", grammar.FormatWhere(w), err)
			}
			t.Logf("%s present=%v: %s", f.Describe(g), present, grammar.FormatWhere(w))
			c := constraint.NewChecker(set)
			for i, in := range inputs {
				has := slices.Contains(rows[i], id)
				holds := len(c.Check(parseAll(t, g, in)[0][0])) == 0
				if holds != (has == present) {
					t.Errorf("%q: feature %s present %v, but %s holds: %v", in, f.Describe(g), has, grammar.FormatWhere(w), holds)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d checks: too few relational features", checked)
	}
	if _, err := features.Where(g, features.Feature{Kind: features.KPath, Path: features.Path{0}}, true); err == nil {
		t.Error("a k-path has a where clause")
	}
}

func TestFitContextCanceled(t *testing.T) {
	g := buildGrammar(t, declGrammar)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, kinds := range []features.Kinds{features.KPaths, features.AllKinds} {
		v := features.NewVocabulary(g, features.Options{MaxK: 2, Kinds: kinds})
		rows, err := v.FitContext(ctx, parseAll(t, g, "let a;print a", "5-3"))
		if !errors.Is(err, context.Canceled) || rows != nil {
			t.Errorf("%s: FitContext on a canceled context = %v, %v", kinds, rows, err)
		}
	}
}

// TestWhereHostile: features a model file may hold, with names that are
// no rules or text that is no comparison, get no clause.
func TestWhereHostile(t *testing.T) {
	g := buildGrammar(t, declGrammar)
	for _, f := range []features.Feature{
		{Kind: features.Relation, Symbol: "Range", Text: `Start[0].num > x)||true||(y[0].num`},
		{Kind: features.Relation, Symbol: "Range", Text: "Start[0].num >= End[0].num"},
		{Kind: features.Relation, Symbol: "Nope", Text: "Start[0].num > End[0].num"},
		{Kind: features.Relation, Symbol: "Range", Text: "Start[0].len > End[0].num"},
		{Kind: features.Relation, Symbol: "Range", Text: "Start[x].num > End[0].num"},
		{Kind: features.Match, Symbol: `VarUse", "x`, Text: "VarDecl", At: features.MatchNone},
		{Kind: features.Match, Symbol: "VarUse", Text: "VarDecl", At: "sometimes"},
		{Kind: features.Match, Symbol: "Doc", Text: "VarDecl", At: features.MatchSome},
	} {
		if w, err := features.Where(g, f, true); err == nil {
			t.Errorf("%+v: clause %s", f, grammar.FormatWhere(w))
		}
	}
}

// FuzzWhere: a relational feature read from a model file, whatever its
// fields, gets a clause that compiles or an error, never a panic.
func FuzzWhere(f *testing.F) {
	f.Add(uint8(features.Relation), "Range", "Start[0].num > End[0].num", "", true)
	f.Add(uint8(features.Match), "VarUse", "VarDecl", features.MatchNoneBefore, false)
	f.Add(uint8(features.Match), "Name", "Name", features.MatchSome, true)
	g := buildGrammar(f, declGrammar)
	f.Fuzz(func(t *testing.T, kind uint8, symbol, text, at string, present bool) {
		w, err := features.Where(g, features.Feature{Kind: features.Kind(kind % 12), Symbol: symbol, Text: text, At: at}, present)
		if err != nil {
			return
		}
		if _, err := constraint.CompileClauses(g, []*grammar.Where{w}); err != nil {
			t.Errorf("%s does not compile: %v", grammar.FormatWhere(w), err)
		}
	})
}
