package fuzztarget

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"unicode"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/load"
	"github.com/arbor-fuzz/arbor/internal/atomicfile"
	"github.com/arbor-fuzz/arbor/synth"
)

// Config says what to write.
type Config struct {
	// Dir is the fuzz package's folder, inside the Go module of Func's
	// package (the module's go.mod is looked up from it); it is created
	// if need be. One fuzz target per folder.
	Dir string
	// Func is the function to fuzz, importpath.Name: a func([]byte) or
	// func([]byte) error, as arbor's Go subjects are.
	Func string
	// Target is the fuzz target's name, FuzzX (corpus.CheckFuzzTarget).
	Target string
	// Grammar is the grammar's syntax, written into Dir in arbor's
	// notation as GrammarName.grammar (default "input").
	Grammar     *grammar.Grammar
	GrammarName string
	// Seeds are inputs to start from: each is parsed with the grammar
	// and turned into the bytes from which the target's generator makes
	// it again (synth.ByteGenerator.BytesOf), in Go's corpus format in
	// Dir/testdata/fuzz/Target. Seeds already there stay.
	Seeds []Seed
	// BaseImage, if set, is OSS-Fuzz's Go builder image, which
	// ClusterFuzzLite's Dockerfile starts from; without it no Dockerfile
	// is written.
	BaseImage string
	// Force lets Write replace target files that differ from what it
	// would write now (an edited fuzz test, another grammar).
	Force bool
	// NoConstraints leaves the grammar's where clauses out of the
	// target: by default its generator repairs each input to keep them
	// (synth.ByteGenerator.Constraints), which costs time per input.
	NoConstraints bool
}

// A Seed is an input and the name it is reported by.
type Seed struct {
	Name string
	Data []byte
}

// Result says what Write did.
type Result struct {
	Package    string   `json:"package"`    // the fuzz package's import path
	Dir        string   `json:"dir"`        // its folder
	ModuleDir  string   `json:"module_dir"` // the module's root
	Fuzzer     string   `json:"fuzzer"`     // the libFuzzer binary's name in OSS-Fuzz's $OUT
	Written    []string `json:"written"`    // files written or changed
	Unchanged  []string `json:"unchanged"`  // files already as they would be written
	Seeds      int      `json:"seeds"`      // seeds written (or already there)
	Unseedable []Failed `json:"unseedable"` // seeds the grammar's generator cannot make
	Todo       []string `json:"todo"`       // what is left for the user
	// Clauses counts the grammar's where clauses, and Applied says
	// whether the target's inputs keep them.
	Clauses int  `json:"clauses"`
	Applied bool `json:"clauses_applied"`
}

// Failed is a seed that could not be written, and why.
type Failed struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

