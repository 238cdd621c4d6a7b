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

func TestFolderName(t *testing.T) {
	for in, want := range map[string]string{
		"encoding/json.(*decodeState).object": "encoding_json._decodeState_.object",
		"regexp/syntax.addSpan":               "regexp_syntax.addSpan",
		"../../etc":                           ".._.._etc",
	} {
		if got := folderName(in); got != want {
			t.Errorf("folderName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := folderName(strings.Repeat("a", 300)); len(got) != 100 {
		t.Errorf("a long name gives a folder name of %d bytes", len(got))
	}
}
