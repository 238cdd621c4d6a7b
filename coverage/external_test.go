//go:build unix

package coverage

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeLcovSubject writes a script that behaves like a program run under a
// coverage tool: it writes an lcov tracefile of the functions its input
// made run into $ARBOR_RUN_DIR. "parse" always runs; "digits" runs on an
// input with a digit, "letters" on one with a letter; "new" (not in
// the first report) on "+"; an input with "x" is rejected (status 2);
// "crash" dies by a signal before writing a report.
func fakeLcovSubject(t *testing.T) (script, root string) {
	t.Helper()
	root = t.TempDir()
	script = filepath.Join(root, "subject.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
in=$(cat "$1")
[ "$in" = crash ] && kill -SEGV $$
hit() { case "$in" in *$1*) echo 1 ;; *) echo 0 ;; esac; }
{
echo "SF:`+root+`/src/lib.c"
echo "FN:1,parse"; echo "FN:5,digits"; echo "FN:9,letters"
[ "$(hit +)" = 1 ] && echo "FN:12,new"
echo "FNDA:1,parse"
echo "FNDA:$(case "$in" in *[0-9]*) echo 3 ;; *) echo 0 ;; esac),digits"
echo "FNDA:$(case "$in" in *[a-z]*) echo 1 ;; *) echo 0 ;; esac),letters"
[ "$(hit +)" = 1 ] && echo "FNDA:1,new"
echo "end_of_record"
} > "$ARBOR_RUN_DIR/cov.info"
case "$in" in *x*) exit 2 ;; esac
exit 0
`), 0o755)
	return script, root
}

func TestRecordCommand(t *testing.T) {
	script, root := fakeLcovSubject(t)
	_, files := writeInputs(t, map[string]string{"1": "12", "2": "ab", "3": "a1", "4": "x", "5": "crash", "6": "1+2", "7": "12"})
	rr, err := NewReportReader("lcov", root)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cov.jsonl")
	var warnings []string
	opts := Options{Subject: "fake", Timeout: 20 * time.Second, Warn: func(err error) { warnings = append(warnings, err.Error()) }}
	sum, err := RecordCommand(context.Background(), &Command{Argv: []string{script, "{}"}}, rr, files, out, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Recorded != 6 || sum.Duplicates != 1 || sum.Outcomes[OK] != 4 || sum.Outcomes[Error] != 1 || sum.Outcomes[Panic] != 1 || sum.Unlisted != 1 {
		t.Errorf("summary %+v", sum)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "src/lib.c:new") {
		t.Errorf("warnings %q", warnings)
	}
	f, err := ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"src/lib.c:digits", "src/lib.c:letters", "src/lib.c:parse"}; !slices.Equal(f.Functions, want) {
		t.Errorf("functions %q, want %q (relative to the root, sorted)", f.Functions, want)
	}
	if f.Target == nil || f.Target.Command == nil || f.Target.Command.Coverage != "lcov" || f.Target.Command.Argv[0] != script {
		t.Errorf("header target %+v", f.Target)
	}
	got := map[string]string{}
	for _, r := range f.Records {
		var names []string
		for _, id := range r.Covered {
			names = append(names, strings.TrimPrefix(f.Functions[id], "src/lib.c:"))
		}
		got[filepath.Base(r.Input)] = string(r.Outcome) + " " + strings.Join(names, ",")
	}
	want := map[string]string{"1": "ok digits,parse", "2": "ok letters,parse", "3": "ok digits,letters,parse",
		"4": "error letters,parse", "5": "panic ", "6": "ok digits,parse"}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("input %s: %q, want %q", name, got[name], w)
		}
	}
	for _, r := range f.Records {
		if filepath.Base(r.Input) == "1" && !slices.Equal(r.Counts, []uint32{3, 1}) {
			t.Errorf("counts of 12: %v, want [3 1] (digits 3 times)", r.Counts)
		}
	}
	// Resuming records nothing twice.
	sum, err = RecordCommand(context.Background(), &Command{Argv: []string{script, "{}"}}, rr, files, out, opts)
	if err != nil || sum.Recorded != 0 || sum.Skipped != 7 { // the duplicate too
		t.Errorf("resumed: %+v, %v", sum, err)
	}
}

// TestRecordCommandNoReport: a command line that runs the program but
// leaves no report is a mistake to say at once, not a corpus of empty
// records.
func TestRecordCommandNoReport(t *testing.T) {
	_, files := writeInputs(t, map[string]string{"1": "a"})
	rr, _ := NewReportReader("lcov", "")
	_, err := RecordCommand(context.Background(), &Command{Argv: []string{"cat", "{}"}}, rr, files, filepath.Join(t.TempDir(), "c.jsonl"), Options{})
	if err == nil || !strings.Contains(err.Error(), "left no lcov report") || !strings.Contains(err.Error(), "{dir}") {
		t.Errorf("got %v", err)
	}
	if _, err := NewReportReader("cobertura", ""); err == nil || !strings.Contains(err.Error(), "coveragepy, gcov, jacoco, lcov") {
		t.Errorf("unknown format: %v", err)
	}
}

// TestCommandSession: a command target runs through a Session like any
// harness, so that every command taking a subject takes a command: the
// functions come from the empty input's report, each Record is a run of
// its own, and Interrupt ends what is left at once.
func TestCommandSession(t *testing.T) {
	script, root := fakeLcovSubject(t)
	bin, err := Build(context.Background(), Target{Command: &CommandTarget{Argv: []string{script, "{}"}, Coverage: "lcov", Root: root}}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(bin, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if want := []string{"src/lib.c:digits", "src/lib.c:letters", "src/lib.c:parse"}; !slices.Equal(s.Funcs.Names, want) {
		t.Fatalf("functions %q, want %q", s.Funcs.Names, want)
	}
	for _, tt := range []struct {
		in      string
		outcome Outcome
		covered []int
		counts  []uint32
	}{
		{"12", OK, []int{0, 2}, []uint32{3, 1}},
		{"a", OK, []int{1, 2}, []uint32{1, 1}},
		{"x", Error, []int{1, 2}, []uint32{1, 1}},
		{"crash", Panic, nil, nil},
		{"1+", OK, []int{0, 2}, []uint32{3, 1}}, // "new" is not one of the session's functions
	} {
		r, err := s.Record([]byte(tt.in), 20*time.Second)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if r.Outcome != tt.outcome || !slices.Equal(r.Covered, tt.covered) || !slices.Equal(r.Counts, tt.counts) {
			t.Errorf("%q: %s %v %v, want %s %v %v", tt.in, r.Outcome, r.Covered, r.Counts, tt.outcome, tt.covered, tt.counts)
		}
	}
	s.Interrupt()
	if r, err := s.Record([]byte("12"), 20*time.Second); err != nil || r.Outcome != Timeout {
		t.Errorf("after Interrupt: %+v, %v; want a timeout at once", r, err)
	}
}
