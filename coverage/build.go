package coverage

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Target is a Go function to record: a func([]byte) error or func([]byte).
type Target struct {
	ImportPath string `json:"import_path"` // the function's package
	Func       string `json:"func"`        // its name
	// Packages (or patterns such as a/b/...) whose functions are recorded.
	// Empty means DefaultCoverPkgs, resolved when the harness is built.
	CoverPkgs []string `json:"coverpkg,omitempty"`
	// Where the go command runs: a directory of the module that can import
	// the package (empty: the current directory).
	Dir string `json:"dir,omitempty"`
}

func (t Target) String() string { return t.ImportPath + "." + t.Func }

// ParseTarget reads a function named as importpath.Func, as in
// encoding/json.Valid or example.com/w.Run.
func ParseTarget(s string) (Target, error) {
	dot := strings.LastIndex(s, ".")
	slash := strings.LastIndex(s, "/")
	if dot <= slash+1 || dot == len(s)-1 {
		return Target{}, fmt.Errorf("want importpath.Func, as in encoding/json.Valid, not %q", s)
	}
	return Target{ImportPath: s[:dot], Func: s[dot+1:]}, nil
}

func (t Target) coverPkgs() []string {
	if len(t.CoverPkgs) == 0 {
		return []string{t.ImportPath}
	}
	return t.CoverPkgs
}

// covers reports whether package path is one of the target's covered packages.
func (t Target) covers(path string) bool {
	for _, p := range t.coverPkgs() {
		if prefix, ok := strings.CutSuffix(p, "/..."); ok {
			if path == prefix || strings.HasPrefix(path, prefix+"/") {
				return true
			}
		} else if path == p {
			return true
		}
	}
	return false
}

// Binary is a built harness.
type Binary struct {
	Path   string
	Target Target
	Cached bool // reused from an earlier build
}

// Build writes a harness main for the target into a temporary directory
// inside the module at t.Dir (or a scratch module for the standard
// library), builds it once with -cover -covermode=atomic and the target's
// packages plus the harness in -coverpkg, and caches the binary under
// cacheDir, keyed by everything the build reads: the Go version, the
// target, the module's go.mod and go.sum, and the contents of the source
// and embedded files of every non-standard package it depends on.
func Build(ctx context.Context, t Target, cacheDir string) (*Binary, error) {
	return build(ctx, t, cacheDir, true)
}

// Cached returns the target's harness if it is already built in cacheDir,
// and nil otherwise; it never builds.
func Cached(ctx context.Context, t Target, cacheDir string) (*Binary, error) {
	return build(ctx, t, cacheDir, false)
}

func build(ctx context.Context, t Target, cacheDir string, doBuild bool) (*Binary, error) {
	src, err := harnessMain(t.ImportPath, t.Func)
	if err != nil {
		return nil, err
	}
	dir := t.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	info, err := goList(ctx, dir, "-f", "{{.Standard}}|{{if .Module}}{{.Module.Path}}{{end}}", t.ImportPath)
	if err != nil {
		return nil, fmt.Errorf("find package %s: %w", t.ImportPath, err)
	}
	standard := strings.HasPrefix(info, "true|")
	if len(t.CoverPkgs) == 0 {
		if t.CoverPkgs, err = DefaultCoverPkgs(ctx, t); err != nil {
			return nil, err
		}
	}
	modDir, modPath := "", ""
	if !standard || inModule(ctx, dir) {
		out, err := goList(ctx, dir, "-m", "-f", "{{.Dir}}|{{.Path}}")
		if err != nil {
			return nil, fmt.Errorf("find the module of %s: %w", dir, err)
		}
		modDir, modPath, _ = strings.Cut(strings.Split(out, "\n")[0], "|")
	}
	key, err := buildKey(ctx, dir, t, src, modDir)
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(cacheDir, key, "harness")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if _, err := os.Stat(bin); err == nil {
		return &Binary{Path: bin, Target: t, Cached: true}, nil
	}
	if !doBuild {
		return nil, nil
	}
	if modDir == "" {
		// The standard library needs some module to build in: a scratch one.
		if modDir, err = os.MkdirTemp("", "arbor-module-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(modDir)
		modPath = "arborharness"
		if err := os.WriteFile(filepath.Join(modDir, "go.mod"), []byte("module arborharness\n"), 0o644); err != nil {
			return nil, err
		}
	}
	// A directory starting with "_" is ignored by ./... patterns, so the
	// module's own builds and tests never see the harness.
	// The name carries this process's id, so that a later build can tell
	// the leftovers of a build that was killed from a build under way.
	sweep(modDir, harnessPrefix)
	sweep(filepath.Dir(bin), tmpPrefix)
	suffix := make([]byte, 4)
	rand.Read(suffix)
	tag := fmt.Sprintf("%d_%s", os.Getpid(), hex.EncodeToString(suffix))
	hdirName := harnessPrefix + tag
	hdir := filepath.Join(modDir, hdirName)
	if err := os.Mkdir(hdir, 0o755); err != nil {
		return nil, fmt.Errorf("harness directory: %w", err)
	}
	defer os.RemoveAll(hdir)
	if err := os.WriteFile(filepath.Join(hdir, "main.go"), src, 0o644); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return nil, err
	}
	tmp := filepath.Join(filepath.Dir(bin), tmpPrefix+tag)
	coverpkg := strings.Join(append(t.coverPkgs(), modPath+"/"+hdirName), ",")
	cmd := exec.CommandContext(ctx, "go", "build", "-cover", "-covermode=atomic", "-coverpkg="+coverpkg, "-o", tmp, "./"+hdirName)
	cmd.Dir = modDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("build harness for %s: %w", t, ctx.Err())
		}
		return nil, fmt.Errorf("build harness for %s: %w\n%s", t, err, strings.TrimSpace(out.String()))
	}
	if err := os.Rename(tmp, bin); err != nil {
		return nil, err
	}
	return &Binary{Path: bin, Target: t}, nil
}