// Write writes the fuzz package and ClusterFuzzLite's build files (those
// missing: a project's own build.sh, project.yaml and Dockerfile are not
// replaced) and returns what it did. ctx bounds the go command it runs
// to find the module.
func Write(ctx context.Context, cfg Config) (*Result, error) {
	imp, name, err := splitFunc(cfg.Func)
	if err != nil {
		return nil, err
	}
	if err := corpus.CheckFuzzTarget(cfg.Target); err != nil {
		return nil, err
	}
	if cfg.Grammar == nil {
		return nil, errors.New("no grammar")
	}
	if cfg.GrammarName == "" {
		cfg.GrammarName = "input"
	}
	text := grammar.Format(cfg.Grammar)
	g, err := buildText(cfg.GrammarName+".grammar", text)
	if err != nil {
		return nil, fmt.Errorf("the grammar, in arbor's notation: %w", err)
	}
	var set *constraint.Set
	if !cfg.NoConstraints && len(cfg.Grammar.Where) > 0 {
		if set, err = constraint.Compile(g); err != nil {
			return nil, fmt.Errorf("the grammar's where clauses: %w", err)
		}
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	modPath, modDir, err := module(ctx, dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(modDir, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is not inside the module at %s", dir, modDir)
	}
	rel = filepath.ToSlash(rel)
	pkgPath := modPath
	if rel != "." {
		pkgPath += "/" + rel
	}
	if pkgPath == imp {
		return nil, fmt.Errorf("the fuzz package's folder is %s's own package: give it a folder of its own", cfg.Func)
	}
	res := &Result{Package: pkgPath, Dir: dir, ModuleDir: modDir, Written: []string{}, Unchanged: []string{}, Unseedable: []Failed{}, Todo: []string{},
		Clauses: len(cfg.Grammar.Where), Applied: len(cfg.Grammar.Where) > 0 && !cfg.NoConstraints}
	if !requires(ctx, modDir, arborModule) {
		res.Todo = append(res.Todo, fmt.Sprintf("the module does not require %s, which the fuzz package imports: go get %[1]s", arborModule))
	}
	pkg := packageName(filepath.Base(dir))
	res.Fuzzer = pkg + "_" + strings.ToLower(cfg.Target)
	data := map[string]string{
		"Pkg": pkg, "Func": cfg.Func, "ImportPath": imp, "Name": name, "Target": cfg.Target,
		"GrammarFile": cfg.GrammarName + ".grammar", "Rel": rel, "Package": pkgPath, "Fuzzer": res.Fuzzer,
		"BaseImage": cfg.BaseImage, "Project": filepath.Base(modDir), "WrittenBy": writtenBy,
	}
	if set != nil {
		data["Constraints"] = "yes"
	}
	files := []struct {
		path string
		text []byte
	}{
		{filepath.Join(dir, cfg.GrammarName+".grammar"), []byte(text)},
		{filepath.Join(dir, "target.go"), execute(targetGo, data)},
		{filepath.Join(dir, "fuzz_test.go"), execute(fuzzTestGo, data)},
		{filepath.Join(dir, "ossfuzz.sh"), execute(ossfuzzSh, data)},
	}
	// Check every file before writing any, so that a refusal leaves the
	// folder as it was.
	for _, f := range files {
		old, err := os.ReadFile(f.path)
		switch {
		case errors.Is(err, os.ErrNotExist), err == nil && bytes.Equal(old, f.text), cfg.Force:
		case err != nil:
			return nil, err
		default:
			return nil, fmt.Errorf("%s exists and differs from what arbor would write (edited, or for another function or grammar); give --force to replace it", f.path)
		}
	}
	for _, f := range files {
		if err := res.write(f.path, f.text, 0o644); err != nil {
			return nil, err
		}
	}
	if err := res.seeds(g, cfg, dir); err != nil {
		return nil, err
	}
	if err := res.clusterFuzzLite(cfg, data, modDir, rel); err != nil {
		return nil, err
	}
	return res, nil
}

// seeds writes the seeds' bytes into the target's seed corpus. They are
// the bytes of each seed's tree as it is: where the target keeps the
// grammar's where clauses, a seed that breaks one runs repaired.
func (r *Result) seeds(g *grammar.Graph, cfg Config, dir string) error {
	gen := synth.NewByteGenerator(g)
	out := corpus.GoFuzzDir(dir, cfg.Target)
	for _, s := range cfg.Seeds {
		tree, err := g.Parse(s.Data)
		if err == nil {
			var data []byte
			if data, err = gen.BytesOf(tree); err == nil {
				if _, err := corpus.WriteGoFuzz(out, data); err != nil {
					return err
				}
				r.Seeds++
				continue
			}
		}
		r.Unseedable = append(r.Unseedable, Failed{s.Name, err.Error()})
	}
	return nil
}

// clusterFuzzLite writes the files ClusterFuzzLite reads from the
// module's .clusterfuzzlite folder, where they are missing, and has its
// build.sh build this target.
func (r *Result) clusterFuzzLite(cfg Config, data map[string]string, modDir, rel string) error {
	cfl := filepath.Join(modDir, ".clusterfuzzlite")
	if err := os.MkdirAll(cfl, 0o755); err != nil {
		return err
	}
	line := "bash " + rel + "/ossfuzz.sh\n"
	build := filepath.Join(cfl, "build.sh")
	old, err := os.ReadFile(build)
	switch {
	case errors.Is(err, os.ErrNotExist):
		old = execute(buildSh, data)
	case err != nil:
		return err
	}
	switch {
	case bytes.Contains(old, []byte(line)):
		r.Unchanged = append(r.Unchanged, build)
	case bytes.Contains(old, []byte(writtenBy)):
		if len(old) > 0 && old[len(old)-1] != '\n' {
			old = append(old, '\n')
		}
		if err := r.write(build, append(old, line...), 0o755); err != nil {
			return err
		}
	default:
		r.Todo = append(r.Todo, fmt.Sprintf(".clusterfuzzlite/build.sh is the project's own: add the line %q to it", strings.TrimSpace(line)))
	}
	if err := r.writeNew(filepath.Join(cfl, "project.yaml"), []byte(projectYAML)); err != nil {
		return err
	}
	df := filepath.Join(cfl, "Dockerfile")
	if cfg.BaseImage == "" {
		if _, err := os.Stat(df); errors.Is(err, os.ErrNotExist) {
			r.Todo = append(r.Todo, "ClusterFuzzLite needs .clusterfuzzlite/Dockerfile: give --base-image, OSS-Fuzz's Go builder image (base-builder-go), to write it")
		}
		return nil
	}
	return r.writeNew(df, execute(dockerfile, data))
}

// write writes a file and notes it as written, or as unchanged when it
// already holds text.
func (r *Result) write(path string, text []byte, perm os.FileMode) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, text) {
		r.Unchanged = append(r.Unchanged, path)
		return nil
	}
	// Whole or not at all: the file is the user's package's.
	if err := atomicfile.Write(path, text, perm); err != nil {
		return err
	}
	r.Written = append(r.Written, path)
	return nil
}

