package coverage

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
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
		bin, s := buildAndStart(t, target, cache)
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
		filepath.Join(mod, harnessPrefix+dead+"_0a0b"): false,
		filepath.Join(mod, harnessPrefix+live+"_0c0d"): true,
		filepath.Join(mod, harnessPrefix+"0e0f"):       true,  // an older arbor's, recent
		filepath.Join(mod, harnessPrefix+"1a1b"):       false, // an older arbor's, hours old
		filepath.Join(cache, tmpPrefix+dead+"_2a2b"):   false,
		filepath.Join(cache, tmpPrefix+live+"_2c2d"):   true,
		filepath.Join(mod, "_arbor_harnessless"):       true, // not ours
	}
	for p := range leftovers {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-3 * time.Hour)
	os.Chtimes(filepath.Join(mod, harnessPrefix+"1a1b"), old, old)
	// A rebuild (the cached build gone) sweeps both places.
	os.RemoveAll(filepath.Dir(bin.Path))
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

// buildAndStart builds the target's harness into cacheDir and starts a
// session; the caller closes it.
func buildAndStart(t *testing.T, target Target, cacheDir string) (*Binary, *Session) {
	t.Helper()
	bin, err := Build(context.Background(), target, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(bin, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return bin, s
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

// TestBuildModuleLayouts (issue 14, item 6): the harness builds beside
// modules laid out as users lay them out, and leaves nothing in them: a
// module that needs its workspace (a go.work naming a sibling module it
// imports, which its go.mod cannot find alone), and a vendored module (a
// workspace cannot use vendor folders, so there the harness is a package
// inside the module for the build's duration).
func TestBuildModuleLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds harnesses")
	}
	lib := "package lib\n\nimport (\n\t\"errors\"\n\n\t\"example.com/dep\"\n)\n\nfunc Run(b []byte) error {\n\tif dep.Bad(b) {\n\t\treturn errors.New(\"bad\")\n\t}\n\treturn nil\n}\n"
	dep := "package dep\n\nfunc Bad(b []byte) bool { return len(b) > 2 }\n"
	tests := []struct {
		name  string
		files map[string]string
		dir   string // of the main module, in the folder
		setup []string
	}{
		{"workspace", map[string]string{
			"go.work":        "go 1.24\n\nuse ./app\nuse ./dep\n",
			"app/go.mod":     "module example.com/app\n\ngo 1.24\n\nrequire example.com/dep v0.0.0\n",
			"app/lib/lib.go": lib,
			"dep/go.mod":     "module example.com/dep\n\ngo 1.24\n",
			"dep/dep.go":     dep,
		}, "app", nil},
		{"vendored", map[string]string{
			"app/go.mod":     "module example.com/app\n\ngo 1.24\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n",
			"app/lib/lib.go": lib,
			"dep/go.mod":     "module example.com/dep\n\ngo 1.24\n",
			"dep/dep.go":     dep,
		}, "app", []string{"mod", "vendor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeModule(t, tt.files)
			dir := filepath.Join(root, tt.dir)
			if tt.setup != nil {
				cmd := exec.Command("go", tt.setup...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("go %v: %v\n%s", tt.setup, err, out)
				}
			}
			before := listTree(t, root)
			_, s := buildAndStart(t, Target{ImportPath: "example.com/app/lib", Func: "Run", Dir: dir}, t.TempDir())
			defer s.Close()
			for input, want := range map[string]Outcome{"ab": OK, "abc": Error} {
				if r, err := s.Record([]byte(input), 5*time.Second); err != nil || r.Outcome != want {
					t.Errorf("%q: %v %+v, want %s", input, err, r, want)
				}
			}
			if after := listTree(t, root); !slices.Equal(before, after) {
				t.Errorf("the build left files:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// listTree lists the paths below dir.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		paths = append(paths, path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestNoSuchFunction (issue 15, item 3): a function the package does not
// have is named in arbor's words, with the functions that would do,
// instead of the compiler's "undefined: subject.Runn" about a temporary
// file.
func TestNoSuchFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	mod, _ := filepath.Abs("testdata/hostile")
	_, err := Build(context.Background(), Target{ImportPath: "example.com/hostile", Func: "Runn", Dir: mod}, t.TempDir())
	want := "package example.com/hostile has no exported function Runn; of type func([]byte) error or func([]byte) it has: Run"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// plantedHarness is a harness binary's stand-in that, run, writes marker.
func plantedHarness(t *testing.T, path, marker string) {
	t.Helper()
	os.Remove(path)
	if err := os.WriteFile(path, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// buildOrRun builds the target from cacheDir and, if Build hands back a
// binary, starts it, as every command does next: what the cache holds
// runs, or Build's error says why not.
func buildOrRun(t *testing.T, target Target, cacheDir string) error {
	t.Helper()
	bin, err := Build(context.Background(), target, cacheDir)
	if err != nil {
		return err
	}
	if s, err := Start(bin, RunOptions{}); err == nil {
		s.Close()
	}
	return nil
}

// TestCachePlanted (issue 29): nothing in the harness cache runs unless
// the folders are the user's alone and the build's files are those that
// were built. A binary put in place of the harness (another sha256, or
// no manifest at all), a cache folder or a build folder of another
// user's, one others can write to, or a folder above it others can write
// to without the sticky bit: each is refused with an error that says
// which folder and why, and the planted binary does not run. Before the
// fix, any file at the harness's path ran.
func TestCachePlanted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	if runtime.GOOS == "windows" {
		t.Skip("unix owners and modes")
	}
	mod := t.TempDir()
	if err := os.CopyFS(mod, os.DirFS("testdata/mod")); err != nil {
		t.Fatal(err)
	}
	target := Target{ImportPath: "example.com/covtest/lib", Func: "Parse", Dir: mod}
	good := t.TempDir()
	bin, err := Build(context.Background(), target, good)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Base(filepath.Dir(bin.Path))
	if again, err := Build(context.Background(), target, good); err != nil || !again.Cached {
		t.Fatalf("an intact build is not reused: %v", err)
	}
	root := os.Getuid() == 0
	tests := []struct {
		name     string
		rootOnly bool
		// plant changes the cache folder cache, whose build folder is
		// entry, and may return the folder to build from instead.
		plant func(cache, entry, marker string) string
		want  string // in the error; "" for a build that may be used
	}{
		{"intact", false, func(cache, entry, marker string) string { return cache }, ""},
		{"binary replaced", false, func(cache, entry, marker string) string {
			plantedHarness(t, filepath.Join(entry, "harness"), marker)
			return cache
		}, "harness has changed since it was built"},
		{"no manifest", false, func(cache, entry, marker string) string {
			plantedHarness(t, filepath.Join(entry, "harness"), marker)
			os.Remove(filepath.Join(entry, sealName))
			return cache
		}, "no manifest"},
		{"file added", false, func(cache, entry, marker string) string {
			os.WriteFile(filepath.Join(entry, "extra"), nil, 0o644)
			return cache
		}, "extra is not in its manifest"},
		{"build folder of another user", true, func(cache, entry, marker string) string {
			os.Chown(entry, 65534, 65534)
			return cache
		}, "belongs to uid 65534"},
		{"cache folder of another user", true, func(cache, entry, marker string) string {
			os.Chown(cache, 65534, 65534)
			return cache
		}, "belongs to uid 65534"},
		{"cache folder writable by all", false, func(cache, entry, marker string) string {
			plantedHarness(t, filepath.Join(entry, "harness"), marker)
			os.Chmod(cache, 0o777)
			return cache
		}, "can be written by others (mode 0777)"},
		{"build folder writable by the group", false, func(cache, entry, marker string) string {
			os.Chmod(entry, 0o770)
			return cache
		}, "can be written by others (mode 0770)"},
		{"folder above writable by all", false, func(cache, entry, marker string) string {
			os.Chmod(filepath.Dir(cache), 0o777)
			return cache
		}, "can be written by others (mode 0777)"},
		{"folder above writable by all, sticky", false, func(cache, entry, marker string) string {
			os.Chmod(filepath.Dir(cache), 0o777|fs.ModeSticky)
			return cache
		}, ""},
		{"link owned by another user", true, func(cache, entry, marker string) string {
			link := filepath.Join(t.TempDir(), "link")
			os.Symlink(cache, link)
			os.Lchown(link, 65534, 65534)
			return link
		}, "belongs to uid 65534"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && !root {
				t.Skip("giving a folder to another user needs root")
			}
			cache := filepath.Join(t.TempDir(), "cache")
			if err := os.CopyFS(cache, os.DirFS(good)); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(t.TempDir(), "MARKER")
			dir := tt.plant(cache, filepath.Join(cache, key), marker)
			err := buildOrRun(t, target, dir)
			if _, statErr := os.Stat(marker); statErr == nil {
				t.Error("the planted binary ran")
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestCacheNoHome (issue 29, item 2): with neither XDG_CACHE_HOME nor
// HOME set, as under cron, the cache is a folder of the user's own in
// the temporary folder, arbor-UID, made 0700; one that another user
// could write to (made first, to plant a binary) is refused and nothing
// in it runs. Before the fix the cache was TMPDIR/arbor-harness, and a
// binary another user planted at arbor-harness/KEY/harness ran (then,
// for a while, no cache at all: an error).
func TestCacheNoHome(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "ios" || runtime.GOOS == "plan9" {
		t.Skip("the cache folder comes from XDG_CACHE_HOME and HOME only on unix systems other than macOS")
	}
	if testing.Short() {
		t.Skip("builds a harness")
	}
	mod := t.TempDir()
	if err := os.CopyFS(mod, os.DirFS("testdata/mod")); err != nil {
		t.Fatal(err)
	}
	target := Target{ImportPath: "example.com/covtest/lib", Func: "Parse", Dir: mod}
	// The harness's key, to plant a binary where arbor will look.
	bin, err := Build(context.Background(), target, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Base(filepath.Dir(bin.Path))
	// The go command needs its own caches named when there is no home,
	// as a cron job that runs Go sets them.
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv(v, strings.TrimSpace(string(out)))
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")

	// Another user's folder, writable by all, with a binary in it.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root, err := CacheRoot()
	if err != nil || !CacheTemporary() || filepath.Dir(root) != tmp {
		t.Fatalf("CacheRoot() = %q, %v (temporary: %v), want a folder in %s", root, err, CacheTemporary(), tmp)
	}
	planted := filepath.Join(root, "harness", key)
	os.MkdirAll(planted, 0o777)
	for p := planted; p != tmp; p = filepath.Dir(p) {
		os.Chmod(p, 0o777)
	}
	marker := filepath.Join(t.TempDir(), "MARKER")
	plantedHarness(t, filepath.Join(planted, "harness"), marker)
	err = buildOrRun(t, target, DefaultCacheDir())
	if _, statErr := os.Stat(marker); statErr == nil {
		t.Error("a planted binary ran")
	}
	if err == nil || !strings.Contains(err.Error(), "cannot be trusted") {
		t.Errorf("Build in a folder writable by all: %v, want it refused", err)
	}

	// A clean temporary folder: the cache is made there, the user's alone.
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if err := buildOrRun(t, target, DefaultCacheDir()); err != nil {
		t.Fatalf("Build with no home: %v", err)
	}
	root, _ = CacheRoot()
	fi, err := os.Stat(root)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the cache folder %s: %v, mode %v, want 0700", root, err, fi.Mode().Perm())
	}
}

// TestBuildKeyEnv (issue 29, item 11): the harness cache key holds the
// environment the go command builds with, so that a harness built with
// other flags (GOFLAGS=-ldflags=-X=..., which changes what the program
// does) or without cgo is not reused; a C compiler setting counts only
// when cgo is on. It asks the go command, without building.
func TestBuildKeyEnv(t *testing.T) {
	mod := writeModule(t, map[string]string{
		"go.mod":     "module example.com/keytest\n\ngo 1.24\n",
		"lib/lib.go": "package lib\n\nvar Mode = \"a\"\n\nfunc Run(b []byte) error { return nil }\n",
	})
	target := Target{ImportPath: "example.com/keytest/lib", Func: "Run", Dir: mod}
	src, err := harnessFiles(target.ImportPath, target.Func)
	if err != nil {
		t.Fatal(err)
	}
	key := func(t *testing.T, env ...string) string {
		t.Helper()
		for i := 0; i < len(env); i += 2 {
			t.Setenv(env[i], env[i+1])
		}
		k, err := buildKey(context.Background(), mod, target, src, mod)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	// No settings of the user's go env file (go env -w) leak in.
	t.Setenv("GOENV", "off")
	base := key(t, "GOFLAGS", "", "CGO_ENABLED", "1", "CC", "gcc")
	tests := []struct {
		name string
		env  []string
		same bool
	}{
		{"the same environment", nil, true},
		{"GOFLAGS -X", []string{"GOFLAGS", "-ldflags=-X=example.com/keytest/lib.Mode=b"}, false},
		{"GOFLAGS -X, another value", []string{"GOFLAGS", "-ldflags=-X=example.com/keytest/lib.Mode=c"}, false},
		{"GOFLAGS -tags", []string{"GOFLAGS", "-tags=x"}, false},
		{"cgo off", []string{"CGO_ENABLED", "0"}, false},
		{"another C compiler", []string{"CC", "clang"}, false},
		{"GOEXPERIMENT", []string{"GOEXPERIMENT", "loopvar"}, false}, // known to every Go since 1.21
		{"GOAMD64 or GOARM64", []string{"GOAMD64", "v3", "GOARM64", "v8.1"}, runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64"},
	}
	keys := map[string]string{base: "the first"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := key(t, append([]string{"GOFLAGS", "", "CGO_ENABLED", "1", "CC", "gcc"}, tt.env...)...)
			switch {
			case tt.same && k != base:
				t.Errorf("key %s, want %s as before", k, base)
			case !tt.same && keys[k] != "":
				t.Errorf("key %s, the key of %s", k, keys[k])
			}
			if !tt.same {
				keys[k] = tt.name
			}
		})
	}
	// Without cgo the C compiler is not part of the build.
	off := key(t, "GOFLAGS", "", "CGO_ENABLED", "0", "CC", "gcc")
	if other := key(t, "GOFLAGS", "", "CGO_ENABLED", "0", "CC", "clang"); other != off {
		t.Errorf("without cgo, CC changes the key: %s, %s", off, other)
	}
}

// TestCacheErrorNames (issue 29, item 11): whoever plants a file in a
// cached build chooses its name; the error that refuses the build shows
// it quoted, without the escape sequence that would rewrite the terminal.
func TestCacheErrorNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "entry")
	if err := PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "harness"), []byte("built"), 0o700)
	if err := seal(dir); err != nil {
		t.Fatal(err)
	}
	planted := "x\x1b]0;owned\a"
	if err := os.WriteFile(filepath.Join(dir, planted), []byte("planted"), 0o700); err != nil {
		t.Skip(err)
	}
	_, err := cachedEntry(dir)
	if err == nil || !strings.Contains(err.Error(), `"x\x1b]0;owned\a" is not in its manifest`) || strings.ContainsAny(err.Error(), "\x1b\a") {
		t.Errorf("error %q, want one naming the planted file, quoted", err)
	}
}
