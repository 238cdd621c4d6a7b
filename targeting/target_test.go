package targeting_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
	"github.com/arbor-fuzz/arbor/targeting"
)

func TestSummarize(t *testing.T) {
	for _, tt := range []struct {
		name string
		pr   targeting.Pursuit
		want targeting.Summary
	}{
		{"none", targeting.Pursuit{Function: "p.F", Wanted: 3, Executions: 40, Produced: 41, Rounds: 4, Elapsed: 1500 * time.Millisecond, Stopped: "budget"},
			targeting.Summary{Function: "p.F", BaseRate: 0.25, Requested: 3, Produced: 41, Executions: 40, Rounds: 4, Seconds: 1.5, Stopped: "budget", Out: "o"}},
		{"two", targeting.Pursuit{Function: "p.G", Wanted: 2, Inputs: []targeting.PursuedInput{{Text: "ab"}, {Text: "abcd"}}, Executions: 7, FirstHit: 3,
			Stopped: "done", Sources: map[string]int{"constraint": 7}, Hits: map[string]int{"constraint": 2}},
			targeting.Summary{Function: "p.G", BaseRate: 0.25, Requested: 2, Verified: 2, Executions: 7, FirstHit: 3, Stopped: "done", MeanSize: 3,
				Sources: map[string]int{"constraint": 7}, Hits: map[string]int{"constraint": 2}, Out: "o"}},
	} {
		if got := targeting.Summarize(&tt.pr, 0.25, "o"); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Summarize = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestRareFunctions: the functions below the base rate, rarest first,
// then the ones no training input ran.
func TestRareFunctions(t *testing.T) {
	p, _ := listModel(t, 400)
	loop, err := targeting.NewLoop(p, &listProgram{})
	if err != nil {
		t.Fatal(err)
	}
	all := loop.RareFunctions(1.01)
	var names []string
	for i, f := range all {
		names = append(names, f.Name)
		if f.Never != (i >= len(p.Model.Functions)) {
			t.Errorf("%s: never %v", f.Name, f.Never)
		}
		if fn, err := p.Model.Function(f.Name); err == nil && f.BaseRate != targeting.BaseRate(p.Model, fn) {
			t.Errorf("%s: base rate %v", f.Name, f.BaseRate)
		}
		if i > 0 && !f.Never && (all[i-1].BaseRate > f.BaseRate || all[i-1].BaseRate == f.BaseRate && all[i-1].Name > f.Name) {
			t.Errorf("%s after %s: not rarest first", f.Name, all[i-1].Name)
		}
	}
	if !slices.Equal(names, []string{"rare", "call", "never"}) || !slices.Equal(names[len(p.Model.Functions):], loop.Functions()[len(p.Model.Functions):]) {
		t.Errorf("rare functions %v", names)
	}
	for _, f := range loop.RareFunctions(0.05) {
		if !f.Never && f.BaseRate >= 0.05 {
			t.Errorf("%s: base rate %v, not below 0.05", f.Name, f.BaseRate)
		}
	}
}

// readManifest reads a manifest's lines.
func readManifest(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s: %q: %v", path, l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestTarget: the inputs a loop kept are written with their manifest,
// raw or into a seed corpus, and summed up.
func TestTarget(t *testing.T) {
	p, _ := listModel(t, 400)
	for _, l := range []corpus.Layout{{Ext: ".txt"}, {Ext: ".txt", FuzzTarget: "FuzzList"}} {
		loop, err := targeting.NewLoop(p, &listProgram{})
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		opts := targeting.TargetOptions{Pursue: targeting.PursueOptions{Want: 3, Budget: 40, Seed: 1}, Layout: l, Out: out}
		s, err := loop.Target(context.Background(), "call", opts)
		if err != nil {
			t.Fatal(err)
		}
		if s.Function != "call" || s.Verified != 3 || s.Out != l.InputDir(out) || s.BaseRate <= 0 {
			t.Errorf("%v: summary %+v", l, s)
		}
		lines := readManifest(t, l.SideFile(out, "manifest.jsonl"))
		if len(lines) != s.Verified {
			t.Fatalf("%v: %d manifest lines for %d inputs", l, len(lines), s.Verified)
		}
		for _, line := range lines {
			data, err := corpus.Read(filepath.Join(l.InputDir(out), line["file"].(string)))
			if err != nil || !strings.Contains(string(data), "(") {
				t.Errorf("%v: %v holds %q (%v), which does not call", l, line, data, err)
			}
			if fn, _ := line["function"].(string); (fn == "call") != l.GoFuzz() || line["source"] == nil {
				t.Errorf("%v: manifest line %v", l, line)
			}
		}
		if _, err := loop.Target(context.Background(), "nosuch", opts); err == nil {
			t.Error("targeting an unknown function gave no error")
		}
	}
}

// TestRare: each function's inputs in a folder of its own and
// summary.json after each; in a seed corpus, all in one and no summary.
func TestRare(t *testing.T) {
	p, _ := listModel(t, 400)
	for _, l := range []corpus.Layout{{Ext: ".txt"}, {Ext: ".txt", FuzzTarget: "FuzzList"}} {
		loop, err := targeting.NewLoop(p, &listProgram{})
		if err != nil {
			t.Fatal(err)
		}
		funcs := loop.RareFunctions(1.01)
		out := filepath.Join(t.TempDir(), "out")
		var seen []string
		opts := targeting.TargetOptions{Pursue: targeting.PursueOptions{Want: 2, Budget: 10, Seed: 1}, Layout: l, Out: out,
			Pursued: func(i, n int, s targeting.Summary) {
				if n != len(funcs) || s.Function != funcs[i].Name || s.Never != funcs[i].Never {
					t.Errorf("%v: function %d of %d: %+v", l, i, n, s)
				}
				seen = append(seen, s.Function)
			}}
		sums, err := loop.Rare(context.Background(), funcs, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != len(funcs) || len(seen) != len(funcs) {
			t.Fatalf("%v: %d summaries, %d reported, for %d functions", l, len(sums), len(seen), len(funcs))
		}
		verified := 0
		for i, s := range sums {
			verified += s.Verified
			want := filepath.Join(out, corpus.FunctionFolder(i, s.Function))
			if l.GoFuzz() {
				want = l.InputDir(out)
			}
			if s.Out != want {
				t.Errorf("%v: %s's inputs in %s, want %s", l, s.Function, s.Out, want)
			}
		}
		summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if l.GoFuzz() {
			if err == nil {
				t.Errorf("a seed corpus run wrote summary.json")
			}
			if lines := readManifest(t, l.SideFile(out, "manifest.jsonl")); len(lines) != verified {
				t.Errorf("%d manifest lines for %d inputs", len(lines), verified)
			}
			continue
		}
		want, _ := json.MarshalIndent(sums, "", "  ")
		if err != nil || string(summary) != string(want)+"\n" {
			t.Errorf("summary.json (%v):\n%s\nwant\n%s", err, summary, want)
		}
		if n, err := corpus.ClearRun(out); err != nil || n != verified {
			t.Errorf("ClearRun removed %d of %d inputs (%v)", n, verified, err)
		}
	}
}

// TestWriteOffline: offline targeting's inputs with the constraint each
// satisfies and its patterns.
func TestWriteOffline(t *testing.T) {
	p, _ := listModel(t, 400)
	m := p.Model
	fn, err := m.Function("call")
	if err != nil {
		t.Fatal(err)
	}
	res := targeting.Offline(context.Background(), p.Graph, m, fn, 4, learn.EveryLeaf, synth.SolveOptions{Seed: 1})
	if len(res.Inputs) == 0 {
		t.Fatal("no input")
	}
	cons := m.Constraints(fn, learn.EveryLeaf)
	out := t.TempDir()
	paths, err := targeting.WriteOffline(corpus.Layout{Ext: ".txt"}, out, m, fn.Name, cons, res)
	if err != nil || len(paths) != len(res.Inputs) {
		t.Fatalf("%d paths (%v) for %d inputs", len(paths), err, len(res.Inputs))
	}
	for i, line := range readManifest(t, filepath.Join(out, "manifest.jsonl")) {
		in := res.Inputs[i]
		if line["file"] != corpus.Name(i, len(res.Inputs), ".txt") || line["constraint"] != float64(in.Constraint) || line["function"] != nil {
			t.Errorf("line %d: %v", i, line)
		}
		if patterns, _ := line["patterns"].([]any); len(patterns) != len(strings.Split(m.Text(cons[in.Constraint], false), "\n")) {
			t.Errorf("line %d: patterns %v", i, line["patterns"])
		}
		if data, _ := os.ReadFile(paths[i]); string(data) != in.Text {
			t.Errorf("%s holds %q, want %q", paths[i], data, in.Text)
		}
	}
}
