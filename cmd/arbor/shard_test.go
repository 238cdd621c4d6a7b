package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/eval"
)

// TestRecordShards: a corpus recorded by 3 shard processes at once and
// merged is the corpus recorded by one process: the same header and, per
// input, the same functions and outcome.
func TestRecordShards(t *testing.T) {
	if testing.Short() {
		t.Skip("records coverage")
	}
	dir := t.TempDir()
	inputs := jsonCorpus(t, dir, 40, 9)
	single := filepath.Join(dir, "single.jsonl")
	if _, errOut, code := runArbor(t, "", "record", "--subject", "json", "--inputs", inputs, "--out", single); code != 0 {
		t.Fatal(errOut)
	}
	const n = 3
	var shards []string
	var procs []*arborProc
	for i := 1; i <= n; i++ {
		out := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i))
		p := &arborProc{cmd: exec.Command(os.Args[0], "record", "--subject", "json", "--inputs", inputs, "--out", out, "--shard", fmt.Sprintf("%d/%d", i, n))}
		p.cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1")
		p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.err
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs, shards = append(procs, p), append(shards, out)
	}
	for i, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i+1, err, p.err.String())
		}
	}
	merged := filepath.Join(dir, "merged.jsonl")
	if _, errOut, code := runArbor(t, "", append([]string{"record", "merge", "--out", merged}, shards...)...); code != 0 {
		t.Fatal(errOut)
	}
	a, err := coverage.ReadFile(single)
	if err != nil {
		t.Fatal(err)
	}
	b, err := coverage.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.Functions, "\n") != strings.Join(b.Functions, "\n") || a.Subject != b.Subject {
		t.Fatalf("headers differ: %s %d functions, merged %s %d", a.Subject, len(a.Functions), b.Subject, len(b.Functions))
	}
	type rec struct {
		covered string
		outcome coverage.Outcome
	}
	want := map[string]rec{}
	for _, r := range a.Records {
		want[r.SHA256] = rec{fmt.Sprint(r.Covered), r.Outcome}
	}
	if len(b.Records) != len(a.Records) || len(a.Records) < 30 {
		t.Fatalf("one run recorded %d inputs, the shards %d", len(a.Records), len(b.Records))
	}
	for _, r := range b.Records {
		if got := (rec{fmt.Sprint(r.Covered), r.Outcome}); got != want[r.SHA256] {
			t.Errorf("%s: shards %+v, one run %+v", r.Input, got, want[r.SHA256])
		}
	}
}

