package corpus

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

type testLine struct {
	File string `json:"file"`
	N    int    `json:"n"`
}

// TestWriteManifest: the inputs and a manifest line each, raw (afresh)
// and in Go's format (added to the seed corpus and its manifest).
func TestWriteManifest(t *testing.T) {
	inputs := []string{"x<", "y", "z"}
	input := func(i int) string { return inputs[i] }
	line := func(i int, name string) any { return testLine{name, i} }
	for _, tt := range []struct {
		name   string
		layout Layout
		files  []string // written, by the second call
		lines  int      // in the manifest after two calls
	}{
		{"raw", Layout{Ext: ".txt"}, []string{"00001.txt", "00002.txt", "00003.txt"}, 3},
		{"gofuzz", Layout{Ext: ".txt", FuzzTarget: "FuzzX"}, nil, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			var paths []string
			for range 2 {
				var err error
				if paths, err = WriteManifest(tt.layout, out, len(inputs), input, line); err != nil {
					t.Fatal(err)
				}
			}
			manifest, err := os.ReadFile(tt.layout.SideFile(out, "manifest.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(manifest), "\n"), "\n")
			if len(lines) != tt.lines {
				t.Errorf("%d manifest lines, want %d:\n%s", len(lines), tt.lines, manifest)
			}
			for i, p := range paths {
				var l testLine
				if err := json.Unmarshal([]byte(lines[i]), &l); err != nil || l.File != filepath.Base(p) || l.N != i {
					t.Errorf("line %d: %s (%v), for %s", i, lines[i], err, p)
				}
				if tt.files != nil && filepath.Base(p) != tt.files[i] {
					t.Errorf("input %d in %s, want %s", i, p, tt.files[i])
				}
				if got, err := Read(p); err != nil || string(got) != inputs[i] {
					t.Errorf("%s holds %q (%v), want %q", p, got, err, inputs[i])
				}
			}
			if strings.Contains(string(manifest), `\u003c`) {
				t.Errorf("the manifest escapes HTML: %s", manifest)
			}
		})
	}
}

// TestClearRun: an earlier run's inputs, manifests, summary and
// unfinished folders go; files no manifest names, and manifests' lines
// that name anything but a plain file of their folder, do not.
func TestClearRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	files := map[string]string{
		"00001.json": "1", "00002.json": "2", "mine.txt": "m",
		"manifest.jsonl":   `{"file":"00001.json"}` + "\n" + `{"file":"../outside"}` + "\n" + `{"file":"/etc/passwd"}` + "\n" + `{"file":".."}` + "\nnot json\n" + `{"file":"00002.json"}` + "\n",
		"verify.cov.jsonl": "{}", "summary.json": "[]", ".summary.json-123": "[",
		"001-f/00001.json": "f", "001-f/manifest.jsonl": `{"file":"00001.json"}` + "\n",
		"002-g/00001.json": "g", "002-g/manifest.jsonl": `{"file":"00001.json"}` + "\n", "002-g/notes": "keep",
		"003-h/00001.json":      "h", // no manifest: not ours
		".004-i.tmp/00001.json": "i",
	}
	for name, text := range files {
		p := filepath.Join(out, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "outside"), []byte("o"), 0o644)
	n, err := ClearRun(out)
	if err != nil || n != 4 {
		t.Errorf("ClearRun = %d, %v; want 4 inputs removed", n, err)
	}
	var left []string
	for name := range testenv.Files(t, out) {
		left = append(left, name)
	}
	slices.Sort(left)
	if want := []string{"002-g/notes", "003-h/00001.json", "mine.txt"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "outside")); err != nil {
		t.Errorf("a manifest line removed a file outside the folder: %v", err)
	}
	if n, err := ClearRun(filepath.Join(dir, "nowhere")); n != 0 || err != nil {
		t.Errorf("ClearRun of a missing folder = %d, %v", n, err)
	}
}

// TestReplaceFolder: the folder appears whole, once filled; a fill that
// fails leaves only the hidden folder, which ClearRun removes.
func TestReplaceFolder(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, FunctionFolder(0, "p.F"))
	fill := func(dir, tmp string) error {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the folder exists before it is filled: %v", err)
		}
		_, err := WriteManifest(Layout{Ext: ".txt"}, tmp, 1, func(int) string { return "a" }, func(i int, name string) any { return testLine{name, i} })
		return err
	}
	if err := ReplaceFolder(dir, func(tmp string) error { return fill(dir, tmp) }); err != nil {
		t.Fatal(err)
	}
	if got := testenv.Files(t, dir); got["00001.txt"] != "a" {
		t.Errorf("the folder holds %v", got)
	}
	failed := errors.New("killed")
	second := filepath.Join(out, FunctionFolder(1, "p.G"))
	if err := ReplaceFolder(second, func(tmp string) error { fill(second, tmp); return failed }); err != failed {
		t.Errorf("ReplaceFolder = %v, want the fill's error", err)
	}
	if _, err := os.Stat(second); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed fill left the folder: %v", err)
	}
	if _, err := ClearRun(out); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("after ClearRun: %v", entries)
	}
}

// FuzzClearManifest: whatever a manifest holds, ClearManifest removes
// no file outside its folder, nor one in a folder inside it.
func FuzzClearManifest(f *testing.F) {
	f.Add([]byte(`{"file":"00001.json"}` + "\n" + `{"file":"../outside"}` + "\n"))
	f.Add([]byte(`{"file":"/etc/passwd"}`))
	f.Add([]byte(`{"file":".."}` + "\n" + `{"file":"."}` + "\n" + `{"file":"sub"}`))
	f.Add([]byte(`{"file":"sub/x"}` + "\n" + `{"file":"sub\\x"}`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, "out")
		keep := []string{filepath.Join(root, "outside"), filepath.Join(dir, "sub", "x"), filepath.Join(root, "00001.json")}
		for _, p := range keep {
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("keep"), 0o644)
		}
		os.WriteFile(filepath.Join(dir, "00001.json"), []byte("1"), 0o644)
		if err := os.WriteFile(filepath.Join(dir, "manifest.jsonl"), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		ClearManifest(dir)
		for _, p := range keep {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s was removed: %v", p, err)
			}
		}
	})
}
