package coverage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
)

// noTools empties PATH and every variable the harnesses read to find
// their tools, and points JaCoCo's folder at an empty one, so that the
// checks see a machine with nothing installed (but for Debian's jar
// folder, which only JaCoCo's and gson's jars are looked for in).
func noTools(t *testing.T) {
	t.Helper()
	t.Setenv("PATH", "")
	t.Setenv("JAVA_HOME", "")
	t.Setenv("ARBOR_PYTHON", "")
	t.Setenv("ARBOR_JAVA_LIBS", "")
	t.Setenv("ARBOR_JACOCO_DIR", t.TempDir())
}

func byName(statuses []coverage.ToolStatus) map[string]coverage.ToolStatus {
	m := map[string]coverage.ToolStatus{}
	for _, s := range statuses {
		m[s.Name] = s
	}
	return m
}

// TestCheckToolsNothingInstalled: with an empty PATH every kind of target
// but a command, and every report format, is missing something, and the
// advice names the Debian packages that provide it.
func TestCheckToolsNothingInstalled(t *testing.T) {
	noTools(t)
	got := byName(coverage.CheckTools(context.Background()))
	tests := []struct {
		name    string
		ok      bool
		missing []string // What of each need, in order
		install string
	}{
		{coverage.ToolGo, false, []string{"go"}, "install Go 1.24 or newer (https://go.dev/doc/install)"},
		{coverage.ToolGoIsolated, false, []string{"go"}, "install Go 1.24 or newer (https://go.dev/doc/install)"},
		{coverage.ToolC, false, []string{"gcc"}, "apt-get install gcc"},
		{coverage.ToolJava, false, []string{"java", "javac", "JaCoCo's jars"}, "apt-get install default-jdk-headless libjacoco-java"},
		{coverage.ToolPython, false, []string{"coverage.py"}, "apt-get install python3-coverage"},
		{coverage.ToolCommand, true, nil, ""},
		{coverage.ToolGcov, false, []string{"gcc", "gcov"}, "apt-get install gcc"},
		{coverage.ToolLcov, false, []string{"gcc", "gcov"}, "apt-get install gcc"},
		{coverage.ToolJaCoCo, false, []string{"java", "javac", "JaCoCo's jars", "org.jacoco.report.jar"}, "apt-get install default-jdk-headless libjacoco-java"},
		{coverage.ToolCoveragePy, false, []string{"coverage.py", "python3"}, "apt-get install python3-coverage python3"},
	}
	if len(got) != len(tests) {
		t.Errorf("%d statuses, want %d: %v", len(got), len(tests), got)
	}
	for _, tt := range tests {
		s, ok := got[tt.name]
		if !ok {
			t.Errorf("%s: not checked", tt.name)
			continue
		}
		var what []string
		for _, n := range s.Missing {
			what = append(what, n.What)
			if n.Error == "" {
				t.Errorf("%s: %s is missing without a reason", tt.name, n.What)
			}
		}
		if s.OK != tt.ok || strings.Join(what, ",") != strings.Join(tt.missing, ",") || s.Install != tt.install {
			t.Errorf("%s: ok %v, missing %q, install %q; want %v, %q, %q", tt.name, s.OK, what, s.Install, tt.ok, tt.missing, tt.install)
		}
		if s.Description == "" || (s.Kind != "target" && s.Kind != "report") {
			t.Errorf("%s: kind %q, description %q", tt.name, s.Kind, s.Description)
		}
	}
	// The reason is the harness's own: recording says the same.
	if e := got[coverage.ToolJava].Missing[0].Error; !strings.Contains(e, "java not found") {
		t.Errorf("java: %q", e)
	}
	if e := got[coverage.ToolC].Missing[0].Error; e != "c harness: gcc is not installed (Debian package gcc)" {
		t.Errorf("c: %q", e)
	}
	if e := got[coverage.ToolGcov].Missing[1].Error; !strings.Contains(e, "gcov not found on PATH") {
		t.Errorf("gcov: %q", e)
	}
	// lcov's own command is optional: arbor writes lcov tracefiles itself.
	if o := got[coverage.ToolLcov].Optional; len(o) != 1 || o[0].What != "lcov" || o[0].Package != "lcov" {
		t.Errorf("lcov: optional %+v", o)
	}
	for name, s := range got {
		if name != coverage.ToolLcov && len(s.Optional) > 0 {
			t.Errorf("%s: optional %+v", name, s.Optional)
		}
	}
}

