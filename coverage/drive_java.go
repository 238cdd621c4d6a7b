package coverage

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// javaReportSource is the program that turns a run's exec file into
// JaCoCo's XML report (see its header).
//
//go:embed harnesses/java/ArborReport.java
var javaReportSource []byte

// jacocoReportRecipe changes whenever the way the reporter is built
// changes without its inputs changing.
const jacocoReportRecipe = 2

// jacocoExec is the exec file a driven run's agent writes.
const jacocoExec = "jacoco.exec"

// jacocoDriver runs a java command with the JaCoCo agent writing the
// run's exec file, and after the run ArborReport, compiled once against
// JaCoCo's jars, writes the XML report of the classes of the command's
// class path.
type jacocoDriver struct {
	java    string   // the JVM that runs the reporter
	agent   string   // an agent jar Debian's JaCoCo can be loaded by
	tool    []string // the reporter's class path
	classes []string // the command's class path: what the report lists
	dir     string   // the command's folder
}

// newJaCoCoDriver drives a command whose program is java, unless it
// names a -javaagent of its own.
func newJaCoCoDriver(ctx context.Context, c *Command) (driver, string, error) {
	if base := filepath.Base(c.Argv[0]); base != "java" && base != "java.exe" {
		return nil, "", nil
	}
	for _, a := range c.Argv[1:] {
		if strings.HasPrefix(a, "-javaagent:") {
			return nil, "", nil
		}
	}
	fail := func(err error) (driver, string, error) {
		return nil, "", fmt.Errorf("--report jacoco: %w", err)
	}
	java, err := javaTool("java")
	if err != nil {
		return fail(err)
	}
	javac, err := javaTool("javac")
	if err != nil {
		return fail(err)
	}
	jars, err := javaFindJaCoCo()
	if err != nil {
		return fail(err)
	}
	dirs := javaLibDirs()
	if d := os.Getenv("ARBOR_JACOCO_DIR"); d != "" {
		dirs = []string{d}
	}
	for _, d := range dirs {
		p := filepath.Join(d, "org.jacoco.report.jar")
		if _, err := os.Stat(p); err == nil {
			jars["org.jacoco.report.jar"], _ = filepath.Abs(p)
			break
		}
	}
	if jars["org.jacoco.report.jar"] == "" {
		return fail(fmt.Errorf("org.jacoco.report.jar not found in %s (install Debian's libjacoco-java, or set ARBOR_JACOCO_DIR to a folder of JaCoCo's and ASM's jars)", strings.Join(dirs, string(os.PathListSeparator))))
	}
	cacheDir, err := openCache(c.CacheDir)
	if err != nil {
		return fail(err)
	}
	built, err := buildJaCoCoReport(ctx, javac, jars, cacheDir)
	if err != nil {
		return fail(err)
	}
	d := &jacocoDriver{java: java, agent: filepath.Join(built, "agent.jar"), tool: []string{built}, dir: c.Dir}
	for _, n := range append(slices.Clone(javaJaCoCoJars), "org.jacoco.report.jar") {
		d.tool = append(d.tool, jars[n])
	}
	d.classes = javaCommandClassPath(c)
	return d, "", nil
}

