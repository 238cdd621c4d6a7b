//go:build unix

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRLCheckOracleOutcomes (issue 29, item 10): rlcheck --oracle-cmd
// has a time limit of its own, --timeout, and counts the inputs that run
// out of it apart from the invalid ones, in the summary and in --json.
// Before, the limit was a fixed second and a timeout was counted as an
// invalid input: the first case printed
// {"trials":2,"valid":0,"unique_valid":0,"diverse_valid":0,"failures":0}
// after 2 s.
func TestRLCheckOracleOutcomes(t *testing.T) {
	tests := []struct {
		name                     string
		oracle                   string
		valid, invalid, timeouts int
	}{
		{"timeouts", "sleep 30", 0, 0, 2},
		{"invalid", "exit 1", 0, 2, 0},
		{"valid", "cat >/dev/null", 2, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runArbor(t, "", "rlcheck", "--grammar", "expr", "--oracle-cmd", tt.oracle, "--timeout", "100ms", "--trials", "2", "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var res struct {
				Trials, Valid, Invalid, Timeouts int
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if res.Trials != 2 || res.Valid != tt.valid || res.Invalid != tt.invalid || res.Timeouts != tt.timeouts {
				t.Errorf("got %s, want %d valid, %d invalid, %d timeouts", out, tt.valid, tt.invalid, tt.timeouts)
			}
		})
	}
	out, _, code := runArbor(t, "", "rlcheck", "--grammar", "expr", "--oracle-cmd", "sleep 30", "--timeout", "100ms", "--trials", "1")
	if code != 0 || !strings.Contains(out, "0 invalid, 1 timeouts") {
		t.Errorf("exit %d, summary %q", code, out)
	}
	if _, errOut, code := runArbor(t, "", "rlcheck", "--grammar", "expr", "--oracle-cmd", "exit 0", "--timeout", "0s", "--trials", "1"); code != exitUsage {
		t.Errorf("--timeout 0: exit %d, %s", code, errOut)
	}
}
