package datasets

import (
	"context"
	"crypto/sha256"
	"embed"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
)

// The subjects of other languages: entry points we wrote around real
// libraries (cJSON from Debian's source package, gson from Debian's jar,
// parsers of Python's standard library), run by arbor's harness for
// their language.
//
//go:embed native
var nativeFiles embed.FS

// nativeSubject is how a subject of another language is run: a harness
// target whose paths may name two places known only at run time:
// "{native}" for the folder the embedded entry points are written to,
// and "{debian:PKG}" for the unpacked upstream source of the Debian
// source package PKG (DebianSource).
type nativeSubject struct {
	harness coverage.HarnessTarget
	version string // of the library, and where it comes from
	// debs are the Debian packages of the class path's jars named
	// without a folder, which the Java harness looks for in the
	// library folders (coverage.FindJavaLib).
	debs map[string]string
}

// missing lists what the subject needs besides its language's tools and
// this machine lacks: jars named without a folder, and Debian source
// packages that are neither cached nor fetchable (DebianSource fetches
// with apt-get, and falls back on the cache). Only files are looked up.
func (n *nativeSubject) missing() []coverage.Need {
	var needs []coverage.Need
	for _, s := range n.harness.Sources {
		if n.harness.Lang == "java" && filepath.Base(s) == s && strings.HasSuffix(s, ".jar") {
			if _, err := coverage.FindJavaLib(s); err != nil {
				needs = append(needs, coverage.Need{What: s, Error: "java harness: " + err.Error(), Package: n.debs[s]})
			}
		}
	}
	var pkgs []string
	for _, s := range append(append(append([]string{n.harness.Root}, n.harness.Sources...), n.harness.Flags...), n.harness.Cover...) {
		for _, m := range debPlaceholder.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(pkgs, m[1]) {
				pkgs = append(pkgs, m[1])
			}
		}
	}
	for _, pkg := range pkgs {
		if need := debianSourceNeed(pkg); need != nil {
			needs = append(needs, *need)
		}
	}
	return needs
}

// debPlaceholder is "{debian:PKG}" in a native subject's paths.
var debPlaceholder = regexp.MustCompile(`\{debian:([^}]*)\}`)

// debianSourceNeed says what is missing for DebianSource to find pkg, or
// nil: nothing if it is in the cache or apt-get can fetch it (whether
// the network allows is not checked).
func debianSourceNeed(pkg string) *coverage.Need {
	if _, err := exec.LookPath("apt-get"); err == nil {
		return nil
	}
	if root, err := coverage.CacheRoot(); err == nil {
		if _, ok := cachedSource(filepath.Join(root, "sources"), pkg); ok {
			return nil
		}
	}
	return &coverage.Need{What: "Debian source package " + pkg,
		Error: fmt.Sprintf("debian source %s: not in the cache, and apt-get is not installed (fetching source packages needs a Debian system)", pkg)}
}

// NativeDir returns a folder holding the entry points of the subjects of
// other languages, written from the embedded copy into the user's cache
// on first use.
func NativeDir() (string, error) {
	h := sha256.New()
	var files []archiveFile
	err := fs.WalkDir(nativeFiles, "native", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := nativeFiles.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		files = append(files, archiveFile{strings.TrimPrefix(p, "native/"), data})
		return nil
	})
	if err != nil {
		return "", err
	}
	return writeCached("native", h.Sum(nil), files)
}

