package coverage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/internal/procgroup"
)

// Target is a program to record. By default it is a Go function, a
// func([]byte) error or func([]byte), named by ImportPath and Func; with
// Harness set, a function of another language run in-process by a
// harness of that language; with Command set, a command run once per
// input. A Target is kept in coverage files and models, so that what was
// recorded can be run again.
type Target struct {
	ImportPath string `json:"import_path,omitempty"` // the function's package
	Func       string `json:"func,omitempty"`        // its name
	// Packages (or patterns such as a/b/...) whose functions are recorded.
	// Empty means DefaultCoverPkgs, resolved when the harness is built.
	CoverPkgs []string `json:"coverpkg,omitempty"`
	// Where the go command runs: a directory of the module that can import
	// the package (empty: the current directory).
	Dir string `json:"dir,omitempty"`

	Harness *HarnessTarget `json:"harness,omitempty"`
	Command *CommandTarget `json:"command,omitempty"`
}

func (t Target) String() string {
	switch {
	case t.Harness != nil:
		return t.Harness.String()
	case t.Command != nil:
		return strings.Join(t.Command.Argv, " ")
	}
	return t.ImportPath + "." + t.Func
}

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
	Path string
	// Args are the arguments a harness is started with (a Go harness has
	// none; a Java harness names its classes, a Python one its module).
	Args   []string
	Target Target
	Cached bool // reused from an earlier build
	// StartGrace is how much longer than the time limit a process's
	// first input may take (a JVM's first input loads and initializes
	// the classes it uses).
	StartGrace time.Duration
	// MemoryArg, if set, is the argument that bounds the harness's memory
	// to the given bytes, for harnesses that cannot take the limit once
	// they run (a JVM's heap); it goes first, so that the target's own
	// options come later and win.
	MemoryArg func(bytes int64) string
	// Env is added to the harness's environment (a Python harness's
	// PYTHONHASHSEED).
	Env []string
}

// Build builds a harness main for the target as a package of the module
// at t.Dir (or of a scratch module for the standard library), given to
// the go command as an overlay so that nothing is written into the
// module, once, with -cover -covermode=atomic and the target's packages
// in -coverpkg, and caches the binary under
// cacheDir, keyed by everything the build reads: the Go version, the
// build settings of the go command's environment (GOFLAGS, GOOS and
// GOARCH, CGO_ENABLED and, with cgo, the C compiler and its flags,
// GOEXPERIMENT: buildEnv), the target, the module's go.mod and go.sum,
// and the contents of the source and embedded files of every
// non-standard package it depends on.
func Build(ctx context.Context, t Target, cacheDir string) (*Binary, error) {
	return build(ctx, t, cacheDir, true)
}

// Cached returns the target's harness if it is already built in cacheDir,
// and nil otherwise; it never builds (but makes cacheDir, empty, if it is
// missing). A build found there that fails its checks is an error.
func Cached(ctx context.Context, t Target, cacheDir string) (*Binary, error) {
	return build(ctx, t, cacheDir, false)
}

func build(ctx context.Context, t Target, cacheDir string, doBuild bool) (*Binary, error) {
	if err := t.checkKinds(); err != nil {
		return nil, err
	}
	if t.Command != nil {
		// Nothing to build: a session runs the command once per input.
		return &Binary{Target: t, Cached: true}, nil
	}
	cacheDir, err := openCache(cacheDir)
	if err != nil {
		return nil, err
	}
	if t.Harness != nil {
		return buildHarness(ctx, t, cacheDir, doBuild)
	}
	p, err := planGo(ctx, t)
	if err != nil {
		return nil, err
	}
	key, err := buildKey(ctx, p.dir, p.t, p.src, p.modDir)
	if err != nil {
		return nil, err
	}
	entry := filepath.Join(cacheDir, key)
	name := "harness"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	bin := filepath.Join(entry, name)
	if ok, err := cachedEntry(entry); err != nil {
		return nil, err
	} else if ok {
		return &Binary{Path: bin, Target: p.t, Cached: true}, nil
	}
	if !doBuild {
		return nil, nil
	}
	if err := p.build(ctx, cacheDir, entry, name); err != nil {
		return nil, err
	}
	return &Binary{Path: bin, Target: p.t}, nil
}

