package learn_test

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
