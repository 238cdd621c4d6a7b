package datasets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
)

// Subject is a bundled program under test: a wrapper function around a
// real third-party library, in the subjects module (datasets/subjects).
type Subject struct {
	Name        string   // as used by every command: json, url, ...
	Library     string   // the library's import path
	Grammar     string   // the bundled grammar of its inputs
	Package     string   // the wrapper's import path
	Func        string   // the wrapper function: func([]byte) error
	CoverPkgs   []string // packages whose functions are recorded
	Description string
}

const subjectsModule = "github.com/arbor-fuzz/arbor/datasets/subjects"

// Subjects lists the bundled subjects, sorted by name.
func Subjects() []Subject {
	s := []Subject{
		{"json", "encoding/json", "json", "", "Run", []string{"encoding/json"}, "decode to values and numbers, re-encode, compact and indent"},
		{"url", "net/url", "url", "", "Run", []string{"net/url"}, "parse, resolve against a base, decode query and path, serialise"},
		{"csv", "encoding/csv", "csv", "", "Run", []string{"encoding/csv"}, "read records one by one with field positions, write them back"},
		{"xml", "encoding/xml", "xml", "", "Run", []string{"encoding/xml"}, "copy token by token, unmarshal to a tree, marshal it"},
		{"gjson", "github.com/tidwall/gjson", "json", "", "Run", []string{"github.com/tidwall/gjson", "github.com/tidwall/match", "github.com/tidwall/pretty"}, "validate, walk every value, run path queries and modifiers"},
		{"fastjson", "github.com/valyala/fastjson", "json", "", "Run", []string{"github.com/valyala/fastjson/..."}, "validate, parse, walk with typed getters, marshal"},
		{"govaluate", "github.com/Knetic/govaluate", "govaluate", "", "Run", []string{"github.com/Knetic/govaluate"}, "parse an expression, list its variables and tokens, evaluate it"},
		{"exprlang", "github.com/expr-lang/expr", "exprlang", "", "Run", []string{"github.com/expr-lang/expr/..."}, "compile against an environment, disassemble, run"},
		{"toml", "github.com/BurntSushi/toml", "toml", "", "Run", []string{"github.com/BurntSushi/toml/..."}, "decode to values, inspect keys, encode again"},
		{"ini", "gopkg.in/ini.v1", "ini", "", "Run", []string{"gopkg.in/ini.v1"}, "load, read every key through typed accessors, write back"},
		{"goldmark", "github.com/yuin/goldmark", "markdown", "", "Run", []string{"github.com/yuin/goldmark/..."}, "parse markdown (GFM, footnotes, definition lists), walk the tree, render HTML"},
		// The generalization suite: grammars written from each format's
		// specification before any learning result on them was seen.
		{"html", "golang.org/x/net/html", "html", "", "Run", []string{"golang.org/x/net/html/..."}, "tokenize, parse to a tree and walk it, parse as a body fragment, render"},
		{"css", "github.com/tdewolff/parse/v2", "css", "", "Run", []string{"github.com/tdewolff/parse/v2", "github.com/tdewolff/parse/v2/css"}, "lex to the end, parse rule by rule, write rules and declarations back"},
		{"yaml", "gopkg.in/yaml.v3", "yaml", "", "Run", []string{"gopkg.in/yaml.v3"}, "decode to a node tree and walk it (typed scalars, anchors, aliases), decode to values, encode both"},
		{"graphql", "github.com/vektah/gqlparser/v2", "graphql", "", "Run", []string{"github.com/vektah/gqlparser/v2/..."}, "parse a query, validate it against a fixed schema, walk selections and values, format it"},
		{"gotoml", "github.com/pelletier/go-toml/v2", "toml", "", "Run", []string{"github.com/pelletier/go-toml/v2/..."}, "decode to values and walk them, decode strictly into a struct, encode again"},
		{"cron", "github.com/robfig/cron/v3", "cron", "", "Run", []string{"github.com/robfig/cron/v3"}, "parse a schedule (optional seconds, descriptors, @every), next five activations, parse as standard"},
		{"template", "text/template", "gotemplate", "", "Run", []string{"text/template", "text/template/parse"}, "parse, walk the parse tree, execute against fixed data"},
		{"regexp", "regexp", "regexp", "", "Run", []string{"regexp", "regexp/syntax"}, "parse, simplify, compile and print the syntax tree; compile (Perl, POSIX), match, find, replace"},
	}
	for i := range s {
		s[i].Package = subjectsModule + "/" + s[i].Name
	}
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
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
// the subjects module, which is written out on first use.
func (s Subject) Target() (coverage.Target, error) {
	dir, err := SubjectsModule()
	if err != nil {
		return coverage.Target{}, err
	}
	return coverage.Target{ImportPath: s.Package, Func: s.Func, CoverPkgs: s.CoverPkgs, Dir: dir}, nil
}

// SubjectsModule returns a directory holding the subjects module, written
// from the embedded copy into the user's cache on first use.
func SubjectsModule() (string, error) {
	sum := sha256.Sum256(subjectsArchive)
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "arbor", "subjects", hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir, nil
	}
	tmp := dir + ".tmp" + fmt.Sprint(os.Getpid())
	for _, f := range subjectFiles() {
		p := filepath.Join(tmp, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("subjects module: %w", err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return "", fmt.Errorf("subjects module: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			return dir, nil // another process wrote it first
		}
		return "", fmt.Errorf("subjects module: %w", err)
	}
	return dir, nil
}
