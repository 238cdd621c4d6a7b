package datasets

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite subjects.txtar from datasets/subjects")

// TestSubjectsArchive checks that the embedded copy of the subjects module
// matches the module's files.
func TestSubjectsArchive(t *testing.T) {
	var files []archiveFile
	err := filepath.WalkDir("subjects", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("subjects", path)
		rel = filepath.ToSlash(rel)
		if rel == "go.mod" || rel == "go.sum" || strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files = append(files, archiveFile{rel, data})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := formatArchive(files)
	if *update {
		if err := os.WriteFile("subjects.txtar", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(subjectsArchive, want) {
		t.Fatal("subjects.txtar is out of date: run go test ./datasets -run TestSubjectsArchive -update")
	}
	if got := parseArchive(want); len(got) != len(files) {
		t.Fatalf("archive round trip: %d files, want %d", len(got), len(files))
	}
}

func TestSubjects(t *testing.T) {
	grammars := map[string]bool{}
	for _, g := range Grammars() {
		grammars[g.Name] = true
	}
	names := map[string]bool{}
	for _, s := range Subjects() {
		names[s.Name] = true
		if !grammars[s.Grammar] {
			t.Errorf("subject %s: no bundled grammar %q", s.Name, s.Grammar)
		}
		if s.Version() == "" {
			t.Errorf("subject %s: no version", s.Name)
		}
	}
	for _, n := range []string{"json", "url", "csv", "gjson", "fastjson", "govaluate", "exprlang", "toml", "ini", "goldmark", "xml", "html", "css", "gotoml", "cron", "regexp", "template", "yaml", "graphql"} {
		if !names[n] {
			t.Errorf("no subject %s", n)
		}
	}
	for name, want := range map[string]string{"gjson": "v1.20.0", "ini": "v1.67.3", "fastjson": "v1.6.10"} {
		if s, _ := LookupSubject(name); s.Version() != want {
			t.Errorf("%s version %q, want %s", name, s.Version(), want)
		}
	}
	if _, err := LookupSubject("nosuch"); err == nil || !strings.Contains(err.Error(), "bundled: cjson, cron, css, csv") {
		t.Errorf("unknown subject: %v", err)
	}
	dir, err := SubjectsModule()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "json", "json.go")); err != nil {
		t.Errorf("extracted module: %v", err)
	}
}

// TestNativeSubjects: the subjects of other languages resolve to harness
// targets whose placeholders are expanded to files that exist: the
// embedded entry points written into the cache, and for cJSON the
// unpacked Debian source (skipped when it cannot be fetched).
func TestNativeSubjects(t *testing.T) {
	langs := map[string]string{}
	for _, s := range Subjects() {
		langs[s.Name] = s.Lang
	}
	for name, lang := range map[string]string{"json": "go", "cjson": "c", "gson": "java", "pyjson": "python", "pytoml": "python", "pyurl": "python", "pyini": "python", "pyhtml": "python"} {
		if langs[name] != lang {
			t.Errorf("subject %s: language %q, want %q", name, langs[name], lang)
		}
	}
	for _, name := range []string{"gson", "pyjson", "cjson"} {
		s, err := LookupSubject(name)
		if err != nil {
			t.Fatal(err)
		}
		target, err := s.Target()
		if name == "cjson" && err != nil {
			t.Logf("cjson: %v (needs apt-get and the network on the first run)", err)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h := target.Harness
		if h == nil || h.Lang != s.Lang {
			t.Fatalf("%s: target %+v", name, target)
		}
		for _, p := range append(append([]string{}, h.Sources...), h.Root) {
			if strings.Contains(p, "{") {
				t.Errorf("%s: placeholder left in %q", name, p)
			}
			if filepath.IsAbs(p) {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		}
	}
}
