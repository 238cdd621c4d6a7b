package coverage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// corpus writes n seeded random inputs of a grammar to a folder.
func corpus(t testing.TB, grammarName string, n int, seed uint64) []string {
	t.Helper()
	g, err := datasets.Grammar(grammarName)
	if err != nil {
		t.Fatal(err)
	}
	gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
	gen.MaxDepth, gen.MaxNodes = 22, 600
	dir := t.TempDir()
	var files []string
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%04d", i))
		if err := os.WriteFile(p, []byte(gen.Generate().String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

// TestSubjectsAgree records grammar-random inputs of every bundled subject
// in one process (after warm-up) and with one process per input, and
// checks that the two agree on at least 95% of the inputs.
func TestSubjectsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every subject")
	}
	for _, s := range datasets.Subjects() {
		if s.Lang != "go" {
			continue // the harness tests of each language check their agreement with a process per input
		}
		t.Run(s.Name, func(t *testing.T) {
			bin := fixture.Binary(t, s.Name)
			files := corpus(t, s.Grammar, 40, 3)
			dir := t.TempDir()
			in, iso := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "iso.jsonl")
			sum, err := coverage.RecordInputs(context.Background(), bin, files, in, coverage.Options{Subject: s.Name})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := coverage.RecordInputs(context.Background(), bin, files, iso, coverage.Options{Subject: s.Name, Isolate: true}); err != nil {
				t.Fatal(err)
			}
			a, _ := coverage.ReadFile(in)
			b, _ := coverage.ReadFile(iso)
			if len(a.Records) == 0 || len(a.Records) != len(b.Records) {
				t.Fatalf("%d and %d records", len(a.Records), len(b.Records))
			}
			same := 0
			for i := range a.Records {
				if slices.Equal(a.Records[i].Covered, b.Records[i].Covered) && a.Records[i].Outcome == b.Records[i].Outcome {
					same++
				}
			}
			share := float64(same) / float64(len(a.Records))
			t.Logf("%s: %d functions, %d ever covered; outcomes %v; modes agree on %.0f%%", s.Name, sum.Functions, sum.EverCovered, sum.Outcomes, 100*share)
			if share < 0.95 {
				t.Errorf("in-process and isolated labels agree on %.1f%% of inputs, want at least 95%%", 100*share)
			}
			if sum.EverCovered == 0 {
				t.Errorf("no function covered")
			}
		})
	}
}

// BenchmarkRecordJSON records 1,000 small json inputs in process and
// reports, from the same run, the subject's own time per input and the
// whole recorded run's time per input.
func BenchmarkRecordJSON(b *testing.B) {
	for _, name := range []string{"json", "goldmark"} {
		b.Run(name, func(b *testing.B) {
			s, _ := datasets.LookupSubject(name)
			bin := fixture.Binary(b, name)
			files := corpus(b, s.Grammar, 1000, 1)
			for i := 0; i < b.N; i++ {
				out := filepath.Join(b.TempDir(), "cov.jsonl")
				sum, err := coverage.RecordInputs(context.Background(), bin, files, out, coverage.Options{Subject: name})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(sum.SubjectTime.Nanoseconds())/1000, "µs-subject/input")
				b.ReportMetric(float64(sum.RecordTime.Nanoseconds())/1000, "µs-recorded/input")
				b.ReportMetric(float64((sum.RecordTime-sum.SubjectTime).Nanoseconds())/1000, "µs-overhead/input")
			}
		})
	}
}

// TestDefaultCoverPkgs checks the default packages of wrappers around a
// module's library and a standard-library package, and of a standard
// function itself.
func TestDefaultCoverPkgs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	dir, err := datasets.SubjectsModule()
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/arbor-fuzz/arbor/datasets/subjects/"
	tests := []struct {
		target coverage.Target
		want   []string
	}{
		{coverage.Target{ImportPath: mod + "gjson", Func: "Run", Dir: dir},
			[]string{mod + "gjson", "github.com/tidwall/gjson", "github.com/tidwall/match", "github.com/tidwall/pretty"}},
		{coverage.Target{ImportPath: mod + "json", Func: "Run", Dir: dir}, []string{mod + "json", "encoding/json"}},
		{coverage.Target{ImportPath: "encoding/json", Func: "Valid", Dir: dir}, []string{"encoding/json"}},
	}
	for _, tt := range tests {
		got, err := coverage.DefaultCoverPkgs(context.Background(), tt.target)
		if err != nil {
			t.Errorf("%s: %v", tt.target, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.target, got, tt.want)
		}
	}
}
