package learn_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestTrainIdentical: a model trained from a corpus folder and a coverage
// file the way 'arbor train' does (corpus.ReadAll, coverage.ReadFile, the
// streamed NewDataset with a vocabulary per worker) is byte for byte the
// model of the straightforward path: every file read by itself, every
// record decoded by encoding/json, every input's trees kept and their
// features read off in record order by one vocabulary. The corpus holds
// the same input in several files and in Go's fuzzing format, records
// that panicked or timed out, records whose input is missing, the same
// input recorded twice and inputs that do not parse; it is trained with
// 1 to 8 workers.
func TestTrainIdentical(t *testing.T) {
	g, err := datasets.Grammar("json")
	if err != nil {
		t.Fatal(err)
	}
	inputs, covPath := writeTrainCorpus(t, g, t.TempDir(), 1500)

	opts := features.Options{MaxK: 4}
	topts := learn.TrainOptions{Seed: 3}
	model := func(d *learn.Dataset, cov *coverage.File) []byte {
		t.Helper()
		fns, err := learn.Train(context.Background(), d, topts)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "m.json")
		if err := learn.NewModel(cov.Subject, "json", g, d, fns, topts).Save(path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	refCov, refData := referenceRead(t, covPath, inputs)
	ref := learn.ParseExamples(g, refCov, refData).Dataset(g, opts)
	if ref.Skipped["panic"] == 0 || ref.Skipped["timeout"] == 0 || ref.Skipped["input not found"] == 0 || ref.Skipped["does not parse"] == 0 {
		t.Fatalf("the corpus lacks a kind of left-out record: %v", ref.Skipped)
	}
	want := model(ref, refCov)

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, workers := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(workers)
		cov, err := coverage.ReadFile(covPath)
		if err != nil {
			t.Fatal(err)
		}
		files, err := corpus.List(inputs)
		if err != nil {
			t.Fatal(err)
		}
		data, err := corpus.ReadAll(files)
		if err != nil {
			t.Fatal(err)
		}
		if got := model(learn.NewDataset(g, opts, cov, data), cov); !bytes.Equal(got, want) {
			t.Errorf("%d workers: the model (%d bytes) differs from the reference (%d bytes)", workers, len(got), len(want))
		}
	}
}

// referenceRead reads a coverage file and a corpus folder the
// straightforward way: each record line by encoding/json (an input
// recorded twice kept once), each file by itself.
func referenceRead(t *testing.T, covPath, dir string) (*coverage.File, map[string][]byte) {
	t.Helper()
	f, err := os.Open(covPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cov := &coverage.File{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			if err := json.Unmarshal(sc.Bytes(), &cov.Header); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var r coverage.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if !seen[r.SHA256] {
			seen[r.SHA256] = true
			cov.Records = append(cov.Records, r)
		}
	}
	data := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		in, err := corpus.Read(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(in)
		data[hex.EncodeToString(sum[:])] = in
	}
	return cov, data
}

// writeTrainCorpus writes n generated json inputs to dir/inputs, one file
// each, and a coverage file dir/cov.jsonl whose functions are rules over
// the input's text, with every kind of record training leaves out: per
// 100 inputs one that does not parse, one kept in Go's fuzzing format,
// one in two files, one recorded twice alike, one that panicked, one
// that timed out, one rejected and one recorded whose file is gone.
func writeTrainCorpus(t testing.TB, g *grammar.Graph, dir string, n int) (inputs, covPath string) {
	t.Helper()
	inputs = filepath.Join(dir, "inputs")
	os.Mkdir(inputs, 0o755)
	covPath = filepath.Join(dir, "cov.jsonl")
	functions := []string{"array", "object", "string", "number", "long", "never", "always"}
	w, err := coverage.OpenWriter(context.Background(), covPath, coverage.NewHeader("planted", functions), false)
	if err != nil {
		t.Fatal(err)
	}
	gen := synth.NewGenerator(g, synth.NewRandom(7), synth.RandomPolicy)
	recorded := map[string]bool{}
	for i := range n {
		in := []byte(gen.Generate().String())
		switch i % 100 {
		case 13:
			in = []byte("{\"unclosed\": [1, 2") // does not parse
		case 27:
			in = []byte(fmt.Sprintf(`[%d, "kept only in Go's format"]`, i))
		}
		file := in
		if i%100 == 27 {
			file = corpus.EncodeGoFuzz(in)
		}
		name := filepath.Join(inputs, fmt.Sprintf("%07d", i))
		if err := os.WriteFile(name, file, 0o644); err != nil {
			t.Fatal(err)
		}
		if i%100 == 41 {
			os.WriteFile(name+"-copy", file, 0o644) // the same input twice
		}
		sum := sha256.Sum256(in)
		if recorded[hex.EncodeToString(sum[:])] {
			continue // a generated input that came before: recording it again would contradict the first unless alike
		}
		recorded[hex.EncodeToString(sum[:])] = true
		rec := coverage.Record{Input: name, SHA256: hex.EncodeToString(sum[:]), Outcome: coverage.OK, MS: float64(i%7) / 8}
		s := string(in)
		for f, ran := range []bool{strings.Contains(s, "["), strings.Contains(s, "{"), strings.Contains(s, `"`),
			strings.ContainsAny(s, "0123456789"), len(s) > 40, false, true} {
			if ran {
				rec.Covered = append(rec.Covered, f)
				rec.Counts = append(rec.Counts, uint32(len(s)%5+1))
			}
		}
		switch i % 100 {
		case 5:
			rec.Outcome, rec.Error, rec.Stack = coverage.Panic, "runtime error: \"index\" out of range <3>", "ab12"
		case 6:
			rec.Outcome = coverage.Timeout
		case 9:
			rec.Outcome, rec.Error = coverage.Error, "invalid character 'x'\n"
		case 33:
			os.Remove(name) // recorded, but not in the corpus
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if i%100 == 41 {
			rec.Input += "-copy"
			if err := w.Write(rec); err != nil { // recorded twice alike
				t.Fatal(err)
			}
		}
	}
	w.Close()

	return inputs, covPath
}

// TestTrainAccuracy: a tree's training accuracy is the share of all rows
// whose leaf predicts their label, however the tree was fitted (its
// counts taken over all rows, over the balanced sample, or fitted on all
// rows).
func TestTrainAccuracy(t *testing.T) {
	g := plantedGraph(t)
	cov, data, _ := plantedCorpus(g, 800, 3, func(s string) bool { return strings.Count(s, "=") > 1 })
	d := learn.NewDataset(g, features.Options{MaxK: 3}, cov, data)
	for _, opts := range []learn.TrainOptions{
		{Seed: 1}, {Seed: 2, Options: learn.Options{MaxDepth: 2}}, {Seed: 1, NoBalance: true}, {Seed: 1, BalancedLeaves: true, Options: learn.Options{MaxDepth: 2}},
	} {
		fns, err := learn.Train(context.Background(), d, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(fns) == 0 {
			t.Fatalf("%+v: no tree", opts)
		}
		for _, fn := range fns {
			label := d.Labels[slices.Index(d.Functions, fn.Name)]
			correct := 0
			for r := range d.Rows {
				leaf := &fn.Tree.Nodes[fn.Tree.Leaf(func(c int) bool { return d.Columns[c].Has(r) })]
				if leaf.Covered() == label.Has(r) {
					correct++
				}
			}
			if want := float64(correct) / float64(d.Rows); fn.TrainAccuracy != want {
				t.Errorf("%+v: %s: training accuracy %v, want %v", opts, fn.Name, fn.TrainAccuracy, want)
			}
		}
	}
}
