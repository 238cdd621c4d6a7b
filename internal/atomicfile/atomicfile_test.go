package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/internal/atomicfile"
)

// TestWrite: the file is replaced whole with the permissions asked for,
// and no temporary file is left, also when the write fails.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, data := range []string{"first", "second, longer"} {
		if err := atomicfile.Write(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if string(got) != data || fi.Mode().Perm() != 0o644 {
			t.Errorf("file %q, mode %v; want %q, 0644", got, fi.Mode().Perm(), data)
		}
	}
	if err := atomicfile.Write(filepath.Join(dir, "no", "such", "f"), []byte("x"), 0o644); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left in the folder: %v", entries)
	}
}
