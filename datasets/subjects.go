package datasets

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
)

// Subject is a bundled program under test: a wrapper function around a
// real third-party library, in the subjects module (datasets/subjects),
// or an entry point of ours around a library of another language
// (datasets/native), run by arbor's harness for that language.
type Subject struct {
	Name        string   // as used by every command: json, url, ...
	Library     string   // the library's import path, or its name
	Grammar     string   // the bundled grammar of its inputs
	Package     string   // the wrapper's import path
	Func        string   // the wrapper function: func([]byte) error
	CoverPkgs   []string // packages whose functions are recorded
	Description string
	// Lang is the subject's language: "go", "c", "java" or "python".
	Lang string
	// Deep marks an interpreter or compiler (it parses, then resolves
	// names, checks types and runs): the subjects where fuzzing feedback
	// has more to find than the parse, and the slowest to build and run,
	// which quick presets leave out.
	Deep   bool
	native *nativeSubject
}

const subjectsModule = "github.com/arbor-fuzz/arbor/datasets/subjects"

// Subjects lists the bundled subjects, sorted by name.
func Subjects() []Subject {
	s := []Subject{
		goSubject("json", "encoding/json", "json", []string{"encoding/json"}, "decode to values and numbers, re-encode, compact and indent"),
		goSubject("url", "net/url", "url", []string{"net/url"}, "parse, resolve against a base, decode query and path, serialise"),
		goSubject("csv", "encoding/csv", "csv", []string{"encoding/csv"}, "read records one by one with field positions, write them back"),
		goSubject("xml", "encoding/xml", "xml", []string{"encoding/xml"}, "copy token by token, unmarshal to a tree, marshal it"),
		goSubject("gjson", "github.com/tidwall/gjson", "json", []string{"github.com/tidwall/gjson", "github.com/tidwall/match", "github.com/tidwall/pretty"}, "validate, walk every value, run path queries and modifiers"),
		goSubject("fastjson", "github.com/valyala/fastjson", "json", []string{"github.com/valyala/fastjson/..."}, "validate, parse, walk with typed getters, marshal"),
		goSubject("govaluate", "github.com/Knetic/govaluate", "govaluate", []string{"github.com/Knetic/govaluate"}, "parse an expression, list its variables and tokens, evaluate it"),
		goSubject("exprlang", "github.com/expr-lang/expr", "exprlang", []string{"github.com/expr-lang/expr/..."}, "compile against an environment, disassemble, run"),
		goSubject("toml", "github.com/BurntSushi/toml", "toml", []string{"github.com/BurntSushi/toml/..."}, "decode to values, inspect keys, encode again"),
		goSubject("ini", "gopkg.in/ini.v1", "ini", []string{"gopkg.in/ini.v1"}, "load, read every key through typed accessors, write back"),
		goSubject("goldmark", "github.com/yuin/goldmark", "markdown", []string{"github.com/yuin/goldmark/..."}, "parse markdown (GFM, footnotes, definition lists), walk the tree, render HTML"),
		// The generalization suite: grammars written from each format's
		// specification before any learning result on them was seen.
		goSubject("html", "golang.org/x/net/html", "html", []string{"golang.org/x/net/html/..."}, "tokenize, parse to a tree and walk it, parse as a body fragment, render"),
		goSubject("css", "github.com/tdewolff/parse/v2", "css", []string{"github.com/tdewolff/parse/v2", "github.com/tdewolff/parse/v2/css"}, "lex to the end, parse rule by rule, write rules and declarations back"),
		goSubject("yaml", "gopkg.in/yaml.v3", "yaml", []string{"gopkg.in/yaml.v3"}, "decode to a node tree and walk it (typed scalars, anchors, aliases), decode to values, encode both"),
		goSubject("graphql", "github.com/vektah/gqlparser/v2", "graphql", []string{"github.com/vektah/gqlparser/v2/..."}, "parse a query, validate it against a fixed schema, walk selections and values, format it"),
		goSubject("gotoml", "github.com/pelletier/go-toml/v2", "toml", []string{"github.com/pelletier/go-toml/v2/..."}, "decode to values and walk them, decode strictly into a struct, encode again"),
		goSubject("cron", "github.com/robfig/cron/v3", "cron", []string{"github.com/robfig/cron/v3"}, "parse a schedule (optional seconds, descriptors, @every), next five activations, parse as standard"),
		goSubject("template", "text/template", "gotemplate", []string{"text/template", "text/template/parse"}, "parse, walk the parse tree, execute against fixed data"),
		goSubject("regexp", "regexp", "regexp", []string{"regexp", "regexp/syntax"}, "parse, simplify, compile and print the syntax tree; compile (Perl, POSIX), match, find, replace"),
		// Deep subjects: interpreters that parse, check names and types,
		// and run, where fuzzing feedback has more to find than the parse.
		deep(goSubject("goja", "github.com/dop251/goja", "javascript", []string{"github.com/dop251/goja/..."}, "compile and run a script with a time budget, no I/O")),
		deep(goSubject("starlark", "go.starlark.net", "starlark", []string{"go.starlark.net/..."}, "parse, resolve and execute a program with a step budget, no I/O")),
		deep(goSubject("cel", "github.com/google/cel-go", "cel", []string{"github.com/google/cel-go/..."}, "parse, type-check against a fixed environment, evaluate with a cost limit")),
	}
	s = append(s, nativeSubjects()...)
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	return s
}

