package main

import (
	"strings"
	"testing"
)

// TestPursuitSummaryText: the summary line says what was asked for,
// produced and verified, what it cost, and, when it fell short, by how
// much and why.
func TestPursuitSummaryText(t *testing.T) {
	base := pursuitSummary{Function: "p.F", Requested: 10, Produced: 31, Executions: 40, Rounds: 4, Seconds: 1.25, MeanSize: 12.5}
	tests := []struct {
		stopped  string
		verified int
		want     []string
		not      []string
	}{
		{"done", 10, []string{"p.F: asked for 10, produced 31, verified 10 (mean 12.5 bytes); 40 executions in 4 rounds, 1.2s"}, []string{"fell short"}},
		{"budget", 3, []string{"verified 3 ", "fell short by 7: the budget of executions ran out"}, nil},
		{"time", 0, []string{"verified 0 ", "fell short by 10: the time ran out"}, nil},
		{"stalled", 9, []string{"fell short by 1: nothing new to try"}, nil},
		{"canceled", 2, []string{"; canceled"}, []string{"fell short"}},
	}
	for _, tt := range tests {
		s := base
		s.Stopped, s.Verified = tt.stopped, tt.verified
		got := s.text()
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.stopped, got, w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q has %q", tt.stopped, got, w)
			}
		}
	}
}

// TestParseShard (issue 14, item 9): --shard is read whole.
func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in   string
		i, n int
		ok   bool
	}{
		{"1/2", 1, 2, true}, {"4/4", 4, 4, true}, {"1/2/3", 0, 0, false}, {"1/2x", 0, 0, false}, {"0/2", 0, 0, false},
		{"3/2", 0, 0, false}, {"1", 0, 0, false}, {"/2", 0, 0, false}, {"a/b", 0, 0, false}, {"-1/2", 0, 0, false},
	} {
		i, n, err := parseShard(tt.in)
		if (err == nil) != tt.ok || i != tt.i || n != tt.n {
			t.Errorf("parseShard(%q) = %d, %d, %v", tt.in, i, n, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1000", 1000, true}, {"512MiB", 512 << 20, true}, {"2GiB", 2 << 30, true},
		{"4GB", 4e9, true}, {"1.5G", 3 << 29, true}, {"64K", 64 << 10, true}, {" 3 MB ", 3e6, true}, {"7B", 7, true},
		{"", 0, false}, {"GiB", 0, false}, {"-1GiB", 0, false}, {"2 GiBs", 0, false}, {"1e30", 0, false}, {"NaN", 0, false}, {"Inf", 0, false},
	} {
		got, err := parseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// TestMemoryFlag: --memory means the same in every command that runs a
// user's program, and a size it cannot read is a usage error before any
// work.
func TestMemoryFlag(t *testing.T) {
	var tests []cliCase
	for _, args := range [][]string{
		{"record", "--subject", "json", "--inputs", "nowhere"},
		{"target", "--model", "nowhere.json.gz", "--function", "f", "--out", "x"},
		{"rlcheck", "--subject", "json", "--trials", "1"},
	} {
		tests = append(tests, cliCase{name: args[0], args: append(args, "--memory", "lots"), code: exitUsage, stderr: []string{`--memory: "lots" is not a size`}})
	}
	runCases(t, tests)
}
