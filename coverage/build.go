package coverage

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Target is a Go function to record: a func([]byte) error or func([]byte).
type Target struct {
	ImportPath string   // the function's package
	Func       string   // its name
	CoverPkgs  []string // packages (or patterns such as a/b/...) whose functions are recorded; default ImportPath
	Dir        string   // where the go command runs: a directory of the module that can import the package
}

func (t Target) String() string { return t.ImportPath + "." + t.Func }

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
// target, the module's go.mod and go.sum, and the names, sizes and times
// of the source files of every non-standard package it depends on.
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
	suffix := make([]byte, 4)
	rand.Read(suffix)
	hdirName := "_arbor_harness_" + hex.EncodeToString(suffix)
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
	tmp := bin + ".tmp" + hex.EncodeToString(suffix)
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
	deps, err := goList(ctx, dir, "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{end}}", t.ImportPath)
	if err != nil {
		return "", fmt.Errorf("list the dependencies of %s: %w", t.ImportPath, err)
	}
	for _, line := range strings.Split(deps, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		for _, f := range fields[1:] {
			fi, err := os.Stat(filepath.Join(fields[0], f))
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "%s/%s %d %d\n", fields[0], f, fi.Size(), fi.ModTime().UnixNano())
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
