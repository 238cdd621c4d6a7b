package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra/doc"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/cli from the commands")

// TestCLIReference keeps docs/cli, the command reference generated from
// the commands by cobra's own generator, in step with the commands: it
// fails when a command or flag changed and the reference was not
// regenerated (go test ./cmd/arbor -run TestCLIReference -update-docs).
func TestCLIReference(t *testing.T) {
	dir := t.TempDir()
	root := newRoot(strings.NewReader(""))
	root.DisableAutoGenTag = true // no dates: the files change only with the commands
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("..", "..", "docs", "cli")
	if *updateDocs {
		os.RemoveAll(want)
		if err := os.CopyFS(want, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	have, _ := filepath.Glob(filepath.Join(want, "*.md"))
	names := func(paths []string) []string {
		var n []string
		for _, p := range paths {
			n = append(n, filepath.Base(p))
		}
		return n
	}
	if !slices.Equal(names(got), names(have)) {
		t.Fatalf("docs/cli holds %v, the commands make %v; run go test ./cmd/arbor -run TestCLIReference -update-docs", names(have), names(got))
	}
	for _, p := range got {
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(filepath.Join(want, filepath.Base(p)))
		if !bytes.Equal(a, b) {
			t.Errorf("docs/cli/%s is out of date; run go test ./cmd/arbor -run TestCLIReference -update-docs", filepath.Base(p))
		}
		if home, err := os.UserHomeDir(); err == nil && bytes.Contains(a, []byte(home)) {
			t.Errorf("docs/cli/%s holds this machine's home folder: give the flag a default that does not depend on the machine", filepath.Base(p))
		}
	}
}
