//go:build linux

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// TestCmdRealSubjects: the bundled subjects of other languages, recorded
// once per input as a command line (record --cmd, with the coverage tool
// of each language writing its report into the run's folder), label each
// input as their in-process harnesses do (record --subject): the same
// outcome and the same functions, among the functions both files list
// (the reports also name the drivers' functions). The command lines are
// the recipes of docs/languages.md.
func TestCmdRealSubjects(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs C, Java and Python programs")
	}
	testenv.NeedTool(t, "sh", "apt-get install dash")
	jsonInputs := map[string]string{
		"object": `{"name": "x\u00e9\n", "list": [1, 2.5, -3e2, true, false, null], "nested": {"k": {}}}`,
		"nested": `[[], {}, [{"x": [null, "s"]}], 7]`,
		"string": `"just a string"`,
		"cut":    `[1, 2`,
		"comma":  `{"a": 1,}`,
	}
	t.Run("cjson", func(t *testing.T) {
		for _, tool := range []string{"gcc", "gcov"} {
			testenv.NeedTool(t, tool, "apt-get install gcc")
		}
		h := cmdRealHarness(t, "cjson")
		build := filepath.Join(t.TempDir(), "build")
		if err := os.MkdirAll(build, 0o755); err != nil {
			t.Fatal(err)
		}
		// A main that hands the input file to the libFuzzer entry point,
		// whose nonzero return (a rejection) becomes exit status 1.
		driver := writeInput(t, build, "driver.c", []byte(`#include <stdint.h>
#include <stdio.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int main(int argc, char **argv) {
	static uint8_t buf[1 << 20];
	FILE *f = fopen(argv[1], "rb");
	if (f == NULL) return 3;
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	return LLVMFuzzerTestOneInput(buf, n) == 0 ? 0 : 1;
}
`))
		line := gcovCommand(t, build, append(append(h.Flags, h.Sources...), driver, "-lm")...)
		cmdRealCompare(t, "cjson", jsonInputs, line,
			"--report", "gcov", "--reject", "1", "--source-root", h.Root)
	})
	t.Run("gson", func(t *testing.T) {
		for _, tool := range []string{"java", "javac", "jar"} {
			testenv.NeedTool(t, tool, "apt-get install default-jdk-headless")
		}
		// Jars are found as the harness finds them: in the folders of
		// ARBOR_JAVA_LIBS, then Debian's; JaCoCo's in ARBOR_JACOCO_DIR if set.
		libs := append(filepath.SplitList(os.Getenv("ARBOR_JAVA_LIBS")), "/usr/share/java")
		jacocoDirs := libs
		if d := os.Getenv("ARBOR_JACOCO_DIR"); d != "" {
			jacocoDirs = []string{d}
		}
		jar := func(dirs []string, name, pkg string) string {
			for _, d := range dirs {
				if p := filepath.Join(d, name); d != "" && cmdRealExists(p) {
					if p, err := filepath.Abs(p); err == nil {
						return p
					}
				}
			}
			testenv.Missing(t, name+" in "+strings.Join(dirs, ", "), "apt-get install "+pkg)
			return ""
		}
		gson := jar(libs, "gson.jar", "libgoogle-gson-java")
		jacoco := map[string]string{}
		for _, n := range []string{"org.jacoco.agent.rt.jar", "org.jacoco.core.jar", "org.jacoco.report.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"} {
			jacoco[n] = jar(jacocoDirs, n, "libjacoco-java")
		}
		h := cmdRealHarness(t, "gson")
		build := filepath.Join(t.TempDir(), "build")
		// The subject's entry class, from the harness's source folders.
		var sources []string
		for _, s := range h.Sources {
			filepath.WalkDir(s, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".java") {
					sources = append(sources, p)
				}
				return err
			})
		}
		if len(sources) == 0 {
			t.Fatalf("no Java sources in %q", h.Sources)
		}
		// Once runs the entry on the input file: an exception (a
		// rejection) exits 1, an error (a crash) 2. Report writes
		// JaCoCo's XML report of the classes of a class path from an exec
		// file (Debian ships no JaCoCo command line).
		writeInput(t, build, "Once.java", []byte(`public class Once {
    public static void main(String[] args) throws Exception {
        int dot = args[0].lastIndexOf('.');
        java.lang.reflect.Method m = Class.forName(args[0].substring(0, dot)).getDeclaredMethod(args[0].substring(dot + 1), byte[].class);
        m.setAccessible(true);
        try {
            m.invoke(null, (Object) java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(args[1])));
        } catch (java.lang.reflect.InvocationTargetException e) {
            System.exit(e.getCause() instanceof Exception ? 1 : 2);
        }
    }
}
`))
		writeInput(t, build, "Report.java", []byte(`import java.io.File;
import java.io.FileOutputStream;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.tools.ExecFileLoader;
import org.jacoco.report.IReportVisitor;
import org.jacoco.report.xml.XMLFormatter;

public class Report {
    // java Report CLASSPATH EXEC OUT.xml
    public static void main(String[] args) throws Exception {
        ExecFileLoader loader = new ExecFileLoader();
        loader.load(new File(args[1]));
        CoverageBuilder builder = new CoverageBuilder();
        Analyzer a = new Analyzer(loader.getExecutionDataStore(), builder);
        for (String c : args[0].split(File.pathSeparator)) {
            a.analyzeAll(new File(c));
        }
        try (FileOutputStream out = new FileOutputStream(args[2])) {
            IReportVisitor v = new XMLFormatter().createVisitor(out);
            v.visitInfo(loader.getSessionInfoStore().getInfos(), loader.getExecutionDataStore().getContents());
            v.visitBundle(builder.getBundle("run"), null);
            v.visitEnd();
        }
    }
}
`))
		sep := string(os.PathListSeparator)
		cp := strings.Join([]string{filepath.Join(build, "classes"), gson, jacoco["org.jacoco.core.jar"], jacoco["org.jacoco.report.jar"],
			jacoco["asm.jar"], jacoco["asm-commons.jar"], jacoco["asm-tree.jar"]}, sep)
		javac := exec.Command("javac", append([]string{"--release", "11", "-cp", cp, "-d", "classes", "Once.java", "Report.java"}, sources...)...)
		javac.Dir = build
		if out, err := javac.CombinedOutput(); err != nil {
			t.Fatalf("javac: %v\n%s", err, out)
		}
		// Debian's agent jar has no Premain-Class and needs JaCoCo's core
		// and ASM: a jar of a manifest alone makes it an agent.
		man := "Premain-Class: org.jacoco.agent.rt.internal.PreMain\nClass-Path:"
		for _, n := range []string{"org.jacoco.agent.rt.jar", "org.jacoco.core.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"} {
			man += " file://" + filepath.ToSlash(jacoco[n])
		}
		writeInput(t, build, "manifest.txt", []byte(man+"\n"))
		if out, err := exec.Command("jar", "cfm", filepath.Join(build, "agent.jar"), filepath.Join(build, "manifest.txt")).CombinedOutput(); err != nil {
			t.Fatalf("jar: %v\n%s", err, out)
		}
		script := `java "-javaagent:$0/agent.jar=destfile=$ARBOR_RUN_DIR/run.exec,includes=com.google.gson.*" -cp "$1" Once ` + h.Entry + ` "$3"; s=$?
java -cp "$1" Report "$2" "$ARBOR_RUN_DIR/run.exec" "$ARBOR_RUN_DIR/report.xml" || exit 3
exit $s`
		cmdRealCompare(t, "gson", jsonInputs, "sh -c '"+script+"' "+build+" "+cp+" "+gson+" {}",
			"--report", "jacoco", "--reject", "1")
	})
	t.Run("pyurl", func(t *testing.T) {
		tool := testenv.NeedTool(t, "python3-coverage", "apt-get install python3-coverage")
		h := cmdRealHarness(t, "pyurl")
		// The standard library of the interpreter coverage.py runs in,
		// which the harness uses too unless python3 on PATH has coverage.py.
		out, err := exec.Command(tool, "run", "--data-file="+filepath.Join(t.TempDir(), "c"), "-m", "sysconfig").Output()
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		stdlib := ""
		for _, line := range strings.Split(string(out), "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(line), " = "); ok && k == "stdlib" {
				stdlib = strings.Trim(v, `"`)
			}
		}
		if stdlib == "" {
			t.Fatalf("%s: no stdlib path in sysconfig's output", tool)
		}
		// The driver calls the entry on the input file; ValueError, the
		// subject's rejection, exits 3.
		driver := writeInput(t, t.TempDir(), "driver.py", []byte(`import importlib, sys
sys.path.insert(0, sys.argv[1])
mod, _, fn = sys.argv[2].partition(":")
entry = getattr(importlib.import_module(mod), fn)
with open(sys.argv[3], "rb") as f:
    data = f.read()
try:
    entry(data)
except ValueError:
    sys.exit(3)
`))
		script := `"$0" run --data-file="$ARBOR_RUN_DIR/.coverage" --include="$1" "$2" "$3" "$4" "$5"; s=$?
"$0" json -q --data-file="$ARBOR_RUN_DIR/.coverage" -o "$ARBOR_RUN_DIR/cov.json"
exit $s`
		urls := map[string]string{
			"full":     "http://user:pw@example.com:8080/a/b;p?x=1&y=%20z&x=2#frag",
			"relative": "../g;x?y=+1#s",
			"mailto":   "mailto:someone@example.org",
			"ipv6":     "http://[::1/index",
			"port":     "https://host:port/",
		}
		cmdRealCompare(t, "pyurl", urls, "sh -c '"+script+"' "+tool+" "+filepath.Join(stdlib, "urllib", "parse.py")+" "+driver+" "+h.Sources[0]+" "+h.Entry+" {}",
			"--report", "coveragepy", "--reject", "3", "--source-root", stdlib)
	})
}

