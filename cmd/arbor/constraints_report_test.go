//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/learn"
)

// rangesGrammar has two constraints: a range goes up, and a line has at
// most two ranges.
const rangesGrammar = `Ranges := Range (" " Range)* ;
Range := Start "-" End ;
Start := Num ;
End := Num ;
Num := /[0-9]+/ ;
where Range: Start.num <= End.num ;
where Ranges: len(Range) <= 2 ;
`

// rangesProgram rejects (exit 1) every input with a 7 in it, whatever
// the constraints say, and leaves an lcov report of its two functions
// (seven runs on the rejected inputs).
const rangesProgram = `seven=0; status=0
if grep -q 7 "$1"; then seven=1; status=1; fi
printf 'SF:prog.sh\nFN:1,main\nFNDA:1,main\nFN:2,seven\nFNDA:%d,seven\nend_of_record\n' $seven > "$ARBOR_RUN_DIR/cov.info"
exit $status
`

// rangesInputs are the inputs, with what the program and the
// constraints make of them.
var rangesInputs = map[string]string{
	"a": "1-2",         // accepted, satisfies both
	"b": "9-3",         // accepted, breaks the first
	"c": "8-7",         // rejected, breaks the first
	"d": "1-7",         // rejected, satisfies both
	"e": "x",           // accepted, does not parse
	"f": "1-1 2-2 3-3", // accepted, breaks the second
	"g": "9-3",         // b again: recorded and counted once
	"h": "9-3 5-1",     // accepted, breaks the first twice: counted once
	"i": "7-8 3-1 1-1", // rejected, breaks both
}

// rangesConformance is what record and train count of rangesInputs.
func rangesConformance(gram string) *learn.Conformance {
	return &learn.Conformance{Clauses: 2, Inputs: 8, NotParsed: 1, Broken: 5,
		BrokenAccepted: 3, BrokenRejected: 2, SatisfiedAccepted: 1, SatisfiedRejected: 1,
		ByClause: []learn.ClauseConformance{
			{Clause: "where Range: Start.num <= End.num ;", Pos: gram + ":6:1", Broken: 4, Accepted: 2},
			{Clause: "where Ranges: len(Range) <= 2 ;", Pos: gram + ":7:1", Broken: 2, Accepted: 1},
		}}
}

// rangesSetup writes the grammar, a copy without constraints, the
// program and the inputs into a temporary folder, and returns the
// folder, the grammars and the arguments that record the program.
func rangesSetup(t *testing.T) (dir, gram, plain string, program []string) {
	t.Helper()
	dir = t.TempDir()
	gram, plain = filepath.Join(dir, "ranges.grammar"), filepath.Join(dir, "plain.grammar")
	writeInput(t, dir, "ranges.grammar", []byte(rangesGrammar))
	writeInput(t, dir, "plain.grammar", []byte(rangesGrammar[:strings.Index(rangesGrammar, "where")]))
	writeInput(t, dir, "prog.sh", []byte(rangesProgram))
	for name, text := range rangesInputs {
		writeInput(t, filepath.Join(dir, "inputs"), name, []byte(text))
	}
	program = []string{"record", "--cmd", "sh " + filepath.Join(dir, "prog.sh") + " {}", "--report", "lcov", "--inputs", filepath.Join(dir, "inputs"), "--timeout", "20s"}
	return dir, gram, plain, program
}

// conformanceOf decodes the "constraints" object of a --json summary.
func conformanceOf(t *testing.T, stdout string) *learn.Conformance {
	t.Helper()
	var v struct{ Constraints *learn.Conformance }
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	return v.Constraints
}

