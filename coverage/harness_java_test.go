package coverage_test

import (
	"context"
	"flag"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// javaDemo is a class of known structure: which methods an input runs
// is plain from its first bytes.
const javaDemo = `package demo;

import java.util.HashMap;
import java.util.Map;

public class Demo {
    static final Map<String, Integer> TABLE = new HashMap<>();
    static long spins;

    public static void run(byte[] data) throws Exception {
        String s = new String(data, "UTF-8");
        if (s.startsWith("a")) {
            a();
        } else if (s.startsWith("b")) {
            new Inner().b(s.length());
        } else if (s.equals("reject")) {
            throw new IllegalArgumentException("rejected " + s);
        } else if (s.equals("crash")) {
            deep(0);
        } else if (s.startsWith("c")) {
            spins += Table.T.length;
        } else if (s.equals("loop")) {
            for (;;) {
                spins++;
            }
        }
    }

    static void a() {
        TABLE.put("a", 1);
    }

    static int deep(int n) {
        return deep(n + 1) + 1;
    }

    // Table is initialized by the first input that reads it: a process per
    // input runs build whenever the input does.
    static class Table {
        static final int[] T = build();

        static int[] build() {
            return new int[] {1, 2};
        }
    }

    static class Inner {
        int b(int n) {
            return n * 2;
        }
    }

    public static void text(String s) {
        a();
    }
}
`

// javaOnce runs an entry once, as a process per input would, for the
// agent to write an exec file at exit; javaReport writes JaCoCo's XML
// report of each exec file, as jacococli report --xml does.
const (
	javaOnce = `public class Once {
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
`
	javaReport = `import java.io.File;
import java.io.FileOutputStream;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.tools.ExecFileLoader;
import org.jacoco.report.IReportVisitor;
import org.jacoco.report.xml.XMLFormatter;

public class Report {
    // java Report CLASSES EXEC OUT.xml [EXEC OUT.xml]...
    public static void main(String[] args) throws Exception {
        for (int i = 1; i + 1 < args.length; i += 2) {
            ExecFileLoader loader = new ExecFileLoader();
            loader.load(new File(args[i]));
            CoverageBuilder builder = new CoverageBuilder();
            Analyzer a = new Analyzer(loader.getExecutionDataStore(), builder);
            for (String c : args[0].split(File.pathSeparator)) {
                a.analyzeAll(new File(c));
            }
            try (FileOutputStream out = new FileOutputStream(args[i + 1])) {
                IReportVisitor v = new XMLFormatter().createVisitor(out);
                v.visitInfo(loader.getSessionInfoStore().getInfos(), loader.getExecutionDataStore().getContents());
                v.visitBundle(builder.getBundle("run"), null);
                v.visitEnd();
            }
        }
    }
}
`
)

// javaNeed skips a test without a JDK or JaCoCo.
func javaNeed(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"java", "javac"} {
		testenv.NeedTool(t, tool, "apt-get install default-jdk-headless")
	}
	dir := os.Getenv("ARBOR_JACOCO_DIR")
	if dir == "" {
		dir = "/usr/share/java"
	}
	for _, n := range []string{"org.jacoco.agent.rt.jar", "org.jacoco.core.jar", "org.jacoco.report.jar", "asm.jar"} {
		testenv.NeedFile(t, filepath.Join(dir, n), "apt-get install libjacoco-java")
	}
	return dir
}

