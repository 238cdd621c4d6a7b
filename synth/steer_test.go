package synth_test

import (
	"context"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

const steerGrammar = `
List := Item ("," Item)* ;
Item := Name ("=" Num)? ;
Name := /[a-c][a-c-]{0,3}/ ;
Num := /[0-9]{1,3}/ ;
`

// node finds the grammar node of a symbol written in a rule.
func node(t *testing.T, g *grammar.Graph, rule, label string) int {
	t.Helper()
	for _, n := range g.Nodes {
		if n.Kind.Symbolic() && n.Rule == rule && n.Label() == label {
			return n.ID
		}
	}
	t.Fatalf("no %s in %s", label, rule)
	return -1
}

// TestSolveFeatureLiterals: a constraint over each feature kind, present
// and absent, is solved, and the input parses back satisfying it.
func TestSolveFeatureLiterals(t *testing.T) {
	g := fixture.Build(t, "steer.grammar", steerGrammar)
	name := node(t, g, "Item", "Name")
	nameRe := node(t, g, "Name", "/[a-c][a-c-]{0,3}/")
	numRe := node(t, g, "Num", "/[0-9]{1,3}/")
	lit := func(f features.Feature, present bool) synth.FeatureLiteral {
		return synth.FeatureLiteral{Feature: f, Present: present}
	}
	tests := []struct {
		name string
		c    synth.Constraint
	}{
		{"sibling: an item without value", synth.Constraint{Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Sibling, Path: features.Path{name, features.Edge}}, true)}}},
		{"sibling absent: every item has a value", synth.Constraint{Require: []features.Path{{numRe}}, Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Sibling, Path: features.Path{name, features.Edge}}, false)}}},
		{"value", synth.Constraint{Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Value, Path: features.Path{nameRe}, Text: "ab-c"}, true)}}},
		{"two values", synth.Constraint{Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Value, Path: features.Path{nameRe}, Text: "cc"}, true),
			lit(features.Feature{Kind: features.Value, Path: features.Path{numRe}, Text: "907"}, true)}}},
		{"class", synth.Constraint{Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Class, Path: features.Path{nameRe}, Text: "'-'"}, true)}}},
		{"class absent", synth.Constraint{Require: []features.Path{{numRe}}, Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Class, Path: features.Path{numRe}, Text: "digit", At: "first"}, true),
			lit(features.Feature{Kind: features.Class, Path: features.Path{nameRe}, Text: "'-'"}, false)}}},
		{"count", synth.Constraint{Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Occurrences, Symbol: "Item", N: 4}, true)}}},
		{"length", synth.Constraint{Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Length, Symbol: "Name", N: 4}, true)}}},
		{"length absent", synth.Constraint{Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Length, Symbol: "Num", N: 2}, false),
			lit(features.Feature{Kind: features.Occurrences, Symbol: "Num", N: 2}, true)}}},
		{"number", synth.Constraint{Checks: []synth.FeatureLiteral{
			lit(features.Feature{Kind: features.Number, Symbol: "Num", N: 500}, true)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sol := synth.Solve(context.Background(), g, tt.c, synth.SolveOptions{Seed: 1})
			if !sol.Satisfied || !synth.Satisfies(g, sol.Text, tt.c) {
				t.Errorf("not solved: %q (score %d of %d, %d completions)", sol.Text, sol.Score, tt.c.Literals(), sol.Completions)
			}
			t.Logf("%q in %d completions", sol.Text, sol.Completions)
		})
	}
	// Satisfies judges every literal: the same value on another terminal
	// does not count.
	c := synth.Constraint{Checks: []synth.FeatureLiteral{lit(features.Feature{Kind: features.Value, Path: features.Path{numRe}, Text: "12"}, true)}}
	if synth.Satisfies(g, "a=13,b=4", c) || !synth.Satisfies(g, "a=13,b=12", c) {
		t.Error("Satisfies misjudges a value literal")
	}
}
