package coverage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBuildCacheContents (issue 14, item 5): the harness cache is keyed
// on what the files say, not on their sizes and times. An edit that
// keeps a file's size and modification time, and a change to an embedded
// file, each build a new harness that runs the new code.
func TestBuildCacheContents(t *testing.T) {
	if testing.Short() {
		t.Skip("builds harnesses")
	}
	mod := writeModule(t, map[string]string{
		"go.mod":       "module example.com/cachetest\n\ngo 1.24\n",
		"lib/lib.go":   "package lib\n\nimport (\n\t_ \"embed\"\n\t\"errors\"\n)\n\n//go:embed word.txt\nvar word string\n\nfunc Run(b []byte) error {\n\tif string(b) == word {\n\t\treturn errors.New(\"the word\")\n\t}\n\treturn nil // AAAAAAA\n}\n",
		"lib/word.txt": "abc",
	})
	cache := t.TempDir()
	target := Target{ImportPath: "example.com/cachetest/lib", Func: "Run", Dir: mod}
	outcome := func(input string) (Outcome, bool) {
		t.Helper()
		bin, err := Build(context.Background(), target, cache)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Start(bin, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		r, err := s.Record([]byte(input), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r.Outcome, bin.Cached
	}
	if o, _ := outcome("abc"); o != Error {
		t.Fatalf("the word: %s, want error", o)
	}
	if _, cached := outcome("abc"); !cached {
		t.Fatal("an unchanged module was built again")
	}
	// Same size, same time: "return nil // AAAAAAA" becomes a rejection of
	// every input.
	src := filepath.Join(mod, "lib", "lib.go")
	fi, _ := os.Stat(src)
	old, _ := os.ReadFile(src)
	edited := strings.Replace(string(old), "return nil // AAAAAAA", "return errors.New(\"\")", 1)
	if len(edited) != len(old) {
		t.Fatalf("the edit changes the size: %d → %d", len(old), len(edited))
	}
	os.WriteFile(src, []byte(edited), 0o644)
	os.Chtimes(src, fi.ModTime(), fi.ModTime())
	if o, cached := outcome("zzz"); cached || o != Error {
		t.Errorf("after an edit of the same size and time: outcome %s, cached %v; want error from a new build", o, cached)
	}
	// An embedded file changes.
	os.WriteFile(src, old, 0o644)
	os.WriteFile(filepath.Join(mod, "lib", "word.txt"), []byte("xyz"), 0o644)
	if o, cached := outcome("xyz"); cached || o != Error {
		t.Errorf("after the embedded word changed: outcome %s, cached %v; want error from a new build", o, cached)
	}
}

// TestSweepLeftovers (issue 14, item 6): what a killed build left in the
// user's module and in the cache is removed by the next build; what a
// build under way holds is not.
func TestSweepLeftovers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds harnesses")
	}
	mod := t.TempDir()
	if err := os.CopyFS(mod, os.DirFS("testdata/mod")); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	target := Target{ImportPath: "example.com/covtest/lib", Func: "Parse", Dir: mod}
	bin, err := Build(context.Background(), target, cache)
	if err != nil {
		t.Fatal(err)
	}
	const dead = "2147483646" // no such process
	live := fmt.Sprint(os.Getpid())
	leftovers := map[string]bool{ // name -> should survive
		filepath.Join(mod, harnessPrefix+dead+"_0a0b"):                false,
		filepath.Join(mod, harnessPrefix+live+"_0c0d"):                true,
		filepath.Join(mod, harnessPrefix+"0e0f"):                      true,  // an older arbor's, recent
		filepath.Join(mod, harnessPrefix+"1a1b"):                      false, // an older arbor's, hours old
		filepath.Join(filepath.Dir(bin.Path), tmpPrefix+dead+"_2a2b"): false,
		filepath.Join(filepath.Dir(bin.Path), tmpPrefix+live+"_2c2d"): true,
		filepath.Join(mod, "_arbor_harnessless"):                      true, // not ours
	}
	for p := range leftovers {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-3 * time.Hour)
	os.Chtimes(filepath.Join(mod, harnessPrefix+"1a1b"), old, old)
	// A rebuild (the cached binary gone) sweeps both places.
	os.Remove(bin.Path)
	if _, err := Build(context.Background(), target, cache); err != nil {
		t.Fatal(err)
	}
	for p, keep := range leftovers {
		_, err := os.Stat(p)
		if exists := err == nil; exists != keep {
			t.Errorf("%s: exists %v after a build, want %v", filepath.Base(p), exists, keep)
		}
	}
}

// writeModule writes a Go module of the given files into a temporary
// folder and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	mod := t.TempDir()
	for name, text := range files {
		p := filepath.Join(mod, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return mod
}
