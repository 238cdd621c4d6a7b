package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestGenerateGuided: generate --guided makes inputs that satisfy the
// grammar's clauses, the same for a seed, with choices that replay
// (as --choices records them); it is a usage error where there is
// nothing to learn from (no clauses, --constraints off) or no random
// draws (--mode kpath).
func TestGenerateGuided(t *testing.T) {
	g := fixture.Grammar(t, "gotemplate")
	set, err := constraint.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	check := constraint.NewChecker(set)
	args := []string{"generate", "gotemplate", "-n", "150", "--seed", "4", "--guided", "--choices"}
	out, errOut, code := runArbor(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if again, _, _ := runArbor(t, "", args...); again != out {
		t.Error("the same seed gave other inputs")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 150 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		var rec struct {
			Input   string `json:"input"`
			Choices []int  `json:"choices"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		tree, err := g.Parse([]byte(rec.Input))
		if err != nil {
			t.Fatalf("input %d %q does not parse: %v", i, rec.Input, err)
		}
		if vs := check.Check(tree); len(vs) > 0 {
			t.Errorf("input %d %q breaks %v", i, rec.Input, vs[0])
		}
		if len(rec.Choices) == 0 {
			t.Fatalf("input %d: no choices", i)
		}
		replayed := synth.NewGenerator(g, &synth.Replay{Choices: rec.Choices}, synth.RandomPolicy)
		replayed.MaxDepth = synth.DefaultMaxDepth
		if got := replayed.Generate().String(); got != rec.Input {
			t.Fatalf("input %d: its choices replay to %q, not %q", i, got, rec.Input)
		}
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no clauses", []string{"generate", "json", "--guided"}, "has none"},
		{"constraints off", []string{"generate", "gotemplate", "--guided", "--constraints", "off"}, "--constraints off"},
		{"kpath", []string{"generate", "gotemplate", "--guided", "--mode", "kpath"}, "--mode kpath"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runArbor(t, "", tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q, want a usage error saying %q", code, errOut, tt.want)
			}
		})
	}
}