// TestCheckToolsFound: tools are found where the harnesses look for them
// (PATH, JAVA_HOME, ARBOR_JACOCO_DIR, ARBOR_PYTHON), and then every check
// passes and names what it found.
func TestCheckToolsFound(t *testing.T) {
	noTools(t)
	bin, jdk, jacoco := t.TempDir(), t.TempDir(), t.TempDir()
	exe := func(dir, name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, n := range []string{"go", "gcc", "gcov", "lcov", "python3"} {
		exe(bin, n)
	}
	os.Mkdir(filepath.Join(jdk, "bin"), 0o755)
	java := exe(filepath.Join(jdk, "bin"), "java")
	exe(filepath.Join(jdk, "bin"), "javac")
	for _, n := range []string{"org.jacoco.agent.rt.jar", "org.jacoco.core.jar", "org.jacoco.report.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"} {
		os.WriteFile(filepath.Join(jacoco, n), nil, 0o644)
	}
	python := exe(bin, "mypython")
	t.Setenv("PATH", bin)
	t.Setenv("JAVA_HOME", jdk)
	t.Setenv("ARBOR_JACOCO_DIR", jacoco)
	t.Setenv("ARBOR_PYTHON", python) // taken as it is, as the harness takes it
	for _, s := range coverage.CheckTools(context.Background()) {
		if !s.OK || len(s.Missing) > 0 || s.Install != "" || len(s.Optional) > 0 {
			t.Errorf("%s: ok %v, missing %+v, install %q", s.Name, s.OK, s.Missing, s.Install)
		}
		if s.Name != coverage.ToolCommand && len(s.Found) == 0 {
			t.Errorf("%s: found nothing", s.Name)
		}
		for _, f := range s.Found {
			if !strings.HasPrefix(f, bin) && !strings.HasPrefix(f, jdk) && !strings.HasPrefix(f, jacoco) {
				t.Errorf("%s: found %s, outside the folders given", s.Name, f)
			}
		}
		if s.Name == coverage.ToolJava && s.Found[0] != java {
			t.Errorf("java: found %v, want %s first", s.Found, java)
		}
		if s.Name == coverage.ToolPython && s.Found[0] != python {
			t.Errorf("python: found %v, want %s", s.Found, python)
		}
	}
}

func TestInstallCommand(t *testing.T) {
	tests := []struct {
		needs []coverage.Need
		want  string
	}{
		{nil, ""},
		{[]coverage.Need{{What: "lcov", Package: "lcov"}}, "apt-get install lcov"},
		{[]coverage.Need{{What: "gcc", Package: "gcc"}, {What: "gcov", Package: "gcc"}, {What: "lcov", Package: "lcov"}}, "apt-get install gcc lcov"},
		{[]coverage.Need{{What: "go", Install: "install Go"}, {What: "gcc", Package: "gcc"}}, "apt-get install gcc; install Go"},
		{[]coverage.Need{{What: "apt-get"}}, ""},
	}
	for _, tt := range tests {
		if got := coverage.InstallCommand(tt.needs); got != tt.want {
			t.Errorf("InstallCommand(%+v) = %q, want %q", tt.needs, got, tt.want)
		}
	}
}

func TestFindJavaLib(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ARBOR_JAVA_LIBS", dir)
	os.WriteFile(filepath.Join(dir, "mine.jar"), nil, 0o644)
	if p, err := coverage.FindJavaLib("mine.jar"); err != nil || p != filepath.Join(dir, "mine.jar") {
		t.Errorf("FindJavaLib(mine.jar) = %q, %v", p, err)
	}
	if _, err := coverage.FindJavaLib("nosuch-arbor-test.jar"); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("FindJavaLib(nosuch) = %v, want an error naming the folders searched", err)
	}
}

// What works on this machine, and what to install for the rest.
func ExampleCheckTools() {
	for _, s := range coverage.CheckTools(context.Background()) {
		if s.OK {
			fmt.Printf("%-10s ok\n", s.Name)
		} else {
			fmt.Printf("%-10s missing %s: %s\n", s.Name, s.Missing[0].What, s.Install)
		}
	}
}