func javaRun(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// javaReportTool compiles Once and Report into dir/tool.
func javaReportTool(t testing.TB, jacoco, dir string) string {
	t.Helper()
	for name, src := range map[string]string{"Once.java": javaOnce, "Report.java": javaReport} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cp := javaJaCoCoPath(jacoco, "org.jacoco.core.jar", "org.jacoco.report.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar")
	javaRun(t, dir, "javac", "--release", "11", "-cp", cp, "-d", "tool", "Once.java", "Report.java")
	return cp + string(os.PathListSeparator) + filepath.Join(dir, "tool")
}

func javaJaCoCoPath(dir string, jars ...string) string {
	var p []string
	for _, j := range jars {
		p = append(p, filepath.Join(dir, j))
	}
	return strings.Join(p, string(os.PathListSeparator))
}

// javaReportLabels runs each input in a JVM of its own with the agent
// writing an exec file, then reads JaCoCo's XML report of each run with
// the jacoco adapter: the labels a process per input gets.
func javaReportLabels(t testing.TB, jacoco, tool, dir, entry, includes string, classPath []string, inputs [][]byte) [][]string {
	t.Helper()
	agent := filepath.Join(dir, "perprocess-agent.jar")
	man := "Premain-Class: org.jacoco.agent.rt.internal.PreMain\nClass-Path:"
	for _, n := range []string{"org.jacoco.agent.rt.jar", "org.jacoco.core.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"} {
		man += " file://" + filepath.ToSlash(filepath.Join(jacoco, n))
	}
	// jar wraps the manifest's long lines.
	if err := os.WriteFile(filepath.Join(dir, "manifest.txt"), []byte(man+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	javaRun(t, dir, "jar", "cfm", agent, "manifest.txt")
	cp := strings.Join(append(slices.Clone(classPath), filepath.Join(dir, "tool")), string(os.PathListSeparator))
	report := []string{"java", "-cp", tool, "Report", strings.Join(classPath, string(os.PathListSeparator))}
	var wg sync.WaitGroup
	slots := make(chan bool, runtime.NumCPU())
	for i, in := range inputs {
		run := filepath.Join(dir, "run", string(rune('a'+i%26))+strings.Repeat("x", i/26))
		if err := os.MkdirAll(run, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, "input"), in, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("java", "-javaagent:"+agent+"=destfile="+filepath.Join(run, "run.exec")+",includes="+includes, "-cp", cp, "Once", entry, filepath.Join(run, "input"))
		wg.Add(1)
		slots <- true
		go func() {
			defer wg.Done()
			cmd.Run() // a rejection or crash exits nonzero; the exec file is written all the same
			<-slots
		}()
		report = append(report, filepath.Join(run, "run.exec"), filepath.Join(run, "report.xml"))
	}
	wg.Wait()
	javaRun(t, dir, report...)
	rr, err := coverage.NewReportReader("jacoco", dir)
	if err != nil {
		t.Fatal(err)
	}
	var labels [][]string
	for i := range inputs {
		run := filepath.Join(dir, "run", string(rune('a'+i%26))+strings.Repeat("x", i/26))
		c, err := rr.Read(run)
		if err != nil {
			t.Fatal(err)
		}
		var covered []string
		for _, f := range c.Functions {
			if f.Hits > 0 {
				covered = append(covered, f.Name)
			}
		}
		slices.Sort(covered)
		labels = append(labels, covered)
	}
	return labels
}

func javaNames(s *coverage.Session, r *coverage.Result) []string {
	var names []string
	for _, id := range r.Covered {
		names = append(names, s.Funcs.Names[id])
	}
	return names
}

// TestJavaHarness compiles a small class and records it in-process with
// the JaCoCo agent: the methods each input runs, rejections and crashes
// told apart, a crash or a hang followed by inputs that still work, and
// the same labels as JaCoCo's XML report of a process per input.
func TestJavaHarness(t *testing.T) {
	jacoco := javaNeed(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src", "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "demo", "Demo.java"), []byte(javaDemo), 0o644); err != nil {
		t.Fatal(err)
	}
	javaRun(t, dir, "javac", "--release", "11", "-d", "classes", filepath.Join("src", "demo", "Demo.java"))
	cache := filepath.Join(dir, "cache")
	target := coverage.Target{Harness: &coverage.HarnessTarget{Lang: "java", Entry: "demo.Demo.run", Sources: []string{"classes"}, Dir: dir}}
	ctx := context.Background()
	if bin, err := coverage.Cached(ctx, target, cache); err != nil || bin != nil {
		t.Fatalf("Cached before a build = %v, %v; want nil, nil", bin, err)
	}
	bin, err := coverage.Build(ctx, target, cache)
	if err != nil {
		t.Fatal(err)
	}
	if bin.Cached {
		t.Error("first build is Cached")
	}
	if again, err := coverage.Cached(ctx, target, cache); err != nil || again == nil || !again.Cached {
		t.Fatalf("Cached after a build = %v, %v", again, err)
	}
	s, err := coverage.Start(bin, coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantNames := []string{"demo.Demo$Inner.<init>()", "demo.Demo$Inner.b(int)", "demo.Demo$Table.<clinit>()", "demo.Demo$Table.<init>()", "demo.Demo$Table.build()", "demo.Demo.<clinit>()", "demo.Demo.<init>()",
		"demo.Demo.a()", "demo.Demo.deep(int)", "demo.Demo.run(byte[])", "demo.Demo.text(java.lang.String)"}
	if !slices.Equal(s.Funcs.Names, wantNames) {
		t.Fatalf("names\n%q\nwant\n%q", s.Funcs.Names, wantNames)
	}
	// The static initializer ran when the harness loaded the class; it is
	// reported with every input, as in every process-per-input run, and
	// Table's with every input that reads Table, though it runs only in
	// the first. A
	// method counts as run once one of its probes is hit, as in JaCoCo's
	// report, where an instruction counts only when a probe after it is:
	// deep, which never returns, does not.
	tests := []struct {
		in      string
		outcome coverage.Outcome
		covered []string
		message string
		frames  string
	}{
		{"a", coverage.OK, []string{"demo.Demo.<clinit>()", "demo.Demo.a()", "demo.Demo.run(byte[])"}, "", ""},
		{"bb", coverage.OK, []string{"demo.Demo$Inner.<init>()", "demo.Demo$Inner.b(int)", "demo.Demo.<clinit>()", "demo.Demo.run(byte[])"}, "", ""},
		{"reject", coverage.Error, []string{"demo.Demo.<clinit>()", "demo.Demo.run(byte[])"}, "java.lang.IllegalArgumentException: rejected reject", ""},
		{"crash", coverage.Panic, []string{"demo.Demo.<clinit>()", "demo.Demo.run(byte[])"}, "java.lang.StackOverflowError", "demo.Demo.deep\ndemo.Demo.deep\ndemo.Demo.deep"},
		{"a", coverage.OK, []string{"demo.Demo.<clinit>()", "demo.Demo.a()", "demo.Demo.run(byte[])"}, "", ""},
		{"c", coverage.OK, []string{"demo.Demo$Table.<clinit>()", "demo.Demo$Table.build()", "demo.Demo.<clinit>()", "demo.Demo.run(byte[])"}, "", ""},
		{"c", coverage.OK, []string{"demo.Demo$Table.<clinit>()", "demo.Demo$Table.build()", "demo.Demo.<clinit>()", "demo.Demo.run(byte[])"}, "", ""},
		{"", coverage.OK, []string{"demo.Demo.<clinit>()", "demo.Demo.run(byte[])"}, "", ""},
	}
	for _, tt := range tests {
		r, err := s.Record([]byte(tt.in), 10*time.Second)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if r.Outcome != tt.outcome || r.Message != tt.message || r.Frames != tt.frames {
			t.Errorf("%q: outcome %s %q frames %q, want %s %q frames %q", tt.in, r.Outcome, r.Message, r.Frames, tt.outcome, tt.message, tt.frames)
		}
		if got := javaNames(s, r); !slices.Equal(got, tt.covered) {
			t.Errorf("%q: covered %q, want %q", tt.in, got, tt.covered)
		}
	}
	// A hang: the session kills the JVM, and a new one takes the next input.
	r, err := s.Record([]byte("loop"), time.Second)
	if err != nil || r.Outcome != coverage.Timeout {
		t.Fatalf("loop: %v, %v; want a timeout", r, err)
	}
	r, err = s.Record([]byte("a"), 10*time.Second)
	if err != nil || r.Outcome != coverage.OK || !slices.Contains(javaNames(s, r), "demo.Demo.a()") {
		t.Fatalf("after the timeout: %+v, %v", r, err)
	}

	// The labels equal those of JaCoCo's XML report of a process per input.
	tool := javaReportTool(t, jacoco, dir)
	inputs := [][]byte{[]byte("a"), []byte("bb"), []byte("reject"), []byte("crash"), []byte("c"), []byte("")}
	per := javaReportLabels(t, jacoco, tool, dir, "demo.Demo.run", "demo.*", []string{filepath.Join(dir, "classes")}, inputs)
	for i, in := range inputs {
		r, err := s.Record(in, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got := javaNames(s, r); !slices.Equal(got, per[i]) {
			t.Errorf("%q: in-process %q, JaCoCo's report of a process per input %q", in, got, per[i])
		}
	}

	// A String entry gets the input as UTF-8 text; a wrong entry says why.
	for _, tt := range []struct{ entry, err string }{
		{"demo.Demo.text", ""},
		{"demo.Demo.nothing", "no static method nothing(byte[]) or nothing(String)"},
		{"demo.Nope.run", "cannot load class demo.Nope"},
	} {
		target.Harness.Entry = tt.entry
		s, err := coverage.Open(ctx, target, cache, coverage.RunOptions{})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.entry, err, tt.err)
			}
			if s != nil {
				s.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.entry, err)
		}
		r, err := s.Record([]byte("x"), 10*time.Second)
		s.Close()
		if err != nil || r.Outcome != coverage.OK || !slices.Contains(javaNames(s, r), "demo.Demo.a()") {
			t.Errorf("%s: %+v, %v", tt.entry, r, err)
		}
	}
}

// TestJavaBuildErrors: names that are not Java names never reach the
// JVM's command line.
func TestJavaBuildErrors(t *testing.T) {
	for _, h := range []coverage.HarnessTarget{
		{Lang: "java", Entry: "", Sources: []string{"."}},
		{Lang: "java", Entry: "run", Sources: []string{"."}},
		{Lang: "java", Entry: "a.B.run,output=file", Sources: []string{"."}},
		{Lang: "java", Entry: "a.B.run", Sources: []string{"."}, Cover: []string{"a.*:b"}},
		{Lang: "java", Entry: "a.B.run", Sources: []string{"."}, Reject: []string{"java.lang.Exception "}},
	} {
		if _, err := coverage.Build(context.Background(), coverage.Target{Harness: &h}, t.TempDir()); err == nil {
			t.Errorf("%+v: built", h)
		}
	}
}

// javaJSON makes n small JSON documents of every kind of value, about
// one in six of them broken in a way a lenient parser might let through
// (single quotes, comments, trailing commas, NaN, a truncation), with a
// fixed seed so that runs compare.
func javaJSON(n int) [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	strs := []string{"", "a", "key", "h\\u00e9llo", "tab\\t", "quote\\\"", "\\\\", "snow \u2603", "\\ud83d\\ude00", "<b>&amp;</b>", "=", "x y z"}
	nums := []string{"0", "-1", "42", "3.25", "-0.5", "1e3", "2E-7", "123456789012345678901234567890", "1.7976931348623157e309", "-0", "9223372036854775807"}
	var value func(depth int) string
	value = func(depth int) string {
		k := rng.IntN(9)
		if depth > 3 {
			k = rng.IntN(5)
		}
		switch k {
		case 0, 1:
			return `"` + strs[rng.IntN(len(strs))] + `"`
		case 2:
			return nums[rng.IntN(len(nums))]
		case 3:
			return []string{"true", "false", "null"}[rng.IntN(3)]
		case 4:
			return nums[rng.IntN(len(nums))]
		case 5, 6:
			var parts []string
			for i := rng.IntN(4); i > 0; i-- {
				parts = append(parts, `"`+strs[rng.IntN(len(strs))]+`"`+[]string{":", " : "}[rng.IntN(2)]+value(depth+1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		default:
			var parts []string
			for i := rng.IntN(4); i > 0; i-- {
				parts = append(parts, value(depth+1))
			}
			return "[" + strings.Join(parts, []string{",", ", "}[rng.IntN(2)]) + "]"
		}
	}
	var out [][]byte
	for len(out) < n {
		doc := value(0)
		if rng.IntN(3) > 0 && !strings.HasPrefix(doc, "{") && !strings.HasPrefix(doc, "[") {
			doc = "[" + doc + "]"
		}
		if rng.IntN(6) == 0 {
			switch rng.IntN(6) {
			case 0:
				doc = strings.Replace(doc, `"`, `'`, 2)
			case 1:
				doc = "/* c */" + doc
			case 2:
				doc = strings.Replace(doc, "]", ",]", 1) + "]"
			case 3:
				doc = "[NaN, " + doc + "]"
			case 4:
				doc = doc[:rng.IntN(len(doc)+1)]
			default:
				doc += " x"
			}
		}
		out = append(out, []byte(doc))
	}
	return out
}

// javaGson is the bundled gson subject, as datasets registers it.
func javaGson() coverage.Target {
	return coverage.Target{Harness: &coverage.HarnessTarget{Lang: "java", Entry: "arbor.subjects.GsonSubject.run",
		Sources: []string{filepath.Join("..", "datasets", "native", "gson"), "gson.jar"}, Cover: []string{"com.google.gson.*"}}}
}

func javaNeedGson(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/usr/share/java/gson.jar"); err != nil && os.Getenv("ARBOR_JAVA_LIBS") == "" {
		testenv.Missing(t, "gson.jar in /usr/share/java or ARBOR_JAVA_LIBS", "apt-get install libgoogle-gson-java")
	}
}

// TestJavaGson records gson, the published study's subject, through its
// entry class (compiled at build time from datasets/native/gson).
func TestJavaGson(t *testing.T) {
	javaNeed(t)
	javaNeedGson(t)
	s, err := coverage.Open(context.Background(), javaGson(), t.TempDir(), coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Funcs.Names) < 500 {
		t.Errorf("%d gson methods recorded, want hundreds", len(s.Funcs.Names))
	}
	for _, n := range s.Funcs.Names {
		if !strings.HasPrefix(n, "com.google.gson.") {
			t.Fatalf("recorded %s, outside com.google.gson", n)
		}
	}
	outcomes := map[coverage.Outcome]int{}
	union := map[string]bool{}
	sizes := map[int]bool{}
	for _, in := range javaJSON(200) {
		r, err := s.Record(in, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		outcomes[r.Outcome]++
		if r.Outcome == coverage.Panic {
			t.Errorf("%q crashed: %s\n%s", in, r.Message, r.Frames)
		}
		sizes[len(r.Covered)] = true
		for _, n := range javaNames(s, r) {
			union[n] = true
		}
	}
	t.Logf("%d gson methods, %d covered by some input; outcomes %v", len(s.Funcs.Names), len(union), outcomes)
	// Nesting deep enough to overflow the stack is a crash in gson's
	// frames, and the JVM goes on.
	r, err := s.Record([]byte(strings.Repeat("[", 100000)+strings.Repeat("]", 100000)), 10*time.Second)
	if err != nil || r.Outcome != coverage.Panic || !strings.HasPrefix(r.Frames, "com.google.gson.") {
		t.Errorf("deep nesting: %+v, %v; want a crash in gson", r, err)
	}
	if r, err := s.Record([]byte(`{"a": [1]}`), 10*time.Second); err != nil || r.Outcome != coverage.OK {
		t.Errorf("after the crash: %+v, %v", r, err)
	}
	if outcomes[coverage.OK] < 100 || outcomes[coverage.Error] < 10 {
		t.Errorf("outcomes %v: want mostly ok and some rejections", outcomes)
	}
	if len(union) < 150 || len(sizes) < 20 {
		t.Errorf("%d gson methods covered in all, %d distinct label sizes: want many of each", len(union), len(sizes))
	}
	for _, n := range []string{"com.google.gson.stream.JsonReader.peek()", "com.google.gson.stream.JsonWriter.value(java.lang.String)",
		"com.google.gson.JsonObject.deepCopy()", "com.google.gson.stream.JsonReader.syntaxError(java.lang.String)"} {
		if !union[n] {
			t.Errorf("%s never covered", n)
		}
	}
}

var (
	javaMeasure    = flag.Bool("java.measure", false, "TestJavaMeasure: time the Java harness against Go's and a process per input")
	javaPerProcess = flag.Int("java.perprocess", 50, "TestJavaMeasure: how many inputs to run a process each")
)

// TestJavaMeasure times, over the same small JSON documents, the Java
// harness on gson and on a method that does nothing, the Go harness on
// the bundled json subject, and a process per input on gson (the agent
// writing an exec file, JaCoCo's XML report written from it, read by the
// jacoco adapter), and compares the labels of the last with the Java
// harness's. It only logs: go test ./coverage -run TestJavaMeasure -v -args -java.measure
func TestJavaMeasure(t *testing.T) {
	if !*javaMeasure {
		t.Skip("a measurement: run with -args -java.measure")
	}
	jacoco := javaNeed(t)
	javaNeedGson(t)
	ctx := context.Background()
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	inputs := javaJSON(1000)
	// measure records every input after a warm-up and returns the session
	// with the median wall time of a Record and of the call alone.
	measure := func(name string, target coverage.Target) *coverage.Session {
		bin, err := coverage.Build(ctx, target, cache)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s, err := coverage.Start(bin, coverage.RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, in := range inputs[:100] {
			if _, err := s.WarmUp(in, 10*time.Second); err != nil {
				t.Fatal(err)
			}
		}
		var wall, call, over []time.Duration
		for _, in := range inputs {
			start := time.Now()
			r, err := s.Record(in, 10*time.Second)
			w := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			wall, call, over = append(wall, w), append(call, r.Duration), append(over, w-r.Duration)
		}
		t.Logf("%s: %d inputs, %d functions: median per input %v (the call %v, the rest %v)",
			name, len(inputs), len(s.Funcs.Names), median(wall), median(call), median(over))
		return s
	}

	gson := measure("java harness, gson", javaGson())
	defer gson.Close()
	nop := filepath.Join(dir, "nop")
	if err := os.MkdirAll(filepath.Join(nop, "nop"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package nop;\npublic class Nop {\n    public static void run(byte[] data) {\n        if (data.length > 1 << 20) {\n            throw new IllegalArgumentException(\"large\");\n        }\n    }\n}\n"
	if err := os.WriteFile(filepath.Join(nop, "nop", "Nop.java"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	measure("java harness, an empty method", coverage.Target{Harness: &coverage.HarnessTarget{Lang: "java", Entry: "nop.Nop.run", Sources: []string{nop}}}).Close()
	subject, err := datasets.LookupSubject("json")
	if err != nil {
		t.Fatal(err)
	}
	goTarget, err := subject.Target()
	if err != nil {
		t.Fatal(err)
	}
	measure("go harness, json", goTarget).Close()

	// A process per input: the entry's class started afresh under the
	// agent, which writes an exec file at exit, then JaCoCo's report.
	tool := javaReportTool(t, jacoco, dir)
	bin, err := coverage.Build(ctx, javaGson(), cache)
	if err != nil {
		t.Fatal(err)
	}
	cp := bin.Args[slices.Index(bin.Args, "-cp")+1] + string(os.PathListSeparator) + filepath.Join(dir, "tool")
	gsonJar := bin.Args[len(bin.Args)-1]
	agent := strings.TrimPrefix(strings.Split(bin.Args[0], "=")[0], "-javaagent:")
	script := `java -javaagent:"$AGENT"=destfile="$2/run.exec",includes=com.google.gson.* -cp "$CP" Once arbor.subjects.GsonSubject.run "$1"
s=$?
java -cp "$TOOL" Report "$GSON" "$2/run.exec" "$2/report.xml" || exit 3
exit $s`
	cmd := &coverage.Command{Argv: []string{"sh", "-c", script, "sh", "{}", "{dir}"}, Timeout: time.Minute, Reject: []int{1},
		Env: []string{"AGENT=" + agent, "CP=" + cp, "TOOL=" + tool, "GSON=" + gsonJar}}
	rr, err := coverage.NewReportReader("jacoco", dir)
	if err != nil {
		t.Fatal(err)
	}
	perProcess := min(*javaPerProcess, len(inputs))
	var wall []time.Duration
	agree := 0
	differ := map[string]int{}
	for i, in := range inputs[:perProcess] {
		start := time.Now()
		run, err := cmd.Run(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		c, err := rr.Read(run.Dir)
		wall = append(wall, time.Since(start))
		run.Close()
		if err != nil {
			t.Fatalf("%q: %s: %v", in, run.Outcome, err)
		}
		var per []string
		for _, f := range c.Functions {
			if f.Hits > 0 {
				per = append(per, f.Name)
			}
		}
		slices.Sort(per)
		if i == 0 {
			var missing []string
			for _, f := range c.Functions {
				if _, ok := slices.BinarySearch(gson.Funcs.Names, f.Name); !ok {
					missing = append(missing, f.Name)
				}
			}
			t.Logf("the report lists %d methods, the harness %d; %d of the report's are not the harness's: %q",
				len(c.Functions), len(gson.Funcs.Names), len(missing), missing)
		}
		r, err := gson.Record(in, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		in := javaNames(gson, r)
		if slices.Equal(in, per) {
			agree++
			continue
		}
		for _, n := range in {
			if _, ok := slices.BinarySearch(per, n); !ok {
				differ["in-process only: "+n]++
			}
		}
		for _, n := range per {
			if _, ok := slices.BinarySearch(in, n); !ok {
				differ["process per input only: "+n]++
			}
		}
	}
	t.Logf("process per input, gson: %d inputs: median per input %v", perProcess, median(wall))
	t.Logf("labels agree on %d of %d inputs (%.1f%%)", agree, perProcess, 100*float64(agree)/float64(perProcess))
	keys := slices.Sorted(maps.Keys(differ))
	for _, k := range keys {
		t.Logf("  %s: %d inputs", k, differ[k])
	}
}

// TestJavaMemory: --memory bounds a JVM's heap (the session passes it to
// the launcher in JDK_JAVA_OPTIONS): an input that needs more ends in
// an OutOfMemoryError, a crash, and the next input runs.
func TestJavaMemory(t *testing.T) {
	javaNeed(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "mem")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "Mem.java"), []byte(`package mem;
public class Mem {
	static byte[] kept;
	public static void run(byte[] data) {
		kept = new byte[Integer.parseInt(new String(data)) << 20];
	}
}
`), 0o644)
	target := coverage.Target{Harness: &coverage.HarnessTarget{Lang: "java", Entry: "mem.Mem.run", Sources: []string{filepath.Join(dir, "src")}, Dir: dir}}
	bin, err := coverage.Build(context.Background(), target, filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		memory int64
		in     string
		want   coverage.Outcome
	}{
		{128 << 20, "512", coverage.Panic},
		{128 << 20, "1", coverage.OK},
		{-1, "512", coverage.OK},
	} {
		s, err := coverage.Start(bin, coverage.RunOptions{Memory: tt.memory})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Record([]byte(tt.in), 20*time.Second)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != tt.want || (tt.want == coverage.Panic && !strings.Contains(r.Message, "OutOfMemoryError")) {
			t.Errorf("memory %d, %s MB: %s %q, want %s", tt.memory, tt.in, r.Outcome, r.Message, tt.want)
		}
	}
}

// TestJavaFirstInput: a JVM's first input may take longer than the time
// limit (class loading and initialization, the harness measuring the
// initializers), and gets a grace period for it; later inputs get the
// limit alone.
func TestJavaFirstInput(t *testing.T) {
	javaNeed(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "slow")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "Slow.java"), []byte(`package slow;
public class Slow {
	static class Late {
		static { pause(1500); }
		static void use() {}
	}
	static void pause(long ms) { try { Thread.sleep(ms); } catch (InterruptedException e) {} }
	public static void run(byte[] data) {
		Late.use();
		if (new String(data).equals("hang")) pause(5000);
	}
}
`), 0o644)
	target := coverage.Target{Harness: &coverage.HarnessTarget{Lang: "java", Entry: "slow.Slow.run", Sources: []string{filepath.Join(dir, "src")}, Dir: dir}}
	bin, err := coverage.Build(context.Background(), target, filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := coverage.Start(bin, coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct {
		in   string
		want coverage.Outcome
	}{{"a", coverage.OK}, {"b", coverage.OK}, {"hang", coverage.Timeout}} {
		r, err := s.Record([]byte(tt.in), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != tt.want {
			t.Errorf("%s: %s %q, want %s", tt.in, r.Outcome, r.Message, tt.want)
		}
	}
}