// goPlan is what a Go harness build reads.
type goPlan struct {
	t       Target // with its CoverPkgs resolved
	src     map[string][]byte
	dir     string // where the go command runs for the target
	modDir  string // the module's root, or "" for the standard library outside a module
	modPath string
}

// planGo makes the harness's sources and finds the target's module.
func planGo(ctx context.Context, t Target) (*goPlan, error) {
	src, err := harnessFiles(t.ImportPath, t.Func)
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
	p := &goPlan{t: t, src: src, dir: dir}
	if !standard || inModule(ctx, dir) {
		out, err := goList(ctx, dir, "-m", "-f", "{{.Dir}}|{{.Path}}")
		if err != nil {
			return nil, fmt.Errorf("find the module of %s: %w", dir, err)
		}
		p.modDir, p.modPath, _ = strings.Cut(strings.Split(out, "\n")[0], "|")
	}
	return p, nil
}

// build builds the harness into the cache entry, as the file name.
//
// The harness is a module of its own in a scratch folder, joined to
// the user's module (and the user's workspace, if any) by a go.work
// file there, so that nothing is ever written into the user's module,
// even by a build that is killed. Only a vendored module, which a
// workspace cannot use, gets the harness as a package inside it
// (named "_..." so that ./... patterns skip it), removed after the
// build. Names carry this process's id, so that a later build can
// tell the leftovers of a killed build from a build under way.
func (p *goPlan) build(ctx context.Context, cacheDir, entry, name string) error {
	sweep(os.TempDir(), scratchPrefix)
	if p.modDir != "" {
		sweep(p.modDir, harnessPrefix)
	}
	scratch, err := os.MkdirTemp("", fmt.Sprintf("%s%d_", scratchPrefix, os.Getpid()))
	if err != nil {
		return fmt.Errorf("harness directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	l := p.layout(scratch)
	if l.vendored {
		defer os.RemoveAll(l.hdir)
	}
	env, err := p.write(ctx, scratch, l)
	if err != nil {
		return err
	}
	// The harness's main package must be instrumented too: without it the
	// runtime registers no coverage meta-data at all.
	mainPkg := l.pkg
	if l.vendored {
		mainPkg = p.modPath + "/" + filepath.Base(l.hdir)
	}
	coverpkg := strings.Join(append(slices.Clone(p.t.coverPkgs()), mainPkg), ",")
	return buildDir(cacheDir, entry, func(tmp string) error {
		return p.goBuild(ctx, l, env, coverpkg, filepath.Join(tmp, name))
	})
}

// harnessLayout is where a Go harness's package is written and built.
type harnessLayout struct {
	hdir     string // the package's folder
	goDir    string // where go build runs
	pkg      string // the package, as go build is given it
	vendored bool   // hdir is in the user's vendored module
}

// layout places the harness in scratch, or in the user's module if it
// is vendored.
func (p *goPlan) layout(scratch string) harnessLayout {
	tag := filepath.Base(scratch)[len(scratchPrefix):]
	l := harnessLayout{hdir: filepath.Join(scratch, "harness"), goDir: filepath.Join(scratch, "harness"), pkg: harnessModule}
	if p.modDir != "" {
		_, err := os.Stat(filepath.Join(p.modDir, "vendor", "modules.txt"))
		l.vendored = err == nil
	}
	if l.vendored {
		l.hdir, l.goDir = filepath.Join(p.modDir, harnessPrefix+tag), p.modDir
		l.pkg = "./" + filepath.Base(l.hdir)
	}
	return l
}

// write writes the harness's package, and outside a vendored module its
// go.mod and the go.work that joins it to the user's module, and returns
// the environment go build runs in.
func (p *goPlan) write(ctx context.Context, scratch string, l harnessLayout) ([]string, error) {
	env := os.Environ()
	if err := os.Mkdir(l.hdir, 0o755); err != nil {
		return nil, fmt.Errorf("harness directory: %w", err)
	}
	for name, text := range p.src {
		if err := os.WriteFile(filepath.Join(l.hdir, name), text, 0o644); err != nil {
			return nil, err
		}
	}
	if !l.vendored {
		version, err := goVersion(ctx, scratch)
		if err != nil {
			return nil, err
		}
		goMod := fmt.Sprintf("module %s\n\ngo %s\n", harnessModule, version)
		if err := os.WriteFile(filepath.Join(l.hdir, "go.mod"), []byte(goMod), 0o644); err != nil {
			return nil, err
		}
		work, err := workspace(ctx, p.dir, scratch, l.hdir, p.modDir, version)
		if err != nil {
			return nil, err
		}
		env = append(env, "GOWORK="+work)
	}
	return env, nil
}

// goBuild runs go build for the harness, writing the binary to out.
func (p *goPlan) goBuild(ctx context.Context, l harnessLayout, env []string, coverpkg, out string) error {
	t := p.t
	// The go command and the compilers it starts go when arbor does.
	cmd := procgroup.Command(ctx, "go", "build", "-cover", "-covermode=atomic", "-coverpkg="+coverpkg, "-o", out, l.pkg)
	cmd.Dir = l.goDir
	cmd.Env = env
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("build harness for %s: %w", t, ctx.Err())
		}
		if strings.Contains(output.String(), "undefined: subject."+t.Func) {
			// The compiler's words name a temporary file; say it in the
			// user's terms, with the functions that would do.
			return noSuchFunc(ctx, p.dir, t)
		}
		return fmt.Errorf("build harness for %s: %w\n%s", t, err, strings.TrimSpace(output.String()))
	}
	return nil
}

