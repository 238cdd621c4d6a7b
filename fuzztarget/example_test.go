package fuzztarget_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/fuzztarget"
)

// A fuzz target for a module's JSON decoder, seeded with one input.
func ExampleWrite() {
	mod, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(mod)
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n"), 0o644)
	if _, err := exec.LookPath("go"); err != nil {
		log.Fatal(err) // Write asks the go command for the module
	}

	ast, _, err := datasets.ImportGrammar("json", datasets.ImportOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := fuzztarget.Write(context.Background(), fuzztarget.Config{
		Dir:         filepath.Join(mod, "fuzz", "decode"),
		Func:        "example.com/m/decoder.Decode",
		Target:      "FuzzDecode",
		Grammar:     ast,
		GrammarName: "json",
		Seeds:       []fuzztarget.Seed{{Name: "a.json", Data: []byte(`{"a":[1,2]}`)}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Package, res.Fuzzer, res.Seeds)
	for _, f := range res.Written {
		rel, _ := filepath.Rel(res.ModuleDir, f)
		fmt.Println(filepath.ToSlash(rel))
	}
	// Output:
	// example.com/m/fuzz/decode decode_fuzzdecode 1
	// fuzz/decode/json.grammar
	// fuzz/decode/target.go
	// fuzz/decode/fuzz_test.go
	// fuzz/decode/ossfuzz.sh
	// .clusterfuzzlite/build.sh
	// .clusterfuzzlite/project.yaml
}
