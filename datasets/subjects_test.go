package datasets

import (
	"bytes"
	"context"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
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
	for _, n := range []string{"json", "url", "csv", "gjson", "fastjson", "govaluate", "exprlang", "toml", "ini", "goldmark", "xml", "html", "css", "gotoml", "cron", "regexp", "template", "yaml", "graphql", "goja", "starlark", "cel"} {
		if !names[n] {
			t.Errorf("no subject %s", n)
		}
	}
	for name, want := range map[string]string{"gjson": "v1.20.0", "ini": "v1.67.3", "fastjson": "v1.6.10"} {
		if s, _ := LookupSubject(name); s.Version() != want {
			t.Errorf("%s version %q, want %s", name, s.Version(), want)
		}
	}
	if _, err := LookupSubject("nosuch"); err == nil || !strings.Contains(err.Error(), "bundled: cel, cjson, cron, css, csv") {
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

// TestCheckSubjects: which subjects can run follows from what is on PATH
// and in the folders the harnesses search, and nothing else; with
// nothing installed every subject says what it lacks and how to install
// it, and with stand-ins for every tool every subject can run.
func TestCheckSubjects(t *testing.T) {
	empty := func(t *testing.T) {
		t.Setenv("PATH", "")
		t.Setenv("JAVA_HOME", "")
		t.Setenv("ARBOR_PYTHON", "")
		t.Setenv("ARBOR_JAVA_LIBS", t.TempDir())
		t.Setenv("ARBOR_JACOCO_DIR", t.TempDir())
		t.Setenv("XDG_CACHE_HOME", t.TempDir()) // no cached Debian source
		t.Setenv("HOME", t.TempDir())
	}
	t.Run("nothing installed", func(t *testing.T) {
		empty(t)
		_, gsonErr := coverage.FindJavaLib("gson.jar") // Debian's folder is always searched
		want := map[string]struct{ missing, install string }{
			"json":   {"go", "install Go 1.24 or newer (https://go.dev/doc/install)"},
			"cjson":  {"gcc,Debian source package cjson", "apt-get install gcc"},
			"gson":   {"java,javac,JaCoCo's jars", "apt-get install default-jdk-headless libjacoco-java"},
			"pyjson": {"coverage.py", "apt-get install python3-coverage"},
		}
		if gsonErr != nil {
			want["gson"] = struct{ missing, install string }{"java,javac,JaCoCo's jars,gson.jar", "apt-get install default-jdk-headless libjacoco-java libgoogle-gson-java"}
		}
		subjects := Subjects()
		statuses := CheckSubjects(context.Background(), subjects)
		if len(statuses) != len(subjects) {
			t.Fatalf("%d statuses for %d subjects", len(statuses), len(subjects))
		}
		for i, st := range statuses {
			if st.Name != subjects[i].Name || st.OK || len(st.Missing) == 0 || st.Install == "" {
				t.Errorf("%s: %+v, want it to lack something", subjects[i].Name, st)
			}
			w, ok := want[st.Name]
			if !ok {
				continue
			}
			var what []string
			for _, n := range st.Missing {
				what = append(what, n.What)
			}
			if strings.Join(what, ",") != w.missing || st.Install != w.install {
				t.Errorf("%s: missing %q, install %q; want %s, %q", st.Name, what, st.Install, w.missing, w.install)
			}
		}
	})
	t.Run("everything installed", func(t *testing.T) {
		empty(t)
		bin, jdk, jacoco, libs := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
		exe := func(dir, name string) string {
			os.MkdirAll(dir, 0o755)
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}
		for _, n := range []string{"go", "gcc", "apt-get"} {
			exe(bin, n)
		}
		exe(filepath.Join(jdk, "bin"), "java")
		exe(filepath.Join(jdk, "bin"), "javac")
		for _, n := range []string{"org.jacoco.agent.rt.jar", "org.jacoco.core.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"} {
			os.WriteFile(filepath.Join(jacoco, n), nil, 0o644)
		}
		os.WriteFile(filepath.Join(libs, "gson.jar"), nil, 0o644)
		t.Setenv("PATH", bin)
		t.Setenv("JAVA_HOME", jdk)
		t.Setenv("ARBOR_JACOCO_DIR", jacoco)
		t.Setenv("ARBOR_JAVA_LIBS", libs)
		t.Setenv("ARBOR_PYTHON", exe(bin, "python"))
		for _, st := range CheckSubjects(context.Background(), Subjects()) {
			if !st.OK || len(st.Missing) > 0 || st.Install != "" {
				t.Errorf("%s: %+v", st.Name, st)
			}
		}
	})
}
