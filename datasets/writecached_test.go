package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWriteCachedPrivate (issue 29): the sources arbor writes into the
// cache and then builds (the subjects module, the native entry points)
// go only to the user's own cache folder, made private; a copy found
// there is used only if it is the user's alone and holds exactly arbor's
// files; with no home there is no folder at all, where before the fix
// the shared temporary folder was used, and whatever another user had
// put there was built.
func TestWriteCachedPrivate(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "ios" || runtime.GOOS == "plan9" {
		t.Skip("unix owners and modes, and a cache folder from XDG_CACHE_HOME")
	}
	files := []archiveFile{{"go.mod", []byte("module example.com/w\n")}, {"w/w.go", []byte("package w\n")}}
	sum := []byte("0123456789abcdef")
	root := os.Getuid() == 0
	tests := []struct {
		name     string
		rootOnly bool
		change   func(kindDir, dir string) // after a first write
		want     string                    // in the error; "" for none
	}{
		{"as written", false, func(string, string) {}, ""},
		{"file added", false, func(_, dir string) { os.WriteFile(filepath.Join(dir, "w", "evil.go"), []byte("package w\n"), 0o644) }, "w/evil.go is not one of arbor's files"},
		{"file changed", false, func(_, dir string) { os.WriteFile(filepath.Join(dir, "w", "w.go"), []byte("package w // \n"), 0o644) }, "w/w.go differs"},
		{"file gone", false, func(_, dir string) { os.Remove(filepath.Join(dir, "go.mod")) }, "1 of arbor's 2 files are missing"},
		{"folder writable by all", false, func(kindDir, _ string) { os.Chmod(kindDir, 0o777) }, "can be written by others"},
		{"folder of another user", true, func(kindDir, _ string) { os.Chown(kindDir, 65534, 65534) }, "belongs to uid 65534"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && !root {
				t.Skip("giving a folder to another user needs root")
			}
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			dir, err := writeCached("test", sum, files)
			if err != nil {
				t.Fatal(err)
			}
			kindDir := filepath.Join(cache, "arbor", "test")
			if filepath.Dir(dir) != kindDir {
				t.Fatalf("written to %s, want a folder of %s", dir, kindDir)
			}
			if fi, err := os.Stat(kindDir); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("the folder is made with mode %v, want 0700", fi.Mode().Perm())
			}
			tt.change(kindDir, dir)
			_, err = writeCached("test", sum, files)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
	t.Run("no home", func(t *testing.T) {
		// With no home the cache is a folder of the user's own in the
		// temporary folder (coverage.CacheRoot), made private; before
		// the fix the shared temporary folder itself was used.
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		t.Setenv("XDG_CACHE_HOME", "")
		t.Setenv("HOME", "")
		dir, err := writeCached("test", sum, files)
		if err != nil {
			t.Fatal(err)
		}
		private := filepath.Join(tmp, fmt.Sprintf("arbor-%d", os.Getuid()))
		if !strings.HasPrefix(dir, private+string(filepath.Separator)) {
			t.Errorf("written to %s, want a folder in %s", dir, private)
		}
		if fi, err := os.Stat(private); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, want mode 0700", private, err)
		}
		// Another user's folder there, writable by all, is refused.
		os.Chmod(private, 0o777)
		if _, err := writeCached("test", sum, files); err == nil || !strings.Contains(err.Error(), "can be written by others") {
			t.Errorf("a folder writable by all: err = %v", err)
		}
	})
}
