package corpus_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

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