// Kinds is how many kinds of program (a Go function, a harness, a
// command) t names: one for a target that can run.
func (t Target) Kinds() int {
	n := 0
	for _, set := range []bool{t.ImportPath != "" || t.Func != "", t.Harness != nil, t.Command != nil} {
		if set {
			n++
		}
	}
	return n
}

// checkKinds refuses a target that names more than one kind of program:
// the build and the session would each take a different one.
func (t Target) checkKinds() error {
	if n := t.Kinds(); n > 1 {
		return fmt.Errorf("the target %s names %d kinds of program (a Go function, a harness, a command), not one", t, n)
	}
	return nil
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
	return goCmd(ctx, dir, append([]string{"list"}, args...)...)
}

// goCmd runs the go command in dir and returns its output, trimmed.
func goCmd(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
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
func buildKey(ctx context.Context, dir string, t Target, src map[string][]byte, modDir string) (string, error) {
	h := sha256.New()
	// The toolchain (GOVERSION, GOROOT) is part of the environment.
	env, err := buildEnv(ctx, dir)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "%d\n%s\n%s\n%q\n", buildRecipe, t.ImportPath, t.Func, t.coverPkgs())
	for _, name := range slices.Sorted(maps.Keys(env)) {
		fmt.Fprintf(h, "%s=%q\n", name, env[name])
	}
	for _, name := range slices.Sorted(maps.Keys(src)) {
		fmt.Fprintf(h, "%s %d\n", name, len(src[name]))
		h.Write(src[name])
	}
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

// buildEnv is the build environment a harness build in dir gets, as the
// go command sees it (the environment, the user's go env file, the
// defaults), by variable: part of the cache key, so that a harness built
// with other settings is not reused.
func buildEnv(ctx context.Context, dir string) (map[string]string, error) {
	// The settings that change what a build makes from the same sources:
	// flags (GOFLAGS=-ldflags=-X=... sets a variable of the program,
	// -tags picks other files), the platform and its architecture
	// levels, experiments, FIPS mode, the toolchain and its root.
	vars := []string{"GOFLAGS", "CGO_ENABLED", "GOOS", "GOARCH", "GOEXPERIMENT", "GOFIPS140",
		"GO386", "GOAMD64", "GOARM", "GOARM64", "GOMIPS", "GOMIPS64", "GOPPC64", "GORISCV64", "GOWASM",
		"GOROOT", "GOVERSION"}
	// These count only when cgo is on: then the C compiler and its flags
	// build part of the program (net and os/user of the standard library among it).
	cgoVars := []string{"CC", "CXX", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "PKG_CONFIG"}
	out, err := goCmd(ctx, dir, append([]string{"env", "-json"}, slices.Concat(vars, cgoVars)...)...)
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	env := map[string]string{}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	if env["CGO_ENABLED"] != "1" {
		for _, name := range cgoVars {
			delete(env, name)
		}
	}
	return env, nil
}

// Names of what a build writes while it runs: the harness package inside
// the module, and the binary in the cache before it is renamed into place.
const (
	harnessPrefix = "_arbor_harness_"
	tmpPrefix     = "harness.tmp"
	scratchPrefix = "arbor-harness-"
	// buildRecipe changes whenever the way a harness is built changes
	// without its sources changing, so that no older build is reused
	// (3: the binary is in a sealed folder, cache.go).
	buildRecipe   = 3
	harnessModule = "arborharness"
)

// buildDir builds a cached folder: build fills a temporary folder in
// cacheDir (private to the user, 0700), whose manifest is then written
// (seal) and which is then renamed to dir, so that a build killed
// half-way leaves no folder that looks finished (and the next build
// sweeps it away), and a finished one can be checked before use
// (cachedEntry). A build that ran alongside and renamed its folder first
// wins, if its folder passes the check.
func buildDir(cacheDir, dir string, build func(tmp string) error) error {
	if err := PrivateDir(cacheDir); err != nil {
		return err
	}
	sweep(cacheDir, tmpPrefix)
	tmp, err := os.MkdirTemp(cacheDir, fmt.Sprintf("%s%d_", tmpPrefix, os.Getpid()))
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := build(tmp); err != nil {
		return err
	}
	if err := seal(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if ok, cerr := cachedEntry(dir); !ok {
			return errors.Join(err, cerr)
		}
	}
	return nil
}

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

// workspace writes scratch/go.work, which joins the harness module at
// hdir to the user's module at modDir (none for the standard library)
// and to every module and replacement of the workspace the user's
// directory dir is in, if any.
func workspace(ctx context.Context, dir, scratch, hdir, modDir, version string) (string, error) {
	text, err := Workspace(ctx, dir, version, hdir, modDir)
	if err != nil {
		return "", err
	}
	file := filepath.Join(scratch, "go.work")
	return file, os.WriteFile(file, []byte(text), 0o644)
}

// Workspace returns the text of a go.work file (Go version version) that
// uses the module folders given (empty ones are left out) and every
// module and replacement of the workspace the folder dir is in, if any:
// what a program built beside a user's module needs to build with the
// user's own workspace, as arbor's harnesses and fuzz tests are.
func Workspace(ctx context.Context, dir, version string, modules ...string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "go %s\n\n", version)
	uses := map[string]bool{}
	use := func(d string) {
		if d == "" {
			return
		}
		d = filepath.Clean(d)
		if !uses[d] {
			uses[d] = true
			fmt.Fprintf(&b, "use %s\n", strconv.Quote(d))
		}
	}
	for _, m := range modules {
		use(m)
	}
	work, err := goEnv(ctx, dir, "GOWORK")
	if err != nil || work == "" || work == "off" {
		return b.String(), nil
	}
	out, err := goCmd(ctx, dir, "work", "edit", "-json", work)
	if err != nil {
		return "", fmt.Errorf("read the workspace %s: %w", work, err)
	}
	var w struct {
		Use     []struct{ DiskPath string }
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal([]byte(out), &w); err != nil {
		return "", fmt.Errorf("read the workspace %s: %w", work, err)
	}
	for _, u := range w.Use {
		d := u.DiskPath
		if !filepath.IsAbs(d) {
			d = filepath.Join(filepath.Dir(work), d)
		}
		use(d)
	}
	for _, r := range w.Replace {
		old, repl := strconv.Quote(r.Old.Path), strconv.Quote(r.New.Path)
		if r.Old.Version != "" {
			old += " " + r.Old.Version
		}
		if r.New.Version != "" {
			repl += " " + r.New.Version
		} else if !filepath.IsAbs(r.New.Path) && strings.HasPrefix(r.New.Path, ".") {
			repl = strconv.Quote(filepath.Join(filepath.Dir(work), r.New.Path))
		}
		fmt.Fprintf(&b, "replace %s => %s\n", old, repl)
	}
	return b.String(), nil
}

// goVersion is the go command's language version, as go.mod and go.work
// files write it: a workspace's must be at least its modules'. It is
// asked in a folder outside any module, so that no module's toolchain
// line switches toolchains.
func goVersion(ctx context.Context, dir string) (string, error) {
	v, err := goCmd(ctx, dir, "env", "GOVERSION")
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	v = strings.TrimPrefix(v, "go")
	if i := strings.IndexAny(v, " -+"); i >= 0 {
		v = v[:i]
	}
	if v == "" || v[0] < '0' || v[0] > '9' {
		return "1.24", nil // a development toolchain
	}
	return v, nil
}

// goEnv is one variable of go env, as seen from dir.
func goEnv(ctx context.Context, dir, name string) (string, error) {
	return goCmd(ctx, dir, "env", name)
}

// noSuchFunc is the error for a target whose package has no exported
// function of its name; it lists the package's functions arbor could
// record instead (func([]byte) error or func([]byte)).
func noSuchFunc(ctx context.Context, dir string, t Target) error {
	msg := fmt.Sprintf("package %s has no exported function %s", t.ImportPath, t.Func)
	listing, err := goList(ctx, dir, "-f", "{{.Dir}}\n{{range .GoFiles}}{{.}}\n{{end}}", t.ImportPath)
	if err != nil {
		return errors.New(msg)
	}
	lines := strings.Split(listing, "\n")
	fset := token.NewFileSet()
	var fits []string
	for _, name := range lines[1:] {
		f, err := parser.ParseFile(fset, filepath.Join(lines[0], name), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if ok && fn.Recv == nil && fn.Name.IsExported() && takesBytes(fn.Type) {
				fits = append(fits, fn.Name.Name)
			}
		}
	}
	slices.Sort(fits)
	switch len(fits) {
	case 0:
		return fmt.Errorf("%s (and none of type func([]byte) error or func([]byte))", msg)
	default:
		return fmt.Errorf("%s; of type func([]byte) error or func([]byte) it has: %s", msg, strings.Join(fits, ", "))
	}
}

// takesBytes reports whether a function type is func([]byte) error or
// func([]byte), as written (an alias of []byte is not seen through).
func takesBytes(ft *ast.FuncType) bool {
	if ft.TypeParams != nil || ft.Params == nil || len(ft.Params.List) != 1 || len(ft.Params.List[0].Names) > 1 {
		return false
	}
	arr, ok := ft.Params.List[0].Type.(*ast.ArrayType)
	if !ok || arr.Len != nil {
		return false
	}
	if elem, ok := arr.Elt.(*ast.Ident); !ok || elem.Name != "byte" {
		return false
	}
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return true
	}
	if len(ft.Results.List) != 1 || len(ft.Results.List[0].Names) > 1 {
		return false
	}
	res, ok := ft.Results.List[0].Type.(*ast.Ident)
	return ok && res.Name == "error"
}