// TestEvalSuiteMerge: merge joins shard folders into suite.json and
// suite.csv in the suite's order, exits 1 naming the subjects no shard
// ran, and refuses results of another suite and files that are none.
func TestEvalSuiteMerge(t *testing.T) {
	dir := t.TempDir()
	all := []string{"json", "url", "csv"}
	shard := func(name string, seed uint64, rows ...string) string {
		r := &eval.SuiteResult{Budgets: eval.QuickSuiteBudgets, Seed: seed, All: all, Shard: name}
		for _, s := range rows {
			r.Rows = append(r.Rows, eval.SuiteRow{Subject: s, Error: "not run in this test"})
		}
		out := filepath.Join(dir, strings.ReplaceAll(name, "/", "of")+fmt.Sprint(seed))
		if err := eval.WriteSuite(out, r); err != nil {
			t.Fatal(err)
		}
		return out
	}
	s1, s2, other := shard("1/2", 1, "json", "csv"), shard("2/2", 1, "url"), shard("2/2", 2, "url")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"subjects": 3}`), 0o644)
	out := filepath.Join(dir, "merged")
	runCases(t, []cliCase{
		{name: "whole", args: []string{"eval", "suite", "merge", "--out", out, s2, s1}, stdout: []string{"generalization suite: 3 subjects", "failed: json, url, csv"}},
		{name: "a shard missing", args: []string{"eval", "suite", "merge", "--out", filepath.Join(dir, "part"), s1}, code: 1,
			stderr: []string{"the shards lack 1 of 3 subjects: url"}},
		{name: "another seed", args: []string{"eval", "suite", "merge", "--out", filepath.Join(dir, "x"), s1, other}, code: 1, stderr: []string{"seed 2"}},
		{name: "twice", args: []string{"eval", "suite", "merge", "--out", filepath.Join(dir, "x"), s1, s1}, code: 1, stderr: []string{"has a row in two results"}},
		{name: "not a result", args: []string{"eval", "suite", "merge", "--out", filepath.Join(dir, "x"), s1, bad}, code: 1, stderr: []string{"bad.json: not a suite's result"}},
		{name: "no out", args: []string{"eval", "suite", "merge", s1}, code: exitUsage, stderr: []string{"--out is required"}},
		{name: "bad shard", args: []string{"eval", "suite", "--shard", "0/2"}, code: exitUsage, stderr: []string{"--shard must be i/n"}},
	})
	b, err := os.ReadFile(filepath.Join(out, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r eval.SuiteResult
	if err := json.Unmarshal(b, &r); err != nil || len(r.Rows) != 3 || r.Rows[0].Subject != "json" || r.Rows[1].Subject != "url" || r.Shard != "" {
		t.Fatalf("merged suite.json: %v %+v", err, r)
	}
	if _, err := os.Stat(filepath.Join(out, "suite.csv")); err != nil {
		t.Fatal(err)
	}
}

// TestE7MergeCmd: E7 merge joins shard folders, recomputing the rows,
// exits 1 counting the runs no shard has, and refuses another campaign's
// results; --resume needs --out, and --shard is read whole.
func TestE7MergeCmd(t *testing.T) {
	dir := t.TempDir()
	shard := func(name string, seed uint64, reps ...int) string {
		r := &eval.E7Result{Seconds: 1, Reps: 2, Methods: []string{eval.E7Random, eval.E7Zest}, Seed: seed, All: []string{"csv"}, Shard: name}
		s := eval.E7Subject{Subject: "csv", Unit: "blocks", Units: 144}
		for _, rep := range reps {
			for _, m := range r.Methods {
				p := eval.E7Point{Seconds: 1, Execs: 100, Covered: 50 + rep, ValidCovered: 40 + rep}
				s.Runs = append(s.Runs, eval.E7Run{Method: m, Rep: rep, Final: p, Curve: []eval.E7Point{p}})
			}
		}
		r.Subjects = []eval.E7Subject{s}
		out := filepath.Join(dir, strings.ReplaceAll(name, "/", "of")+fmt.Sprint(seed))
		if _, err := eval.WriteE7(out, r); err != nil {
			t.Fatal(err)
		}
		return out
	}
	s1, s2, other := shard("1/2", 1, 0), shard("2/2", 1, 1), shard("2/2", 2, 1)
	out := filepath.Join(dir, "merged")
	runCases(t, []cliCase{
		{name: "whole", args: []string{"eval", "E7", "merge", "--out", out, s2, s1}, stdout: []string{"csv", "144 blocks", "40.5"}},
		{name: "a shard missing", args: []string{"eval", "E7", "merge", "--out", filepath.Join(dir, "part"), s1}, code: 1,
			stderr: []string{"the shards lack 2 runs of the campaign"}},
		{name: "another seed", args: []string{"eval", "E7", "merge", "--out", filepath.Join(dir, "x"), s1, other}, code: 1, stderr: []string{"another campaign", "seed 2"}},
		{name: "resume without out", args: []string{"eval", "E7", "--subjects", "csv", "--resume"}, code: exitUsage, stderr: []string{"--resume continues the campaign in --out"}},
		{name: "bad shard", args: []string{"eval", "E7", "--subjects", "csv", "--shard", "1/2x"}, code: exitUsage, stderr: []string{"--shard must be i/n"}},
	})
	r, err := eval.ReadE7(filepath.Join(out, "e7.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Subjects[0]; len(s.Runs) != 4 || s.Runs[0].Rep != 0 || s.Runs[3].Rep != 1 || len(s.Rows) != 2 || s.Rows[0].Runs != 2 || r.Shard != "" {
		t.Fatalf("merged: %+v", r)
	}
}
