package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// bareMachine makes the tools' lookups see a machine with nothing
// installed: an empty PATH (or dirs), no JAVA_HOME or ARBOR_PYTHON, empty
// folders of jars, and a user cache without cJSON's source. Debian's jar
// folder is still searched, for JaCoCo's and gson's jars only.
func bareMachine(t *testing.T, dirs ...string) {
	t.Helper()
	t.Setenv("PATH", strings.Join(dirs, string(os.PathListSeparator)))
	t.Setenv("JAVA_HOME", "")
	t.Setenv("ARBOR_PYTHON", "")
	t.Setenv("ARBOR_JAVA_LIBS", t.TempDir())
	t.Setenv("ARBOR_JACOCO_DIR", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

// TestDoctor (issue 31): doctor exits 0 whatever is missing, and names
// what is missing with the command that installs it.
func TestDoctor(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdout []string
	}{
		{"table", []string{"doctor"}, []string{
			"│ java        │ no    │", "missing java, javac, JaCoCo's jars", "apt-get install default-jdk-headless libjacoco-java",
			"│ c           │ no    │", "apt-get install gcc",
			"│ python      │ no    │", "apt-get install python3-coverage",
			"│ command     │ yes   │",
			"│ lcov       │ no    │",
			"java harness: java not found (install a JDK, such as Debian's default-jdk-headless)",
			"Bundled subjects that cannot run here: ",
			"To install everything missing: apt-get install gcc default-jdk-headless libjacoco-java python3-coverage python3",
			"; install Go 1.24 or newer (https://go.dev/doc/install)\n",
			"Optional, for the hand-written recipes of docs/recording.md and arbor's own tests: apt-get install lcov\n",
		}},
		{"help", []string{"doctor", "--help"}, []string{"The exit status is 0 whatever is missing."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bareMachine(t)
			out, errOut, code := runArbor(t, "", tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		bareMachine(t)
		out, errOut, code := runArbor(t, "", "doctor", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var r doctorReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		tools := map[string]coverage.ToolStatus{}
		for _, s := range r.Tools {
			tools[s.Name] = s
		}
		if j := tools["java"]; j.OK || j.Install != "apt-get install default-jdk-headless libjacoco-java" || len(j.Missing) != 3 || j.Missing[0].Package != "default-jdk-headless" {
			t.Errorf("java: %+v", j)
		}
		if c := tools["command"]; !c.OK || c.Kind != "target" {
			t.Errorf("command: %+v", c)
		}
		if r.OK || !strings.HasPrefix(r.Install, "apt-get install ") || len(r.SubjectsUnavailable) != len(datasets.Subjects()) || r.InstallOptional != "apt-get install lcov" {
			t.Errorf("ok %v, install %q, optional %q, %d subjects unavailable", r.OK, r.Install, r.InstallOptional, len(r.SubjectsUnavailable))
		}
		for _, field := range []string{`"ok":`, `"tools":`, `"kind": "report"`, `"missing":`, `"subjects_unavailable":`} {
			if !strings.Contains(out, field) {
				t.Errorf("JSON lacks %s", field)
			}
		}
	})
	t.Run("everything found", func(t *testing.T) {
		// go is all the Go targets need, and the command kind needs nothing:
		// both work however little else is installed.
		goBin := fakeTools(t, "go")
		bareMachine(t, goBin)
		out, _, code := runArbor(t, "", "doctor")
		if code != 0 || !strings.Contains(out, "│ go          │ yes   │") || !strings.Contains(out, "│ go-isolated │ yes   │") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("usage", func(t *testing.T) {
		if _, errOut, code := runArbor(t, "", "doctor", "extra"); code != exitUsage {
			t.Errorf("doctor extra: exit %d, want %d: %s", code, exitUsage, errOut)
		}
	})
}

// fakeTools writes scripts named tools that fail, in a new folder.
func fakeTools(t *testing.T, tools ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range tools {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\necho fake $0 >&2\nexit 3\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSubjectsBareMachine (issue 31): on a machine without any of the
// tools, subjects still lists every subject and exits 0, saying for each
// that it cannot run, what it lacks and what to install; --functions
// builds only what can run, and a subject whose build fails is reported
// in its row, with the listing finished and exit status 1.
func TestSubjectsBareMachine(t *testing.T) {
	all := datasets.Subjects()
	t.Run("table", func(t *testing.T) {
		bareMachine(t)
		out, errOut, code := runArbor(t, "", "subjects")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, s := range all {
			if !strings.Contains(out, "│ "+s.Name+" ") {
				t.Errorf("%s is not listed", s.Name)
			}
		}
		for _, want := range []string{"│ no: go ", "│ no: gcc, Debian source package cjson ", "no: coverage.py", " runs here ",
			"pyhtml, pyini, pyjson, pytoml, pyurl: apt-get install python3-coverage", "│ expr "} {
			if !strings.Contains(out, want) {
				t.Errorf("stdout lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("json", func(t *testing.T) {
		bareMachine(t)
		out, errOut, code := runArbor(t, "", "subjects", "--json", "--functions")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var list subjectList
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Subjects) != len(all) {
			t.Fatalf("%d subjects, want %d", len(list.Subjects), len(all))
		}
		for _, s := range list.Subjects {
			if s.Available || len(s.Missing) == 0 || s.Install == "" || s.Functions != nil || s.Error != "" || s.Lang == "" {
				t.Errorf("%s: %+v", s.Name, s)
			}
		}
		if !strings.Contains(out, `"available": false`) || !strings.Contains(out, `"missing": [`) {
			t.Errorf("JSON lacks available or missing:\n%s", out)
		}
	})
	t.Run("functions of what can run", func(t *testing.T) {
		// Only the Python subjects can run: --functions builds them, and
		// only them.
		var python string
		for _, s := range coverage.CheckTools(context.Background()) {
			if s.Name == coverage.ToolPython && s.OK {
				python = s.Found[0]
			}
		}
		if python == "" {
			testenv.Missing(t, "a Python with coverage.py", "apt-get install python3-coverage")
		}
		bareMachine(t)
		t.Setenv("ARBOR_PYTHON", python)
		out, errOut, code := runArbor(t, "", "subjects", "--json", "--functions")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var list subjectList
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		built := 0
		for _, s := range list.Subjects {
			switch {
			case s.Lang == "python" && (!s.Available || s.Functions == nil || *s.Functions == 0 || s.Error != ""):
				t.Errorf("%s: %+v", s.Name, s)
			case s.Lang != "python" && (s.Available || s.Functions != nil):
				t.Errorf("%s: %+v", s.Name, s)
			case s.Functions != nil:
				built++
			}
		}
		if built != 5 {
			t.Errorf("%d subjects built, want the 5 Python ones", built)
		}
	})
	t.Run("failed builds", func(t *testing.T) {
		// A go that fails: the Go subjects can run as far as the checks
		// see, and each build fails.
		bareMachine(t, fakeTools(t, "go"))
		out, errOut, code := runArbor(t, "", "subjects", "--functions")
		if code != exitFailure {
			t.Errorf("exit %d, want %d", code, exitFailure)
		}
		if !strings.Contains(out, "│ gson ") || !strings.Contains(out, "│ expr ") {
			t.Errorf("the listing is not whole:\n%s", out)
		}
		if row := tableRow(out, "json"); !strings.Contains(row, "│ yes ") || !strings.Contains(row, "│ failed ") {
			t.Errorf("json's row: %q", row)
		}
		if !strings.Contains(errOut, "arbor: subject json: ") || !strings.Contains(errOut, "subjects failed to build") {
			t.Errorf("stderr: %s", errOut)
		}
	})
}

// tableRow is the line of a rendered table whose first cell is name.
func tableRow(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "│ "+name+" ") {
			return line
		}
	}
	return ""
}
