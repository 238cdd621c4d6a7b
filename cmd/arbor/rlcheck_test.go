//go:build unix

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestRLCheckOracleOutcomes (issue 29, item 10): rlcheck --oracle-cmd
// has a time limit of its own, --timeout, and counts the inputs that run
// out of it apart from the invalid ones, in the summary and in --json;
// --memory limits it, and an oracle past the limit judges its input
// invalid instead of taking the memory.
// Before, there was no --timeout and no limit: --oracle-cmd 'sleep 30'
// --trials 2 --json took 2.0 s (a fixed second each), printed
// {"trials":2,"valid":0,"unique_valid":0,"diverse_valid":0,"failures":0}
// and left both sleeps running.
func TestRLCheckOracleOutcomes(t *testing.T) {
	// Doubling a shell variable 25 times makes a 32 MiB string: some 75
	// MB at the peak without a limit, "Out of space" under one of 8 MiB.
	const alloc = `i=0; x=a; while [ $i -lt 25 ]; do x=$x$x; i=$((i+1)); done; exit 0`
	tests := []struct {
		name                     string
		oracle                   string
		timeout, memory          string
		valid, invalid, timeouts int
	}{
		{"timeouts", "sleep 30", "100ms", "0", 0, 0, 2},
		{"invalid", "exit 1", "100ms", "0", 0, 2, 0},
		{"valid", "cat >/dev/null", "100ms", "0", 2, 0, 0},
		{"past --memory", alloc, "20s", "8MiB", 0, 2, 0},
		{"within --memory", "cat >/dev/null", "20s", "8MiB", 2, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runArbor(t, "", "rlcheck", "--grammar", "expr", "--oracle-cmd", tt.oracle, "--timeout", tt.timeout, "--memory", tt.memory, "--trials", "2", "--json")
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

// TestRLCheckUnrepaired: rlcheck says how many of its inputs broke a
// constraint the search could not repair (they run as they are), in
// text and as "unrepaired" in JSON, and says nothing of it where every
// input satisfies the clauses.
func TestRLCheckUnrepaired(t *testing.T) {
	dir := t.TempDir()
	never, mended := filepath.Join(dir, "never.grammar"), filepath.Join(dir, "mended.grammar")
	writeFile(t, never, []byte("S := \"a\" | \"b\" ;\nwhere S: self.text == \"c\" ;\n"))
	writeFile(t, mended, []byte("S := \"a\" | \"b\" ;\nwhere S: self.text == \"a\" ;\n"))
	tests := []struct {
		grammar    string
		unrepaired int
	}{{never, 6}, {mended, 0}}
	for _, tt := range tests {
		args := []string{"rlcheck", "--grammar", tt.grammar, "--oracle-cmd", "true", "--trials", "6"}
		stdout, errOut, code := runArbor(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.grammar, code, errOut)
		}
		said := strings.Contains(stdout, "6 inputs broke a constraint the search could not repair")
		if said != (tt.unrepaired > 0) {
			t.Errorf("%s: text output %q", tt.grammar, stdout)
		}
		stdout, errOut, code = runArbor(t, "", append(args, "--json")...)
		var got struct {
			Trials     int  `json:"trials"`
			Unrepaired *int `json:"unrepaired"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil || got.Unrepaired == nil {
			t.Fatalf("%s: exit %d, JSON %q, stderr %s", tt.grammar, code, stdout, errOut)
		}
		if got.Trials != 6 || *got.Unrepaired != tt.unrepaired {
			t.Errorf("%s: %d trials, %d unrepaired, want 6 and %d", tt.grammar, got.Trials, *got.Unrepaired, tt.unrepaired)
		}
	}
	// The end of --time cuts short the input in flight, which is not
	// judged and not counted, unrepaired or not.
	stdout, errOut, code := runArbor(t, "", "rlcheck", "--grammar", never, "--oracle-cmd", "sleep 0.1", "--time", "1s", "--json")
	var got struct {
		Trials     int `json:"trials"`
		Unrepaired int `json:"unrepaired"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil {
		t.Fatalf("--time: exit %d, JSON %q, stderr %s", code, stdout, errOut)
	}
	if got.Trials == 0 || got.Unrepaired != got.Trials {
		t.Errorf("--time: %d trials, %d unrepaired, want as many", got.Trials, got.Unrepaired)
	}
}
