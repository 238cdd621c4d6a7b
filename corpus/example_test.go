package corpus_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/arbor-fuzz/arbor/corpus"
)

// Seed a Go fuzz target's corpus, then read it back as arbor's commands
// do.
func Example() {
	pkg, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(pkg)
	dir := corpus.GoFuzzDir(pkg, "FuzzParse")
	for _, in := range []string{`{"a":1}`, "[true]"} {
		if _, err := corpus.WriteGoFuzz(dir, []byte(in)); err != nil {
			log.Fatal(err)
		}
	}
	files, err := corpus.List(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		data, err := corpus.Read(f)
		if err != nil {
			log.Fatal(err)
		}
		content, _ := os.ReadFile(f)
		fmt.Printf("%s %s\n%s", filepath.Base(f), data, content)
	}
	// Output:
	// 1b865366abacbb15 [true]
	// go test fuzz v1
	// []byte("[true]")
	// 8aec26048285cf6b {"a":1}
	// go test fuzz v1
	// []byte("{\"a\":1}")
}

// Write generated inputs as they come into a folder, with their choice
// sequences beside them, as arbor generate --out does.
func ExampleWriter() {
	out, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	w := corpus.NewWriter(out, corpus.Layout{Ext: corpus.Extension("json")}, 2, true)
	for _, in := range []string{`{"a":1}`, "[true]"} {
		if err := w.Write(in, []int{0, 1}); err != nil {
			log.Fatal(w.Close(err))
		}
	}
	if err := w.Close(nil); err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"00001.json", "00002.json", "choices.jsonl"} {
		data, _ := os.ReadFile(filepath.Join(out, name))
		fmt.Printf("%s: %s\n", name, strings.TrimSpace(string(data)))
	}
	// Output:
	// 00001.json: {"a":1}
	// 00002.json: [true]
	// choices.jsonl: {"file":"00001.json","choices":[0,1]}
	// {"file":"00002.json","choices":[0,1]}
}

// Write a targeting run's inputs with a manifest line each.
func ExampleWriteManifest() {
	out, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	inputs := []string{"[1]", "[2]"}
	paths, err := corpus.WriteManifest(corpus.Layout{Ext: ".json"}, out, len(inputs),
		func(i int) string { return inputs[i] },
		func(i int, name string) any {
			return map[string]any{"file": name, "round": i}
		})
	if err != nil {
		log.Fatal(err)
	}
	manifest, _ := os.ReadFile(filepath.Join(out, "manifest.jsonl"))
	fmt.Println(filepath.Base(paths[0]), filepath.Base(paths[1]))
	fmt.Print(string(manifest))
	// Output:
	// 00001.json 00002.json
	// {"file":"00001.json","round":0}
	// {"file":"00002.json","round":1}
}