// goSubject is a bundled Go subject: the function Run of the subjects
// module's package of the same name.
func goSubject(name, library, grammar string, coverPkgs []string, desc string) Subject {
	return Subject{Name: name, Library: library, Grammar: grammar, Package: subjectsModule + "/" + name, Func: "Run",
		CoverPkgs: coverPkgs, Description: desc, Lang: "go"}
}

func deep(s Subject) Subject {
	s.Deep = true
	return s
}

// LookupSubject returns the bundled subject with the given name.
func LookupSubject(name string) (Subject, error) {
	var names []string
	for _, s := range Subjects() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Subject{}, fmt.Errorf("no bundled subject named %q (bundled: %s)", name, strings.Join(names, ", "))
}

// Version is the version of the subject's library: the module version
// the subjects module requires, or the Go version for the standard library.
func (s Subject) Version() string {
	if s.native != nil {
		return s.native.version
	}
	for _, f := range subjectFiles() {
		if f.name != "go.mod" {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(f.data))
		for sc.Scan() {
			fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require"))
			if len(fields) >= 2 && (s.Library == fields[0] || strings.HasPrefix(s.Library, fields[0]+"/")) {
				return fields[1]
			}
		}
	}
	return runtime.Version()
}

// The subjects module is a module of its own (so that its libraries stay
// out of arbor's dependencies), and go:embed cannot reach into another
// module: subjects.txtar is a copy of it, which TestSubjectsArchive keeps
// current.
//
//go:embed subjects.txtar
var subjectsArchive []byte

type archiveFile struct {
	name string
	data []byte
}

// subjectFiles parses the archive: "-- name --" lines start files.
func subjectFiles() []archiveFile {
	return parseArchive(subjectsArchive)
}

func parseArchive(a []byte) []archiveFile {
	var files []archiveFile
	for _, chunk := range bytes.Split(a, []byte("\n-- "))[1:] {
		name, data, ok := bytes.Cut(chunk, []byte(" --\n"))
		if ok {
			files = append(files, archiveFile{string(name), data})
		}
	}
	return files
}

// formatArchive writes files in the archive format.
func formatArchive(files []archiveFile) []byte {
	var b bytes.Buffer
	b.WriteString("A copy of the subjects module (datasets/subjects), for go:embed.\nRegenerate with: go test ./datasets -run TestSubjectsArchive -update\n")
	for _, f := range files {
		fmt.Fprintf(&b, "\n-- %s --\n", f.name)
		b.Write(f.data)
	}
	return b.Bytes()
}

// Target is the subject as a coverage target: its wrapper function in
// the subjects module, which is written out on first use. It is
// TargetContext with a context that is never cancelled.
func (s Subject) Target() (coverage.Target, error) {
	return s.TargetContext(context.Background())
}

// TargetContext is the subject as a coverage target, resolved under ctx:
// a subject of another language may need a Debian source package
// fetched first (cjson), the one slow step, which happens once and which
// ctx can stop.
func (s Subject) TargetContext(ctx context.Context) (coverage.Target, error) {
	if s.native != nil {
		return s.native.target(ctx)
	}
	dir, err := SubjectsModule()
	if err != nil {
		return coverage.Target{}, err
	}
	return coverage.Target{ImportPath: s.Package, Func: s.Func, CoverPkgs: s.CoverPkgs, Dir: dir}, nil
}