// writeNew writes a file that does not exist yet; one that does is the
// project's and stays.
func (r *Result) writeNew(path string, text []byte) error {
	if _, err := os.Stat(path); err == nil {
		r.Unchanged = append(r.Unchanged, path)
		return nil
	}
	return r.write(path, text, 0o644)
}

func execute(t *template.Template, data map[string]string) []byte {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		panic(err) // the templates are this package's own, and their data is strings
	}
	return b.Bytes()
}

// splitFunc splits importpath.Name, as coverage.ParseTarget reads it,
// and checks that the name is exported: the fuzz package calls it.
func splitFunc(f string) (imp, name string, err error) {
	t, err := coverage.ParseTarget(f)
	if err != nil {
		return "", "", fmt.Errorf("the function %q is not importpath.Name (example.com/m/decoder.Decode)", f)
	}
	if !token.IsExported(t.Func) {
		return "", "", fmt.Errorf("the function %q: %q is not an exported Go name", f, t.Func)
	}
	return t.ImportPath, t.Func, nil
}

// packageName makes a Go package name of a folder's name: its letters
// and digits, lower-case, starting with a letter.
func packageName(base string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || !unicode.IsLetter(rune(s[0])) || token.IsKeyword(s) {
		s = "fuzz" + s
	}
	return s
}

// module returns the path and root folder of the Go module dir is in.
func module(ctx context.Context, dir string) (path, root string, err error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Path}}\t{{.Dir}}")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("finding the Go module of %s (go list -m): %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	path, root, ok := strings.Cut(strings.TrimSpace(string(out)), "\t")
	if !ok || path == "" || root == "" || path == "command-line-arguments" {
		return "", "", fmt.Errorf("%s is in no Go module: the fuzz package belongs to the module of the function it fuzzes", dir)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return "", "", err
	}
	return path, root, nil
}

// arborModule is the module the fuzz package imports.
const arborModule = "github.com/arbor-fuzz/arbor"

// requires reports whether the module in dir requires module mod (or is
// it).
func requires(ctx context.Context, dir, mod string) bool {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", mod)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd.Run() == nil
}

// buildText builds a grammar from its text in arbor's notation, as the
// fuzz package will.
func buildText(name, text string) (*grammar.Graph, error) {
	ast, warnings, err := load.Source(name, []byte(text), load.Options{})
	if err != nil {
		return nil, err
	}
	return load.Build(ast, warnings)
}