// nativeTarget resolves a native subject's placeholders.
func (n *nativeSubject) target(ctx context.Context) (coverage.Target, error) {
	h := n.harness
	dir, err := NativeDir()
	if err != nil {
		return coverage.Target{}, err
	}
	// A placeholder may stand anywhere in a value, as in -I{debian:cjson}.
	expand := func(s string) (string, error) {
		s = strings.ReplaceAll(s, "{native}", dir)
		for {
			i := strings.Index(s, "{debian:")
			if i < 0 {
				return s, nil
			}
			j := strings.Index(s[i:], "}")
			if j < 0 {
				return "", fmt.Errorf("bad placeholder in %q", s)
			}
			src, err := DebianSource(ctx, s[i+len("{debian:"):i+j])
			if err != nil {
				return "", err
			}
			s = s[:i] + src + s[i+j+1:]
		}
	}
	for _, list := range []*[]string{&h.Sources, &h.Cover, &h.Flags} {
		out := make([]string, len(*list))
		for i, s := range *list {
			if out[i], err = expand(s); err != nil {
				return coverage.Target{}, err
			}
		}
		*list = out
	}
	if h.Root, err = expand(h.Root); err != nil {
		return coverage.Target{}, err
	}
	return coverage.Target{Harness: &h}, nil
}

// nativeSubjects are the bundled subjects of other languages.
func nativeSubjects() []Subject {
	py := func(name, lib, fn, grammar string, cover, reject []string, desc string) Subject {
		return Subject{Name: name, Library: lib, Grammar: grammar, Lang: "python", Description: desc,
			native: &nativeSubject{version: "Python 3 standard library", harness: coverage.HarnessTarget{
				Lang: "python", Entry: "arbor_stdlib:" + fn, Sources: []string{"{native}/python"}, Cover: cover, Reject: reject}}}
	}
	return []Subject{
		{Name: "cjson", Library: "cJSON", Grammar: "json", Lang: "c",
			Description: "parse strictly, print formatted, unformatted and preallocated, duplicate and compare, walk with typed accessors, minify; JSON pointers, patches and merge patches (cJSON_Utils)",
			native: &nativeSubject{version: "1.7.15 (Debian source package cjson, upstream tarball)", harness: coverage.HarnessTarget{
				Lang: "c", Sources: []string{"{debian:cjson}/cJSON.c", "{debian:cjson}/cJSON_Utils.c", "{native}/cjson/cjson_target.c"},
				Flags: []string{"-I{debian:cjson}"}, Cover: []string{"{debian:cjson}/cJSON.c", "{debian:cjson}/cJSON_Utils.c"}, Root: "{debian:cjson}"}}},
		{Name: "gson", Library: "com.google.gson", Grammar: "json", Lang: "java",
			Description: "parse strictly to a tree and walk it with typed accessors, serialize (pretty, with nulls), bind to maps and lists, deep copy and compare",
			native: &nativeSubject{version: "Debian package libgoogle-gson-java", harness: coverage.HarnessTarget{
				Lang: "java", Entry: "arbor.subjects.GsonSubject.run", Sources: []string{"{native}/gson", "gson.jar"}, Cover: []string{"com.google.gson.*"}},
				debs: map[string]string{"gson.jar": "libgoogle-gson-java"}}},
		py("pyjson", "json (Python)", "json_run", "json", []string{"json"}, nil, "decode with the pure-Python scanner, encode compact, sorted and indented"),
		py("pytoml", "tomllib (Python)", "toml_run", "toml", []string{"tomllib"}, nil, "parse and walk every value"),
		py("pyurl", "urllib.parse (Python)", "url_run", "url", []string{"urllib.parse"}, nil, "split, parse, parse the query, unquote, join against a base, unsplit, quote"),
		py("pyini", "configparser (Python)", "ini_run", "ini", []string{"configparser"}, []string{"configparser.Error", "ValueError"}, "read, every option through typed getters with fallbacks, interpolation"),
		py("pyhtml", "html.parser (Python)", "html_run", "html", []string{"html", "_markupbase"}, nil, "parse collecting every event, with and without converting character references"),
	}
}

// Program is the subject's program as named, for telling whether a
// target is this subject's (subject.SameProgram): a Go subject's import path
// and function, without the folder the subjects module is written to;
// another language's harness with its paths' placeholders as they are.
// Nothing is written or fetched, and it is not meant to be run.
func (s Subject) Program() coverage.Target {
	if s.native != nil {
		h := s.native.harness
		return coverage.Target{Harness: &h}
	}
	return coverage.Target{ImportPath: s.Package, Func: s.Func, CoverPkgs: s.CoverPkgs}
}