// DefaultCoverPkgs is what a harness records when the target names no
// packages: the function's package, every package outside the standard
// library that it depends on (directly or not), and the standard-library
// packages it imports directly, except the general plumbing nearly every
// program imports (fmt, bytes, strings, io, os, sort, sync, time, ...)
// and the runtime's internals. A wrapper around a library thus records
// the library, whether the library is a module of its own (gopkg.in/yaml.v3
// and what it imports) or part of the standard library (encoding/json).
// A function of the standard library itself records its own package.
func DefaultCoverPkgs(ctx context.Context, t Target) ([]string, error) {
	dir := t.Dir
	if dir == "" {
		dir = "."
	}
	deps, err := goList(ctx, dir, "-deps", "-f", "{{.ImportPath}}|{{.Standard}}", t.ImportPath)
	if err != nil {
		return nil, fmt.Errorf("list the dependencies of %s: %w", t.ImportPath, err)
	}
	pkgs := []string{t.ImportPath}
	for _, line := range strings.Split(deps, "\n") {
		path, std, _ := strings.Cut(line, "|")
		if path == t.ImportPath && std == "true" {
			return pkgs, nil
		}
		if std == "false" && path != t.ImportPath {
			pkgs = append(pkgs, path)
		}
	}
	imports, err := goList(ctx, dir, "-f", "{{range .Imports}}{{.}}\n{{end}}", t.ImportPath)
	if err != nil {
		return nil, fmt.Errorf("list the imports of %s: %w", t.ImportPath, err)
	}
	for _, path := range strings.Fields(imports) {
		if !strings.Contains(strings.Split(path, "/")[0], ".") && !plumbing(path) {
			pkgs = append(pkgs, path)
		}
	}
	slices.Sort(pkgs[1:])
	return slices.Compact(pkgs), nil
}

// plumbing reports whether a standard-library package is one that almost
// every program imports for its own purposes, so that recording it would
// only add functions unrelated to the input's structure.
func plumbing(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	switch first {
	case "bufio", "bytes", "cmp", "context", "embed", "errors", "flag", "fmt", "internal", "io", "iter", "log",
		"maps", "math", "os", "path", "reflect", "runtime", "slices", "sort", "strconv", "strings", "sync",
		"syscall", "testing", "time", "unicode", "unique", "unsafe", "weak":
		return true
	}
	return strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")
}

func inModule(ctx context.Context, dir string) bool {
	out, err := goList(ctx, dir, "-m", "-f", "{{.Dir}}")
	return err == nil && out != ""
}

func goList(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err() // killed by the context, not a go list failure
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", errors.New(msg)
	}
	return strings.TrimSpace(string(out)), nil
}

// buildKey hashes the inputs of a harness build.
func buildKey(ctx context.Context, dir string, t Target, src []byte, modDir string) (string, error) {
	h := sha256.New()
	version, err := exec.CommandContext(ctx, "go", "version").Output()
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("go version: %w", err)
	}
	fmt.Fprintf(h, "%s\n%s\n%s\n%q\n", version, t.ImportPath, t.Func, t.coverPkgs())
	h.Write(src)
	if modDir != "" {
		for _, f := range []string{"go.mod", "go.sum"} {
			if b, err := os.ReadFile(filepath.Join(modDir, f)); err == nil {
				fmt.Fprintf(h, "%s %d\n", f, len(b))
				h.Write(b)
			}
		}
	}
	// Every file the build reads, by content: an edit that keeps a file's
	// size and time, or a change to an embedded file, makes a new key.
	deps, err := goList(ctx, dir, "-deps", "-json=Dir,Standard,GoFiles,CgoFiles,CFiles,HFiles,SFiles,EmbedFiles", t.ImportPath)
	if err != nil {
		return "", fmt.Errorf("list the dependencies of %s: %w", t.ImportPath, err)
	}
	dec := json.NewDecoder(strings.NewReader(deps))
	for {
		var p struct {
			Dir                                                   string
			Standard                                              bool
			GoFiles, CgoFiles, CFiles, HFiles, SFiles, EmbedFiles []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return "", fmt.Errorf("list the dependencies of %s: %w", t.ImportPath, err)
		}
		if p.Standard {
			continue
		}
		for _, f := range slices.Concat(p.GoFiles, p.CgoFiles, p.CFiles, p.HFiles, p.SFiles, p.EmbedFiles) {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				return "", err
			}
			sum := sha256.Sum256(b)
			fmt.Fprintf(h, "%s/%s %x\n", p.Dir, f, sum)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// DefaultCacheDir is where harness binaries are kept between runs.
func DefaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "arbor", "harness")
	}
	return filepath.Join(os.TempDir(), "arbor-harness")
}

// Names of what a build writes while it runs: the harness package inside
// the module, and the binary in the cache before it is renamed into place.
const (
	harnessPrefix = "_arbor_harness_"
	tmpPrefix     = "harness.tmp"
)

// sweep removes what builds killed before they could clean up left in
// dir: entries named prefix + "<pid>_..." whose process is gone, and,
// from arbor versions that did not name the process, entries older than
// an hour (no build takes that long).
func sweep(dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		pidText, _, named := strings.Cut(rest, "_")
		pid, err := strconv.Atoi(pidText)
		stale := false
		if named && err == nil && pid > 0 {
			stale = pid != os.Getpid() && !alive(pid)
		} else if info, err := e.Info(); err == nil {
			stale = time.Since(info.ModTime()) > time.Hour
		}
		if stale {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
