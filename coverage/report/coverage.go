package report

import (
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Coverage is what one run covered, in a tool-independent form.
type Coverage struct {
	// Format names the report's format: "lcov", "gcov-json", "jacoco" or
	// "coverage.py".
	Format string
	// Functions in the order of the report (by file, then as listed).
	Functions []Function
	// Files holds line coverage where the format has it.
	Files []File
}

// Function is one function (or method) and how often it ran.
type Function struct {
	// Name is qualified in the language's usual way (see QualifiedName
	// and docs/adapters.md): "dir/file.c:func", "pkg.Class.method(int)",
	// "pkg.module.Class.method".
	Name string
	// Symbol is the name the tool gave within File: a C function, a
	// demangled C++ name, a Python qualified name ("Class.method"), a
	// Java method with its descriptor.
	Symbol string
	// File is the source file as the tool reported it ("" if unknown).
	File string
	// Line is the function's first line, EndLine its last; 0 if unknown.
	Line, EndLine int
	// Hits counts the function's entries where the tool counts them; for
	// tools that only know covered or not (JaCoCo, coverage.py) it is 1
	// for covered and 0 for not.
	Hits uint64
}

// File is the line coverage of one source file.
type File struct {
	Path  string
	Lines []Line // by line number, each once
}

// Line is one line with code and how often it ran (lcov, gcov) or
// whether it ran (1 or 0: JaCoCo, coverage.py).
type Line struct {
	Number int
	Hits   uint64
}

// Covered returns the functions that ran (Hits > 0), sorted by name.
func (c *Coverage) Covered() []Function {
	var out []Function
	for _, f := range c.Functions {
		if f.Hits > 0 {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// CoveredNames returns the names of the functions that ran, sorted.
func (c *Coverage) CoveredNames() []string {
	cov := c.Covered()
	names := make([]string, len(cov))
	for i, f := range cov {
		names[i] = f.Name
	}
	return names
}

// Relative rewrites the paths of files under root as slash-separated paths
// relative to root, and the names formed from them, so that names do not
// depend on where the sources are. Other paths are kept. Java names do not
// contain paths and are kept.
func (c *Coverage) Relative(root string) {
	if root == "" {
		return
	}
	rel := func(p string) string {
		if r, ok := relative(root, p); ok {
			return r
		}
		return p
	}
	for i := range c.Files {
		c.Files[i].Path = rel(c.Files[i].Path)
	}
	for i := range c.Functions {
		f := &c.Functions[i]
		if c.Format == "jacoco" {
			continue
		}
		f.File = rel(f.File)
		f.Name = QualifiedName(f.File, f.Symbol)
	}
}

func relative(root, p string) (string, bool) {
	if !filepath.IsAbs(p) && !path.IsAbs(p) {
		return filepath.ToSlash(p), true
	}
	r, err := filepath.Rel(root, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// QualifiedName forms a function's name from its source file and its name
// within the file, as the C, C++ and Python adapters name functions:
// a Python file's module ("pkg/mod.py" is "pkg.mod", "pkg/__init__.py" is
// "pkg") joined to symbol with a dot, "pkg.mod.Class.method"; any other
// file joined with a colon, "src/lib.c:parse". Without a file the name is
// the symbol.
func QualifiedName(file, symbol string) string {
	switch {
	case file == "":
		return symbol
	case strings.HasSuffix(file, ".py"):
		m := PythonModule(file)
		if symbol == "" {
			return m
		}
		if m == "" {
			return symbol
		}
		return m + "." + symbol
	case symbol == "":
		return file
	}
	return file + ":" + symbol
}

// PythonModule returns the module name of a Python source path:
// "pkg/mod.py" is "pkg.mod", "pkg/__init__.py" is "pkg"; a leading "./"
// or "/" is dropped.
func PythonModule(file string) string {
	p := filepath.ToSlash(file)
	p = strings.TrimSuffix(p, ".py")
	p = strings.TrimSuffix(p, "/__init__")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	p = strings.TrimLeft(p, "/")
	return strings.ReplaceAll(p, "/", ".")
}

// builder collects functions and lines, merging repeats (a file listed in
// two records, a line of two inlined instances).
type builder struct {
	c       Coverage
	funcs   map[[2]string]int // file, symbol -> index
	files   map[string]int
	lines   []map[int]uint64 // per file: line -> hits
	hasLine []bool
}

func newBuilder(format string) *builder {
	return &builder{c: Coverage{Format: format}, funcs: map[[2]string]int{}, files: map[string]int{}}
}

// function returns the function symbol of file, adding it if new.
func (b *builder) function(file, symbol string) *Function {
	k := [2]string{file, symbol}
	if i, ok := b.funcs[k]; ok {
		return &b.c.Functions[i]
	}
	b.funcs[k] = len(b.c.Functions)
	b.c.Functions = append(b.c.Functions, Function{Name: QualifiedName(file, symbol), Symbol: symbol, File: file})
	return &b.c.Functions[len(b.c.Functions)-1]
}

func (b *builder) file(p string) int {
	if i, ok := b.files[p]; ok {
		return i
	}
	b.files[p] = len(b.c.Files)
	b.c.Files = append(b.c.Files, File{Path: p})
	b.lines = append(b.lines, map[int]uint64{})
	return len(b.c.Files) - 1
}

func (b *builder) line(file string, n int, hits uint64) {
	m := b.lines[b.file(file)]
	m[n] = addSat(m[n], hits)
}

func (b *builder) done() *Coverage {
	for i, m := range b.lines {
		ls := make([]Line, 0, len(m))
		for n, h := range m {
			ls = append(ls, Line{n, h})
		}
		sort.Slice(ls, func(a, b int) bool { return ls[a].Number < ls[b].Number })
		b.c.Files[i].Lines = ls
	}
	if b.c.Functions == nil {
		b.c.Functions = []Function{}
	}
	return &b.c
}

// addSat adds without wrapping around.
func addSat(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}
