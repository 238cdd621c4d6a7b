//go:build linux

package coverage

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

const driveJava = `package demo;

import java.nio.file.Files;
import java.nio.file.Paths;

public class Prog {
    static int digits(String s) { int n = 0; for (char c : s.toCharArray()) if (Character.isDigit(c)) n++; return n; }
    static int letters(String s) { int n = 0; for (char c : s.toCharArray()) if (Character.isLetter(c)) n++; return n; }
    static int never() { return 1; }
    public static void main(String[] args) throws Exception {
        String s = new String(Files.readAllBytes(Paths.get(args[0])));
        if (s.contains("x")) System.exit(2);
        if (s.contains("!")) throw new IllegalStateException("boom");
        if (digits(s) > 0) System.out.println("d");
        if (letters(s) > 0) System.out.println("l");
    }
}
`

// TestJaCoCoDriven: a java command line under --report jacoco runs with
// the JaCoCo agent, and its exec file becomes the XML report of the
// classes of its class path, with no wrapper; without JaCoCo's jars the
// error names them.
func TestJaCoCoDriven(t *testing.T) {
	testenv.NeedTool(t, "java", "apt-get install default-jdk-headless")
	testenv.NeedTool(t, "javac", "apt-get install default-jdk-headless")
	if _, err := javaFindJaCoCo(); err != nil {
		testenv.Missing(t, "JaCoCo's jars", "apt-get install libjacoco-java")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "demo", "Prog.java")
	os.MkdirAll(filepath.Dir(src), 0o755)
	if err := os.WriteFile(src, []byte(driveJava), 0o644); err != nil {
		t.Fatal(err)
	}
	// Debian's JaCoCo 0.8.6 reads class files up to Java 15.
	if out, err := exec.Command("javac", "--release", "11", "-d", filepath.Join(dir, "classes"), src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cache := t.TempDir()
	rr, _ := NewReportReader("jacoco", dir)
	for _, tt := range []struct {
		argv []string
		env  []string
		in   string
		want string
	}{
		{[]string{"java", "-cp", "classes", "demo.Prog", "{}"}, nil, "12ab", "ok demo.Prog.digits(java.lang.String)=1 demo.Prog.letters(java.lang.String)=1 demo.Prog.main(java.lang.String[])=1"},
		{[]string{"java", "-Xss4m", "--class-path=classes", "demo.Prog", "{}"}, nil, "x", "error demo.Prog.main(java.lang.String[])=1"},
		{[]string{"java", "demo.Prog", "{}"}, []string{"CLASSPATH=classes"}, "!", "panic demo.Prog.main(java.lang.String[])=1"},
	} {
		c := &Command{Argv: tt.argv, Env: tt.env, Dir: dir, Reject: []int{2}, Timeout: 60 * time.Second, CacheDir: cache}
		if err := c.drive(context.Background(), "jacoco"); err != nil {
			t.Fatal(err)
		}
		if c.driver == nil {
			t.Fatalf("%q: not driven", tt.argv)
		}
		if got := driveRun(t, c, rr, tt.in).String(); got != tt.want {
			t.Errorf("%q on %q: %s, want %s", tt.argv, tt.in, got, tt.want)
		}
	}
	// A command with an agent of its own is a recipe: run as written.
	c := &Command{Argv: []string{"java", "-javaagent:x.jar", "demo.Prog", "{}"}, Dir: dir, CacheDir: cache}
	if err := c.drive(context.Background(), "jacoco"); err != nil || c.driver != nil {
		t.Errorf("a command with its own agent: driven %v, %v", c.driver != nil, err)
	}
	t.Setenv("ARBOR_JACOCO_DIR", t.TempDir())
	c = &Command{Argv: []string{"java", "demo.Prog", "{}"}, Dir: dir, CacheDir: cache}
	if err := c.drive(context.Background(), "jacoco"); err == nil || !strings.Contains(err.Error(), "--report jacoco:") || !strings.Contains(err.Error(), "libjacoco-java") {
		t.Errorf("no JaCoCo: %v", err)
	}
}
