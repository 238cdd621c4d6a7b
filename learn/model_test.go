package learn_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/learn"
)

// TestLoadModelNotAModel: files that are not models at all are refused
// as "FILE: not an arbor model (why)", the why in words about the file
// rather than the JSON or gzip decoder's first surprise (issue 31).
func TestLoadModelNotAModel(t *testing.T) {
	g := plantedGraph(t)
	cov, data, _ := plantedCorpus(g, 200, 1, func(s string) bool { return strings.Contains(s, "=") })
	d := learn.NewDataset(g, features.Options{MaxK: 2}, cov, data)
	fns, err := learn.Train(t.Context(), d, learn.TrainOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "good.model.gz")
	if err := learn.NewModel("planted", "planted", g, d, fns, learn.TrainOptions{Seed: 1}).Save(good); err != nil {
		t.Fatal(err)
	}
	model, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 512)
	r := rand.New(rand.NewPCG(31, 1))
	for i := range random {
		random[i] = byte(r.IntN(256))
	}
	random[0] = 0xa2 // '¢' in Latin-1: not where JSON may begin, not gzip's magic
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	corrupt := bytes.Clone(model)
	for i := 20; i < 60 && i < len(corrupt); i++ {
		corrupt[i] ^= 0x5a
	}
	tests := []struct {
		name string
		data []byte
		why  string
	}{
		{"random bytes", random, "not JSON: invalid character"},
		{"empty", nil, "the file is empty"},
		{"text", []byte("hello, world\n"), "not JSON"},
		{"gzip of text", gz([]byte("hello, world\n")), "gzip of something that is not JSON"},
		{"gzip of nothing", gz(nil), "gzip of an empty file"},
		{"JSON object of something else", []byte(`{"name":"x","version":"1.0"}`), `JSON without "arbor":"model"`},
		{"JSON array", []byte(`[1,2,3]`), "JSON array, where a model is an object"},
		{"JSON string", []byte(`"model"`), "JSON string, where a model is an object"},
		{"a coverage file", []byte(`{"arbor":"coverage","version":1,"subject":"json","functions":["a","b"]}` + "\n"), "an arbor coverage file"},
		{"gzip of a coverage file", gz([]byte(`{"arbor":"coverage","version":1,"functions":["a"]}`)), "an arbor coverage file"},
		{"a model with a field of the wrong type", []byte(`{"arbor":"model","version":2,"k":"four"}`), "a damaged model: field k"},
		{"truncated gzip", model[:len(model)/2], "the file ends early: truncated?"},
		{"gzip header only", model[:5], "the file ends early: truncated?"},
		{"truncated JSON", []byte(`{"arbor":"model","version":2,"features":[`), "the file ends early: truncated?"},
		{"corrupt gzip", corrupt, "not an arbor model ("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.model.gz")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := learn.LoadModel(path)
			if err == nil {
				t.Fatal("loaded")
			}
			if want := path + ": not an arbor model ("; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("error %q, want one starting %q and saying %q", err, want, tt.why)
			}
		})
	}
	if _, err := learn.LoadModel(good); err != nil {
		t.Errorf("the good model: %v", err)
	}
}

