package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// These tests run the real coverage tools on tiny subjects, for two inputs
// each, and check the exact functions each input covered. Each is skipped
// when its tool is missing; .ci/run installs them.

// need skips t unless every tool is on PATH (fails it, with
// ARBOR_REQUIRE_ALL=1), naming the Debian package that provides it.
func need(t *testing.T, tools ...string) {
	t.Helper()
	pkgs := map[string]string{"gcc": "gcc", "gcov": "gcc", "lcov": "lcov", "python3": "python3", "python3-coverage": "python3-coverage",
		"java": "default-jdk-headless", "javac": "default-jdk-headless", "jar": "default-jdk-headless"}
	for _, tool := range tools {
		testenv.NeedTool(t, tool, "apt-get install "+pkgs[tool])
	}
}

// run runs a command in dir and fails t if it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// copyDir copies testdata/src into a new temporary folder.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(filepath.Join("testdata", src), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("testdata", src), p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func parseBytes(t *testing.T, p parser, name string, data []byte) *Coverage {
	t.Helper()
	c, err := p(strings.NewReader(string(data)), name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantCovered(t *testing.T, what string, c *Coverage, want []string) {
	t.Helper()
	if got := c.CoveredNames(); !slices.Equal(got, want) {
		t.Errorf("%s: covered\n got %q\nwant %q", what, got, want)
	}
}

var cWant = map[string][]string{
	"a": {"lib.c:helper", "lib.c:main", "lib.c:on_a"},
	"b": {"lib.c:main", "lib.c:on_b", "util.c:helper", "util.c:util_b"},
}

func TestGCCGcovJSON(t *testing.T) {
	need(t, "gcc", "gcov")
	dir := copyDir(t, "c")
	run(t, dir, nil, "gcc", "--coverage", "-O0", "-c", "lib.c", "util.c")
	run(t, dir, nil, "gcc", "--coverage", "-o", "prog", "lib.o", "util.o")
	for _, in := range []string{"a", "b"} {
		for _, f := range []string{"lib.gcda", "util.gcda"} {
			os.Remove(filepath.Join(dir, f))
		}
		run(t, dir, nil, "./prog", in)
		out := run(t, dir, nil, "gcov", "--json-format", "--stdout", "lib.gcda", "util.gcda")
		c := parseBytes(t, ParseGcovJSON, "gcov --stdout", out)
		wantCovered(t, "gcov, input "+in, c, cWant[in])
		if len(c.Functions) != 6 {
			t.Errorf("gcov: %d functions, want 6: %q", len(c.Functions), names(c.Functions))
		}
		// The gzipped files gcov writes without --stdout.
		run(t, dir, nil, "gcov", "--json-format", "lib.gcda")
		// gcc 12 names it lib.gcda.gcov.json.gz, gcc 9 lib.c.gcov.json.gz.
		gzs, _ := filepath.Glob(filepath.Join(dir, "lib.*gcov.json.gz"))
		if len(gzs) != 1 {
			t.Fatalf("gcov --json-format wrote %q, want one lib.*gcov.json.gz", gzs)
		}
		gz, err := os.Open(gzs[0])
		if err != nil {
			t.Fatal(err)
		}
		c, err = ParseGcovJSON(gz, filepath.Base(gzs[0]))
		gz.Close()
		if err != nil {
			t.Fatal(err)
		}
		var lib []string
		for _, n := range cWant[in] {
			if strings.HasPrefix(n, "lib.c:") {
				lib = append(lib, n)
			}
		}
		wantCovered(t, "gcov .json.gz, input "+in, c, lib)
	}
}

func TestGCCLcov(t *testing.T) {
	need(t, "gcc", "gcov", "lcov")
	dir := copyDir(t, "c")
	run(t, dir, nil, "gcc", "--coverage", "-O0", "-o", "prog", "lib.c", "util.c")
	for _, in := range []string{"a", "b"} {
		run(t, dir, nil, "lcov", "--quiet", "--zerocounters", "--directory", ".")
		run(t, dir, nil, "./prog", in)
		run(t, dir, nil, "lcov", "--quiet", "--capture", "--directory", ".", "--output-file", "run.info")
		data, err := os.ReadFile(filepath.Join(dir, "run.info"))
		if err != nil {
			t.Fatal(err)
		}
		c := parseBytes(t, ParseLcov, "run.info", data)
		root, _ := filepath.EvalSymlinks(dir)
		c.Relative(dir)
		c.Relative(root)
		wantCovered(t, "lcov, input "+in, c, cWant[in])
	}
}

var pyWant = map[string][]string{
	"a": {"pkg.mod.helper", "pkg.mod.helper.inner", "pkg.mod.top"},
	"b": {"pkg.mod.Parser.only_b", "pkg.mod.top"},
}

func TestCoveragePy(t *testing.T) {
	need(t, "python3-coverage", "python3")
	dir := copyDir(t, "py")
	env := []string{"COVERAGE_FILE=" + filepath.Join(dir, ".coverage")}
	for _, in := range []string{"a", "b"} {
		os.Remove(filepath.Join(dir, ".coverage"))
		run(t, dir, env, "python3-coverage", "run", "pkg/mod.py", in)
		run(t, dir, env, "python3-coverage", "json", "-o", "cov.json")
		data, err := os.ReadFile(filepath.Join(dir, "cov.json"))
		if err != nil {
			t.Fatal(err)
		}
		c := parseBytes(t, ParseCoveragePy, "cov.json", data)
		var files []string
		for _, f := range c.Files {
			files = append(files, f.Path)
		}
		ranges, err := PythonFunctions(context.Background(), "python3", dir, files)
		if err != nil {
			t.Fatal(err)
		}
		c.AssignLines(ranges)
		wantCovered(t, "coverage json, input "+in, c, pyWant[in])
		if len(c.Functions) != 5 {
			t.Errorf("coverage json: %d functions, want 5: %q", len(c.Functions), names(c.Functions))
		}

		// coverage lcov (coverage.py 6.3 and later): lines only, too.
		run(t, dir, env, "python3-coverage", "lcov", "-o", "cov.info")
		data, err = os.ReadFile(filepath.Join(dir, "cov.info"))
		if err != nil {
			t.Fatal(err)
		}
		c = parseBytes(t, ParseLcov, "cov.info", data)
		c.AssignLines(ranges)
		wantCovered(t, "coverage lcov, input "+in, c, pyWant[in])
	}
}

// jacocoJars finds JaCoCo's and ASM's jars, in JACOCO_JARS or in Debian's
// folder of jars (libjacoco-java, libasm-java).
func jacocoJars(t *testing.T) (dir string) {
	dir = os.Getenv("JACOCO_JARS")
	if dir == "" {
		dir = "/usr/share/java"
	}
	for _, j := range []string{"org.jacoco.agent.rt.jar", "org.jacoco.core.jar", "org.jacoco.report.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"} {
		testenv.NeedFile(t, filepath.Join(dir, j), "apt-get install libjacoco-java")
	}
	return dir
}

func TestJaCoCo(t *testing.T) {
	need(t, "java", "javac", "jar")
	jars := jacocoJars(t)
	j := func(n string) string { return filepath.Join(jars, n) }
	dir := copyDir(t, "java")
	// JaCoCo 0.8.6 reads class files up to Java 15.
	run(t, dir, nil, "javac", "--release", "11", "-d", "classes", filepath.Join("demo", "Parser.java"))
	cp := strings.Join([]string{j("org.jacoco.core.jar"), j("org.jacoco.report.jar"), j("asm.jar"), j("asm-commons.jar"), j("asm-tree.jar")}, string(os.PathListSeparator))
	run(t, dir, nil, "javac", "--release", "11", "-cp", cp, "-d", "tool", "Report.java")
	// Debian's agent jar has no Premain-Class and is not self-contained:
	// an agent jar of only a manifest names its premain class and its
	// class path.
	manifest := "Premain-Class: org.jacoco.agent.rt.internal.PreMain\nClass-Path:"
	for _, n := range []string{"org.jacoco.agent.rt.jar", "org.jacoco.core.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"} {
		manifest += " " + (&url{j(n)}).String()
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.txt"), []byte(manifest+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, "jar", "cfm", "agent.jar", "manifest.txt")
	want := map[string][]string{
		"a": {"demo.Parser$Inner.<init>()", "demo.Parser$Inner.size(java.lang.String)", "demo.Parser.<init>(java.lang.String)", "demo.Parser.main(java.lang.String[])", "demo.Parser.parse(int,java.lang.String[])"},
		"b": {"demo.Parser.<init>(java.lang.String)", "demo.Parser.main(java.lang.String[])", "demo.Parser.onlyB()", "demo.Parser.parse(int,java.lang.String[])"},
	}
	for _, in := range []string{"a", "b"} {
		exec := in + ".exec"
		run(t, dir, nil, "java", "-javaagent:agent.jar=destfile="+exec+",includes=demo.*", "-cp", "classes", "demo.Parser", in)
		run(t, dir, nil, "java", "-cp", cp+string(os.PathListSeparator)+"tool", "Report", exec, "classes", in+".xml")
		data, err := os.ReadFile(filepath.Join(dir, in+".xml"))
		if err != nil {
			t.Fatal(err)
		}
		c := parseBytes(t, ParseJaCoCo, in+".xml", data)
		wantCovered(t, "jacoco, input "+in, c, want[in])
		if len(c.Functions) != 6 {
			t.Errorf("jacoco: %d functions, want 6: %q", len(c.Functions), names(c.Functions))
		}
	}
}

// url writes a path as a manifest Class-Path entry.
type url struct{ path string }

func (u *url) String() string { return "file://" + filepath.ToSlash(u.path) }
