package main

import (
	"strings"
	"testing"
)

// TestEvalConstraintsFlag (issue 26): every eval command that generates
// inputs from a subject's grammar, and demo, takes --constraints on|off,
// on by default, and refuses another value as bad usage before it runs
// anything.
func TestEvalConstraintsFlag(t *testing.T) {
	root := newRoot(strings.NewReader(""))
	commands := [][]string{
		{"eval", "E1"}, {"eval", "E3"}, {"eval", "E4"}, {"eval", "E5"}, {"eval", "E6"}, {"eval", "E7"}, {"eval", "E8"},
		{"eval", "E9"}, {"eval", "E10"}, {"eval", "all"}, {"eval", "suite"}, {"eval", "learners"}, {"demo"},
	}
	for _, path := range commands {
		name := strings.Join(path, " ")
		c, _, err := root.Find(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f := c.Flags().Lookup("constraints")
		if f == nil || f.DefValue != "on" {
			t.Errorf("%s: --constraints %+v, want a flag that is on by default", name, f)
			continue
		}
		args := append(path, "--constraints", "maybe")
		if c.Flags().Lookup("out") != nil {
			args = append(args, "--out", t.TempDir()) // eval all wants one first
		}
		if _, errOut, code := runArbor(t, "", args...); code != 2 || !strings.Contains(errOut, "--constraints must be on or off") {
			t.Errorf("%s --constraints maybe: exit %d, %s", name, code, errOut)
		}
	}
}
