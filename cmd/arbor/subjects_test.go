package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
)

// TestSubjectsGoOnly (issue 30): on a machine with the Go toolchain and
// nothing else (no Java, JaCoCo, gcc, apt-get or Python tools), subjects
// and subjects --json exit 0 and list every subject: the Go ones as able
// to run, each other with what it needs and how to install it. Nothing
// is built or fetched to say so: the user's cache stays empty.
func TestSubjectsGoOnly(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	bareMachine(t, filepath.Join(strings.TrimSpace(string(goroot)), "bin"))
	cache := os.Getenv("XDG_CACHE_HOME")
	all := datasets.Subjects()

	out, errOut, code := runArbor(t, "", "subjects")
	if code != 0 {
		t.Fatalf("subjects: exit %d: %s", code, errOut)
	}
	for _, s := range all {
		row := tableRow(out, s.Name)
		switch {
		case row == "":
			t.Errorf("%s is not listed:\n%s", s.Name, out)
		case s.Lang == "go" && !strings.Contains(row, "│ yes "):
			t.Errorf("%s, a Go subject, cannot run: %q", s.Name, row)
		case s.Lang != "go" && !strings.Contains(row, "│ no: "):
			t.Errorf("%s, a %s subject, can run: %q", s.Name, s.Lang, row)
		}
	}
	for _, want := range []string{"│ no: java, javac", "│ no: gcc, Debian source package cjson ", "│ no: coverage.py",
		"pyhtml, pyini, pyjson, pytoml, pyurl: apt-get install python3-coverage"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}

	out, errOut, code = runArbor(t, "", "subjects", "--json")
	if code != 0 {
		t.Fatalf("subjects --json: exit %d: %s", code, errOut)
	}
	var list subjectList
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Subjects) != len(all) || len(list.Grammars) != len(datasets.Grammars()) {
		t.Fatalf("%d subjects and %d grammars, want %d and %d", len(list.Subjects), len(list.Grammars), len(all), len(datasets.Grammars()))
	}
	for _, s := range list.Subjects {
		if s.Available != (s.Lang == "go") || s.Available != (len(s.Missing) == 0) || !s.Available && s.Install == "" || s.Functions != nil {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}

	if entries, err := os.ReadDir(cache); err != nil || len(entries) > 0 {
		t.Errorf("subjects wrote to the cache: %v %v", entries, err)
	}
}