// SubjectStatus says whether a bundled subject can run on this machine,
// and if not, what it lacks.
type SubjectStatus struct {
	Name    string
	OK      bool
	Missing []coverage.Need
	// Install is the command that installs what is missing
	// (coverage.InstallCommand), or "".
	Install string
}

// CheckSubjects says which of subjects can run on this machine. It is
// for listing them: the checks are those of coverage.CheckTools for each
// subject's language, run once, and file lookups for what a subject
// needs besides (gson's jar; cJSON's source, which must be in the cache
// or fetchable with apt-get). Nothing is built, fetched or written, so a
// subject said to be able to run can still fail to build (say, offline
// on the first use of cjson); one said not to cannot run.
func CheckSubjects(ctx context.Context, subjects []Subject) []SubjectStatus {
	tools := map[string]coverage.ToolStatus{}
	for _, t := range coverage.CheckTools(ctx) {
		tools[t.Name] = t
	}
	out := make([]SubjectStatus, len(subjects))
	for i, s := range subjects {
		st := SubjectStatus{Name: s.Name}
		if t, ok := tools[s.Lang]; ok {
			st.Missing = append(st.Missing, t.Missing...)
		} else {
			st.Missing = append(st.Missing, coverage.Need{What: s.Lang, Error: fmt.Sprintf("no harness for language %q", s.Lang)})
		}
		if s.native != nil {
			st.Missing = append(st.Missing, s.native.missing()...)
		}
		st.OK = len(st.Missing) == 0
		st.Install = coverage.InstallCommand(st.Missing)
		out[i] = st
	}
	return out
}

// SubjectsModule returns a directory holding the subjects module, written
// from the embedded copy into the user's cache on first use.
func SubjectsModule() (string, error) {
	sum := sha256.Sum256(subjectsArchive)
	return writeCached("subjects", sum[:], subjectFiles())
}

// writeCached writes files into the user's cache, in a folder of kind
// named by sum (the files' content), unless it is there already. The
// folder is written under another name and renamed, so that it is whole
// or absent, whatever processes write it at once. Since what is in it is
// built and run, the user's cache folder is the only place for it
// (coverage.CacheRoot), the folder of kind must be the user's alone
// (coverage.PrivateDir), and a folder found there is used only if it
// holds exactly these files.
func writeCached(kind string, sum []byte, files []archiveFile) (string, error) {
	root, err := coverage.CacheRoot()
	if err != nil {
		return "", fmt.Errorf("%s: %w", kind, err)
	}
	if err := coverage.PrivateDir(filepath.Join(root, kind)); err != nil {
		return "", fmt.Errorf("%s: %w", kind, err)
	}
	dir := filepath.Join(root, kind, hex.EncodeToString(sum[:8]))
	if _, err := os.Lstat(dir); err == nil {
		if err := sameFiles(dir, files); err != nil {
			return "", fmt.Errorf("%s: the cached copy %s was not used: %w; remove it to have it written again", kind, dir, err)
		}
		return dir, nil
	}
	tmp := dir + ".tmp" + fmt.Sprint(os.Getpid())
	os.RemoveAll(tmp) // what a killed process of the same id left
	for _, f := range files {
		p := filepath.Join(tmp, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("%s: %w", kind, err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return "", fmt.Errorf("%s: %w", kind, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if sameFiles(dir, files) == nil {
			return dir, nil // another process wrote it first
		}
		return "", fmt.Errorf("%s: %w", kind, err)
	}
	return dir, nil
}

// sameFiles checks that dir holds exactly files, with their contents,
// and nothing else but folders: a file changed or added (a .go file in
// a package is compiled in) would run.
func sameFiles(dir string, files []archiveFile) error {
	want := make(map[string][]byte, len(files))
	for _, f := range files {
		want[f.name] = f.data
	}
	seen := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		data, ok := want[rel]
		if !ok || !d.Type().IsRegular() {
			return fmt.Errorf("%s is not one of arbor's files", rel)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, data) {
			return fmt.Errorf("%s differs from arbor's copy", rel)
		}
		seen++
		return nil
	})
	if err == nil && seen != len(want) {
		err = fmt.Errorf("%d of arbor's %d files are missing", len(want)-seen, len(want))
	}
	return err
}