// TestRecordConstraints (issue 26): record's summary counts the
// recorded inputs that break the grammar's constraints, crossed with the
// outcome, and each clause's count, in text and JSON; with --constraints
// off or a grammar without constraints it says nothing of them, and the
// coverage file is the same either way.
func TestRecordConstraints(t *testing.T) {
	dir, gram, plain, program := rangesSetup(t)
	record := func(out string, args ...string) []string {
		return append(append(program[:len(program):len(program)], "--out", filepath.Join(dir, out)), args...)
	}
	runCases(t, []cliCase{
		{"text", "", record("text.jsonl", "--grammar", gram), 0, []string{
			"outcomes: ok 5, error 3",
			"constraints (2 where clauses, 8 inputs, 1 not parsed): 5 break one (3 accepted, 2 rejected), 2 satisfy all (1 accepted, 1 rejected)\n",
			"  broken by 4 (2 accepted): " + gram + ":6:1: where Range: Start.num <= End.num ;\n",
			"  broken by 2 (1 accepted): " + gram + ":7:1: where Ranges: len(Range) <= 2 ;\n",
			"the program accepted 3 inputs breaking a constraint: the constraints are stricter than the program",
			"the program rejected 1 input satisfying every constraint",
		}, nil},
		{"resumed: inputs already there are counted", "", record("text.jsonl", "--grammar", gram), 0, []string{
			"0 inputs recorded now, 9 already there", "constraints (2 where clauses, 8 inputs, 1 not parsed): 5 break one",
		}, nil},
		{"bad flag", "", record("bad.jsonl", "--grammar", gram, "--constraints", "maybe"), exitUsage, nil, []string{"--constraints must be on or off"}},
		{"missing grammar", "", record("bad.jsonl", "--grammar", filepath.Join(dir, "none.grammar")), 1, nil, []string{"none.grammar"}},
	})

	t.Run("json", func(t *testing.T) {
		stdout, errOut, code := runArbor(t, "", record("json.jsonl", "--grammar", gram, "--json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if got, want := conformanceOf(t, stdout), rangesConformance(gram); !reflect.DeepEqual(got, want) {
			t.Errorf("constraints %+v, want %+v", got, want)
		}
	})

	for _, tc := range []struct{ name, out string }{{"off", "off.jsonl"}, {"no constraints", "plain.jsonl"}, {"no grammar", "none.jsonl"}} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			switch tc.name {
			case "off":
				args = []string{"--grammar", gram, "--constraints", "off"}
			case "no constraints":
				args = []string{"--grammar", plain}
			}
			for _, asJSON := range []bool{false, true} {
				a := record(tc.out, args...)
				if asJSON {
					a = append(a, "--json")
				}
				stdout, errOut, code := runArbor(t, "", a...)
				if code != 0 || strings.Contains(stdout, "constraint") {
					t.Errorf("%v: exit %d, and the summary speaks of constraints:\n%s%s", a, code, stdout, errOut)
				}
			}
		})
	}

	// The coverage file does not depend on the constraints.
	with, err := coverage.ReadFile(filepath.Join(dir, "text.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	without, err := coverage.ReadFile(filepath.Join(dir, "off.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	strip := func(f *coverage.File) []coverage.Record {
		var rs []coverage.Record
		for _, r := range f.Records {
			r.MS = 0
			rs = append(rs, r)
		}
		return rs
	}
	if !reflect.DeepEqual(with.Functions, without.Functions) || !reflect.DeepEqual(strip(with), strip(without)) {
		t.Errorf("coverage files differ:\n%+v\n%+v", with.Records, without.Records)
	}
}

// TestRecordConstraintsBundled (issue 26): a bundled subject's grammar
// is the one whose constraints record counts: cron's says a range goes
// up, which robfig/cron checks too.
func TestRecordConstraintsBundled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the cron harness")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"up": "1-5 * * * *", "down": "5-1 * * * *", "any": "* * * * *", "words": "not a schedule"} {
		writeInput(t, filepath.Join(dir, "schedules"), name, []byte(text))
	}
	runCases(t, []cliCase{
		{"cron", "", []string{"record", "--subject", "cron", "--inputs", filepath.Join(dir, "schedules"), "--out", filepath.Join(dir, "cov.jsonl")}, 0, []string{
			"where clauses, 4 inputs, 1 not parsed): 1 break one (0 accepted, 1 rejected), 2 satisfy all (2 accepted, 0 rejected)",
			"broken by 1 (0 accepted): cron.grammar:", "where MinuteItem:",
		}, nil},
	})
}

// TestTrainConstraints (issue 26): train's summary counts the inputs it
// is given that break the grammar's constraints, crossed with their
// recorded outcome, in text and JSON, and nothing with --constraints off
// or a grammar without constraints; the model is the same either way.
func TestTrainConstraints(t *testing.T) {
	dir, gram, plain, program := rangesSetup(t)
	cov := filepath.Join(dir, "cov.jsonl")
	if _, errOut, code := runArbor(t, "", append(program, "--out", cov)...); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	train := func(grammar, model string, args ...string) []string {
		return append([]string{"train", "--grammar", grammar, "--inputs", filepath.Join(dir, "inputs"), "--coverage", cov,
			"--out", filepath.Join(dir, model), "--cv", "0"}, args...)
	}
	runCases(t, []cliCase{
		{"text", "", train(gram, "text.json"), 0, []string{
			"on 7 inputs", "left out: 1 input: does not parse",
			"constraints (2 where clauses, 8 inputs, 1 not parsed): 5 break one (3 accepted, 2 rejected), 2 satisfy all (1 accepted, 1 rejected)\n",
			"  broken by 4 (2 accepted): " + gram + ":6:1: where Range: Start.num <= End.num ;\n",
			"the program accepted 3 inputs breaking a constraint",
		}, nil},
		{"bad flag", "", train(gram, "bad.json", "--constraints", "yes"), exitUsage, nil, []string{"--constraints must be on or off"}},
	})

	t.Run("json", func(t *testing.T) {
		stdout, errOut, code := runArbor(t, "", train(gram, "json.json", "--json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if got, want := conformanceOf(t, stdout), rangesConformance(gram); !reflect.DeepEqual(got, want) {
			t.Errorf("constraints %+v, want %+v", got, want)
		}
	})

	for _, tc := range []struct {
		name string
		args []string
	}{{"off", train(gram, "off.json", "--constraints", "off")}, {"no constraints", train(plain, "plain.json")}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, a := range [][]string{tc.args, slices.Concat(tc.args, []string{"--json"})} {
				stdout, errOut, code := runArbor(t, "", a...)
				if code != 0 || strings.Contains(stdout, "constraint") {
					t.Errorf("%v: exit %d, and the summary speaks of constraints:\n%s%s", a, code, stdout, errOut)
				}
			}
		})
	}

	// The count does not change the model.
	on, err := os.ReadFile(filepath.Join(dir, "text.json"))
	if err != nil {
		t.Fatal(err)
	}
	off, err := os.ReadFile(filepath.Join(dir, "off.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(on) != string(off) {
		t.Errorf("the model trained with --constraints on differs from the one with off")
	}
}