// TestDescribe: a k-path leads with its symbols, the readable part, and
// the grammar text they sit in follows (issue 31, item 3).
func TestDescribe(t *testing.T) {
	tests := []struct {
		name string
		f    learn.ModelFeature
		want string
	}{
		{"path in a rule", learn.ModelFeature{IDs: []int{1, 2}, Symbols: "Value→Number", Pattern: "Minus? Int Frac?"}, "Value→Number   in: Minus? Int Frac?"},
		{"path that is its text", learn.ModelFeature{IDs: []int{3}, Symbols: "False", Pattern: "False"}, "False"},
		{"path without symbols (old models)", learn.ModelFeature{IDs: []int{3}, Pattern: "\\ FormFeed"}, "\\ FormFeed"},
		{"another kind", learn.ModelFeature{Kind: "value", Symbol: "Int", Text: "0", Pattern: `Int is "0"`}, `Int is "0"`},
	}
	for _, tt := range tests {
		if got := tt.f.Describe(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// gzipMembers gzips each part as a member of its own, repeating the
// middle one times: gzip readers read concatenated members as one
// stream, so a bomb of a gigabyte takes a millisecond to make.
func gzipMembers(head, middle, tail []byte, times int) []byte {
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	var out bytes.Buffer
	out.Write(member(head))
	m := member(middle)
	for range times {
		out.Write(m)
	}
	out.Write(member(tail))
	return out.Bytes()
}

// TestLoadModelBounded: a model file that would decompress to more than
// MaxModelSize, or hold more than MaxModelValues JSON values, is refused
// with an error that says so, after reading no more than the limit
// (issue 29, item 8), in constant memory. A 2 MB gzip bomb took 114 s
// and 10 GB before "loading" as a model without functions; the JSON
// decoder, bounded, still held the 256 MiB it read in a buffer of 512.
func TestLoadModelBounded(t *testing.T) {
	values := func(n int) []byte { // {"arbor":"model",...,"functions":[{},{},...]}
		var b bytes.Buffer
		b.WriteString(`{"arbor":"model","version":2,"k":1,"functions":[{}`)
		for range n - 1 {
			b.WriteString(",{}")
		}
		b.WriteString("]}")
		return b.Bytes()
	}
	tests := []struct {
		name string
		data []byte
		why  string
	}{
		{"gzip bomb: 1 GiB of one byte in a string", gzipMembers([]byte(`{"arbor":"model","version":2,"subject":"`), bytes.Repeat([]byte("a"), 1<<20), []byte(`"}`), 1024),
			"decompressed size exceeds 256 MiB"},
		{"gzip bomb: 1 GiB of white space", gzipMembers([]byte(`{"arbor":"model",`), bytes.Repeat([]byte(" "), 1<<20), []byte(`"version":2}`), 1024),
			"decompressed size exceeds 256 MiB"},
		{"millions of empty functions", values(learn.MaxModelValues + 1), "more than 2097152 JSON values"},
		{"millions of empty functions, gzipped", gzipMembers(nil, values(learn.MaxModelValues+1), nil, 1), "more than 2097152 JSON values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.model.gz")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := learn.LoadModel(path)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			want := "model file " + path + ": " + tt.why + ": not an arbor model, or a damaged one"
			if err == nil || err.Error() != want || !errors.Is(err, learn.ErrModelTooLarge) {
				t.Fatalf("error %v, want %q", err, want)
			}
			// The file is measured before anything of it is kept.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("allocated %d MiB refusing a file of %d KiB", alloc>>20, len(tt.data)>>10)
			} else {
				t.Logf("%d KiB file refused in %v after allocating %d MiB", len(tt.data)>>10, took.Round(time.Millisecond), alloc>>20)
			}
		})
	}
}

// TestLoadModelValuesInStrings: commas and brackets inside strings (a
// grammar's source is full of them), escaped quotes among them, are not
// values: a model with more of them than MaxModelValues loads.
func TestLoadModelValuesInStrings(t *testing.T) {
	g := plantedGraph(t)
	cov, data, _ := plantedCorpus(g, 100, 1, func(s string) bool { return strings.Contains(s, "=") })
	d := learn.NewDataset(g, features.Options{MaxK: 2}, cov, data)
	fns, err := learn.Train(t.Context(), d, learn.TrainOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := learn.NewModel("planted", "planted", g, d, fns, learn.TrainOptions{Seed: 1})
	m.Subject = strings.Repeat(`\",[{`, learn.MaxModelValues/3+1)
	for _, name := range []string{"m.json", "m.json.gz"} {
		path := filepath.Join(t.TempDir(), name)
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := learn.LoadModel(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if back.Subject != m.Subject {
			t.Errorf("%s: the subject changed on the way through the file", name)
		}
	}
	// The same file is refused once its values are many enough.
	b, _ := json.Marshal(m)
	b = bytes.Replace(b, []byte(`"features":[`), append([]byte(`"features":[`), bytes.Repeat([]byte(`{"pattern":"x"},`), learn.MaxModelValues)...), 1)
	path := filepath.Join(t.TempDir(), "many.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := learn.LoadModel(path); !errors.Is(err, learn.ErrModelTooLarge) {
		t.Errorf("a model of %d features: %v", learn.MaxModelValues, err)
	}
}
