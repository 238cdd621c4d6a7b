package fuzztarget_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/fuzztarget"
	"github.com/arbor-fuzz/arbor/grammar"
)

// goVersion is the go command's version as a go.mod's go line takes it.
func goVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "go")
	if i := strings.IndexAny(v, " -+"); i >= 0 {
		v = v[:i]
	}
	return v
}

// module writes a module example.com/m with a package decoder whose
// Decode parses JSON, and returns its folder.
func module(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "m")
	write(t, filepath.Join(dir, "go.mod"), fmt.Sprintf("module example.com/m\n\ngo %s\n", goVersion(t)))
	write(t, filepath.Join(dir, "decoder", "decoder.go"), `package decoder

import "encoding/json"

// Decode parses a JSON document.
func Decode(data []byte) error {
	var v any
	return json.Unmarshal(data, &v)
}
`)
	return dir
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func jsonGrammar(t *testing.T) *grammar.Grammar {
	t.Helper()
	ast, _, err := datasets.ImportGrammar("json", datasets.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ast
}

var seeds = []fuzztarget.Seed{
	{Name: "object", Data: []byte(`{"a":[1,2,{"b":null}]}`)},
	{Name: "array", Data: []byte(`[true,false]`)},
	{Name: "not json", Data: []byte(`{"a":`)},
	{Name: "too long", Data: []byte(`[1,2,3,4,5,6,7,8,9,10,11,12]`)}, // past the generator's MaxRepeat
}

func TestWriteRefuses(t *testing.T) {
	mod := module(t)
	ok := fuzztarget.Config{Dir: filepath.Join(mod, "fuzz", "decode"), Func: "example.com/m/decoder.Decode", Target: "FuzzDecode", Grammar: jsonGrammar(t)}
	tests := []struct {
		name   string
		change func(*fuzztarget.Config)
		want   string
	}{
		{"no package", func(c *fuzztarget.Config) { c.Func = "Decode" }, "not importpath.Name"},
		{"dot in path only", func(c *fuzztarget.Config) { c.Func = "example.com/m" }, "not importpath.Name"},
		{"unexported", func(c *fuzztarget.Config) { c.Func = "example.com/m/decoder.decode" }, "not an exported Go name"},
		{"target", func(c *fuzztarget.Config) { c.Target = "Fuzzdecode" }, "not a fuzz target's name"},
		{"no grammar", func(c *fuzztarget.Config) { c.Grammar = nil }, "no grammar"},
		{"no module", func(c *fuzztarget.Config) { c.Dir = t.TempDir() }, "no Go module"},
		{"the function's own package", func(c *fuzztarget.Config) { c.Dir = filepath.Join(mod, "decoder") }, "own package"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.change(&c)
			_, err := fuzztarget.Write(context.Background(), c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(mod, "decoder", "target.go")); err == nil {
		t.Errorf("a refused run wrote into the function's package")
	}
}

func TestWrite(t *testing.T) {
	mod := module(t)
	dir := filepath.Join(mod, "fuzz", "decode")
	cfg := fuzztarget.Config{Dir: dir, Func: "example.com/m/decoder.Decode", Target: "FuzzDecode", Grammar: jsonGrammar(t),
		GrammarName: "json", Seeds: seeds}
	res, err := fuzztarget.Write(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Package != "example.com/m/fuzz/decode" || res.Fuzzer != "decode_fuzzdecode" {
		t.Errorf("package %q, fuzzer %q", res.Package, res.Fuzzer)
	}
	for _, f := range []string{"json.grammar", "target.go", "fuzz_test.go", "ossfuzz.sh", "../../.clusterfuzzlite/build.sh", "../../.clusterfuzzlite/project.yaml"} {
		if !slices.Contains(res.Written, filepath.Join(res.Dir, f)) {
			t.Errorf("%s not written: %v", f, res.Written)
		}
	}
	if res.Seeds != 2 || len(res.Unseedable) != 2 || res.Unseedable[0].Name != "not json" || res.Unseedable[1].Name != "too long" {
		t.Errorf("seeds %d, unseedable %+v", res.Seeds, res.Unseedable)
	}
	files, err := corpus.List(corpus.GoFuzzDir(dir, "FuzzDecode"))
	if err != nil || len(files) != 2 {
		t.Fatalf("seed corpus: %v %v", files, err)
	}
	if len(res.Todo) != 2 || !strings.Contains(res.Todo[0], "go get github.com/arbor-fuzz/arbor") || !strings.Contains(res.Todo[1], "--base-image") {
		t.Errorf("todo %q, want go get and the Dockerfile", res.Todo)
	}
	build, _ := os.ReadFile(filepath.Join(mod, ".clusterfuzzlite", "build.sh"))
	if !strings.HasSuffix(string(build), "\nbash fuzz/decode/ossfuzz.sh\n") {
		t.Errorf("build.sh:\n%s", build)
	}

	// Again: nothing changes, and build.sh gets no second line.
	again, err := fuzztarget.Write(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Written) != 0 || again.Seeds != 2 {
		t.Errorf("a second run wrote %v, %d seeds", again.Written, again.Seeds)
	}
	if b, _ := os.ReadFile(filepath.Join(mod, ".clusterfuzzlite", "build.sh")); string(b) != string(build) {
		t.Errorf("build.sh changed:\n%s", b)
	}

	// A second target in another folder joins build.sh; with a base image
	// the Dockerfile is written.
	cfg2 := cfg
	cfg2.Dir, cfg2.Target, cfg2.BaseImage = filepath.Join(mod, "fuzz", "other"), "FuzzOther", "builder-image"
	if _, err := fuzztarget.Write(context.Background(), cfg2); err != nil {
		t.Fatal(err)
	}
	build, _ = os.ReadFile(filepath.Join(mod, ".clusterfuzzlite", "build.sh"))
	if !strings.Contains(string(build), "bash fuzz/decode/ossfuzz.sh\nbash fuzz/other/ossfuzz.sh\n") {
		t.Errorf("build.sh after a second target:\n%s", build)
	}
	docker, err := os.ReadFile(filepath.Join(mod, ".clusterfuzzlite", "Dockerfile"))
	if err != nil || !strings.HasPrefix(string(docker), "# ") || !strings.Contains(string(docker), "FROM builder-image\nCOPY . $SRC/m\nWORKDIR $SRC/m\n") {
		t.Errorf("Dockerfile (%v):\n%s", err, docker)
	}

	// An edited fuzz test is not replaced without Force.
	test := filepath.Join(dir, "fuzz_test.go")
	write(t, test, "package decode\n// mine\n")
	if _, err := fuzztarget.Write(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("edited fuzz test: error %v", err)
	}
	if b, _ := os.ReadFile(test); string(b) != "package decode\n// mine\n" {
		t.Fatalf("a refused run changed the edited file")
	}
	cfg.Force = true
	if res, err := fuzztarget.Write(context.Background(), cfg); err != nil || !slices.Contains(res.Written, test) {
		t.Fatalf("with Force: %v, wrote %v", err, res.Written)
	}

	// A project's own build.sh is left alone, and the line to add said.
	own := filepath.Join(mod, ".clusterfuzzlite", "build.sh")
	write(t, own, "#!/bin/bash -eu\ngo build ./...\n")
	res, err = fuzztarget.Write(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(own); string(b) != "#!/bin/bash -eu\ngo build ./...\n" || len(res.Todo) != 2 || !strings.Contains(res.Todo[1], `"bash fuzz/decode/ossfuzz.sh"`) {
		t.Errorf("own build.sh: %q, todo %q", b, res.Todo)
	}
}