// cmdRealHarness returns the harness target of a bundled subject, or
// skips if it cannot be made (cJSON's source is fetched from Debian).
func cmdRealHarness(t *testing.T, name string) *coverage.HarnessTarget {
	t.Helper()
	sub, err := datasets.LookupSubject(name)
	if err != nil {
		t.Fatal(err)
	}
	target, err := sub.Target()
	if err != nil {
		testenv.Missing(t, "subject "+name+", which could not be made ready ("+err.Error()+")", "apt-get and the network, to fetch cJSON's source")
	}
	if target.Harness == nil {
		t.Fatalf("%s: not a harness subject", name)
	}
	return target.Harness
}

func cmdRealExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// cmdRealCompare records the inputs with record --subject NAME and with
// record --cmd LINE, and checks that every input has the same outcome and
// covers the same functions among those both files list.
func cmdRealCompare(t *testing.T, name string, inputs map[string]string, line string, report ...string) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "inputs")
	for n, text := range inputs {
		writeInput(t, in, n, []byte(text))
	}
	start := time.Now()
	harness := filepath.Join(dir, "harness.jsonl")
	if _, errOut, code := runArbor(t, "", "record", "--subject", name, "--inputs", in, "--out", harness, "--timeout", "30s"); code != 0 {
		t.Fatalf("record --subject %s: exit %d\n%s", name, code, errOut)
	}
	mid := time.Now()
	cmd := filepath.Join(dir, "cmd.jsonl")
	args := append([]string{"record", "--cmd", line, "--inputs", in, "--out", cmd, "--timeout", "60s"}, report...)
	if _, errOut, code := runArbor(t, "", args...); code != 0 {
		t.Fatalf("record --cmd: exit %d\n%s", code, errOut)
	}
	t.Logf("record --subject %v, record --cmd %v", mid.Sub(start).Round(time.Millisecond), time.Since(mid).Round(time.Millisecond))
	hf, err := coverage.ReadFile(harness)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := coverage.ReadFile(cmd)
	if err != nil {
		t.Fatal(err)
	}
	var both []string
	for _, n := range hf.Functions {
		if slices.Contains(cf.Functions, n) {
			both = append(both, n)
		}
	}
	// Both name the library's functions alike: nearly all of the
	// harness's are in the report (a report lists every function the
	// tool instrumented).
	t.Logf("functions: harness %d, report %d, both %d", len(hf.Functions), len(cf.Functions), len(both))
	if len(both) < len(hf.Functions)*9/10 {
		var only []string
		for _, n := range hf.Functions {
			if !slices.Contains(both, n) {
				only = append(only, n)
			}
		}
		t.Fatalf("%d of the harness's %d functions are not in the report: %q\nreport's functions: %q", len(only), len(hf.Functions), only, cf.Functions)
	}
	covered := func(f *coverage.File) map[string]*coverage.Record {
		m := map[string]*coverage.Record{}
		for i, r := range f.Records {
			m[filepath.Base(r.Input)] = &f.Records[i]
		}
		return m
	}
	label := func(f *coverage.File, r *coverage.Record) map[string]bool {
		m := map[string]bool{}
		for _, id := range r.Covered {
			if n := f.Functions[id]; slices.Contains(both, n) {
				m[n] = true
			}
		}
		return m
	}
	hr, cr := covered(hf), covered(cf)
	outcomes := map[coverage.Outcome]int{}
	for n := range inputs {
		a, b := hr[n], cr[n]
		if a == nil || b == nil {
			t.Errorf("%s: recorded by the harness %v, by the command %v", n, a != nil, b != nil)
			continue
		}
		outcomes[a.Outcome]++
		if a.Outcome != b.Outcome {
			t.Errorf("%s: outcome %s in process, %s once per input (%s)", n, a.Outcome, b.Outcome, b.Error)
		}
		la, lb := label(hf, a), label(cf, b)
		var differ []string
		for _, f := range both {
			switch {
			case la[f] == lb[f]:
			case la[f]:
				differ = append(differ, "+"+f)
			default:
				differ = append(differ, "-"+f)
			}
		}
		t.Logf("%s: %s, %d functions covered", n, a.Outcome, len(la))
		if len(differ) > 0 {
			t.Errorf("%s: the labels differ (+ in process only, - once per input only): %q", n, differ)
		}
	}
	// The inputs must exercise both outcomes, or the comparison would be
	// weak.
	if outcomes[coverage.OK] == 0 || outcomes[coverage.Error] == 0 {
		t.Errorf("outcomes %v: want accepted and rejected inputs", outcomes)
	}
}