// buildJaCoCoReport compiles ArborReport and writes the agent jar into a
// folder of cacheDir keyed by what they are made of, once.
func buildJaCoCoReport(ctx context.Context, javac string, jars map[string]string, cacheDir string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "recipe %d\n", jacocoReportRecipe)
	h.Write(javaReportSource)
	version, err := javaVersion(ctx, javac)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "\njdk %s\n", version)
	names := append(slices.Clone(javaJaCoCoJars), "org.jacoco.report.jar")
	for _, n := range names {
		f, err := os.Open(jars[n])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "file %s\n", jars[n])
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	dir := filepath.Join(cacheDir, "jacoco-report-"+hex.EncodeToString(h.Sum(nil))[:32])
	if ok, err := cachedEntry(dir); err != nil {
		return "", err
	} else if ok {
		return dir, nil
	}
	err = buildDir(cacheDir, dir, func(tmp string) error {
		src := filepath.Join(tmp, "ArborReport.java")
		if err := os.WriteFile(src, javaReportSource, 0o644); err != nil {
			return err
		}
		var cp []string
		for _, n := range names {
			cp = append(cp, jars[n])
		}
		if err := javaCompile(ctx, javac, cp, tmp, []string{src}); err != nil {
			return fmt.Errorf("compile JaCoCo's reporter: %w", err)
		}
		if err := javaAgentJar(filepath.Join(tmp, "agent.jar"), jars); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "done"), nil, 0o644)
	})
	return dir, err
}

// javaCommandClassPath is the class path a java command line gives
// (-cp, -classpath, --class-path, or the jar of -jar), else CLASSPATH,
// else the command's folder, as the JVM takes it; relative entries are
// made absolute against the command's folder, and dir/* becomes the
// folder's jars.
func javaCommandClassPath(c *Command) []string {
	var cp string
	found := false
	takesValue := map[string]bool{"-p": true, "--module-path": true, "--upgrade-module-path": true, "--add-modules": true,
		"--limit-modules": true, "--add-reads": true, "--add-exports": true, "--add-opens": true, "--patch-module": true,
		"--source": true, "--enable-native-access": true}
	for i := 1; i < len(c.Argv) && !found; i++ {
		a := c.Argv[i]
		switch {
		case (a == "-cp" || a == "-classpath" || a == "--class-path") && i+1 < len(c.Argv):
			cp, found = c.Argv[i+1], true
		case strings.HasPrefix(a, "--class-path="):
			cp, found = strings.TrimPrefix(a, "--class-path="), true
		case a == "-jar" && i+1 < len(c.Argv):
			cp, found = c.Argv[i+1], true
		case takesValue[a]:
			i++
		case !strings.HasPrefix(a, "-"):
			i = len(c.Argv) // the main class: options end
		}
	}
	if !found {
		for _, e := range append(os.Environ(), c.Env...) {
			if v, ok := strings.CutPrefix(e, "CLASSPATH="); ok {
				cp, found = v, true
			}
		}
	}
	if !found || cp == "" {
		cp = "."
	}
	var out []string
	for _, e := range filepath.SplitList(cp) {
		if e == "" {
			e = "."
		}
		if !filepath.IsAbs(e) {
			e = filepath.Join(c.Dir, e)
		}
		if abs, err := filepath.Abs(e); err == nil {
			e = abs
		}
		if dir, ok := strings.CutSuffix(e, string(filepath.Separator)+"*"); ok {
			jars, _ := filepath.Glob(filepath.Join(dir, "*.jar"))
			out = append(out, jars...)
			continue
		}
		out = append(out, e)
	}
	return out
}

func (d *jacocoDriver) wrap(argv []string, dir string) ([]string, []string) {
	// Debian's agent loads JaCoCo's core and ASM from the class path,
	// where the agent would instrument them too, itself included.
	agent := "-javaagent:" + d.agent + "=destfile=" + filepath.Join(dir, jacocoExec) + ",excludes=org.jacoco.*:org.objectweb.asm.*"
	return append([]string{argv[0], agent}, argv[1:]...), nil
}

// report runs ArborReport on the run's exec file.
func (d *jacocoDriver) report(ctx context.Context, dir string) error {
	exec := filepath.Join(dir, jacocoExec)
	if _, err := os.Stat(exec); err != nil {
		return nil // a JVM killed before it could write it
	}
	args := []string{d.java, "-cp", strings.Join(d.tool, string(os.PathListSeparator)), "ArborReport", exec, filepath.Join(dir, "jacoco.xml")}
	_, err := runTool(ctx, d.dir, append(args, d.classes...)...)
	return err
}
