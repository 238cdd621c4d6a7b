package synth_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/internal/testctx"
	"github.com/arbor-fuzz/arbor/synth"
)

func TestSolveHandwritten(t *testing.T) {
	g := fixture.Grammar(t, "expr")
	tests := []struct {
		name string
		c    synth.Constraint
	}{
		{"one path", synth.Constraint{Require: []features.Path{{15, 36, 11}}}},
		{"two paths", synth.Constraint{Require: []features.Path{{16, 41}, {22, 42, 53}}}},
		{"forbid", synth.Constraint{Require: []features.Path{{0, 10}}, Forbid: []features.Path{{16, 39}, {16, 40}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sol := synth.Solve(context.Background(), g, tt.c, synth.SolveOptions{Seed: 1})
			if !sol.Satisfied || !synth.Satisfies(g, sol.Text, tt.c) {
				t.Fatalf("not solved: best %q (score %d)", sol.Text, sol.Score)
			}
			// The decisions replay the tree.
			if got := synth.NewGenerator(g, &synth.Replay{Choices: sol.Choices}, synth.RandomPolicy).Generate().String(); got != sol.Text {
				t.Errorf("replay gave %q, want %q", got, sol.Text)
			}
		})
	}
	// An impossible constraint is reported, not looped on.
	impossible := synth.Constraint{Require: []features.Path{{39}}, Forbid: []features.Path{{39}}}
	if sol := synth.Solve(context.Background(), g, impossible, synth.SolveOptions{Seed: 1, MaxCompletions: 50}); sol.Satisfied || sol.Completions > 50 {
		t.Errorf("impossible constraint: satisfied %v after %d completions", sol.Satisfied, sol.Completions)
	}
}

// TestSatisfiesCancelled (issue 29, item 9): a done context stops the
// parse that checks a solution, inside the parse of an input of an
// ambiguous grammar that would otherwise run until its budget is spent,
// and says so by an error, where an input that does not parse is a plain
// false. Before, Satisfies took no context: Target's check of a solution
// ran to the end of the parse after Ctrl-C.
func TestSatisfiesCancelled(t *testing.T) {
	ast, err := grammar.Parse("amb.grammar", []byte(`E := E "+" E | "1" ;`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	long := "1" + strings.Repeat("+1", 800)
	tests := []struct {
		name    string
		ctx     context.Context
		input   string
		want    bool
		wantErr bool
	}{
		{"parses", context.Background(), "1+1", true, false},
		{"does not parse", context.Background(), "1+", false, false},
		{"cancelled before", testctx.Countdown(0), "1+1", false, true},
		{"cancelled inside the parse", testctx.Countdown(3), long, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := synth.SatisfiesContext(tt.ctx, g, tt.input, synth.Constraint{})
			inside := strings.HasSuffix(tt.name, "inside the parse")
			if ok != tt.want || (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, context.Canceled)) ||
				inside && !strings.Contains(err.Error(), "parse stopped at byte") {
				t.Errorf("got %v, %v; want %v, error %v", ok, err, tt.want, tt.wantErr)
			}
		})
	}
}
