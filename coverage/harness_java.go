package coverage

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// javaHarnessSource is the Java harness (see its header): compiled with
// the JDK's javac at first use, against Debian's JaCoCo jars.
//
//go:embed harnesses/java/ArborHarness.java
var javaHarnessSource []byte

// javaRecipe changes whenever the way a Java harness is built changes
// without its inputs changing, so that no older build is reused.
const javaRecipe = 2

// javaDebianDir is where Debian installs library jars (its Java policy),
// searched after the folders of ARBOR_JAVA_LIBS.
const javaDebianDir = "/usr/share/java"

// javaJaCoCoJars are the jars the harness and the agent load: Debian's
// agent jar is not self-contained, and the harness analyses classes with
// JaCoCo's core, which needs ASM.
var javaJaCoCoJars = []string{"org.jacoco.agent.rt.jar", "org.jacoco.core.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"}

// buildJava builds the Java harness of h under cacheDir: the harness
// class, compiled with javac --release 11 (JaCoCo 0.8.6 reads class
// files up to Java 15), the classes of the target's own Java sources (a
// Sources entry that is a folder with .java files in it is compiled,
// against the other entries, and its classes put first on the class
// path), and an agent jar of only a manifest, which names JaCoCo's
// premain class and the jars it needs (Debian's agent jar names
// neither). The build is keyed by the content of everything it reads.
// The JVM takes no memory limit after it starts: it keeps its default
// heap, and an OutOfMemoryError is a crash like any other Error.
func buildJava(ctx context.Context, h HarnessTarget, cacheDir string, doBuild bool) (*Binary, error) {
	if err := javaCheckNames("entry", []string{h.Entry}, false); err != nil {
		return nil, err
	}
	if err := javaCheckNames("cover pattern", h.Cover, true); err != nil {
		return nil, err
	}
	if err := javaCheckNames("reject class", h.Reject, false); err != nil {
		return nil, err
	}
	java, err := javaTool("java")
	if err != nil {
		return nil, err
	}
	javac, err := javaTool("javac")
	if err != nil {
		return nil, err
	}
	jars, err := javaFindJaCoCo()
	if err != nil {
		return nil, err
	}
	sources, err := javaSources(h)
	if err != nil {
		return nil, err
	}
	compile, err := javaSourceFiles(sources)
	if err != nil {
		return nil, err
	}
	key, err := javaBuildKey(ctx, javac, jars, sources, compile)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cacheDir, "java-"+key)
	bin := &Binary{Path: java, Args: javaArgs(h, dir, jars, sources, len(compile) > 0), Cached: true,
		// A JVM's first input loads and verifies the classes it uses, runs
		// them interpreted, and has the harness measure their static
		// initializers: seconds for gson, where later inputs take a
		// millisecond. Without the grace a small --timeout fails the first
		// input of every process, and, restarting, the next one's too.
		StartGrace: 10 * time.Second,
		// A JVM cannot take a limit once it runs; an input that needs more
		// heap ends in an OutOfMemoryError, which the harness reports as a
		// crash.
		MemoryArg: func(bytes int64) string { return fmt.Sprintf("-Xmx%dk", bytes>>10) },
	}
	if ok, err := cachedEntry(dir); err != nil {
		return nil, err
	} else if ok {
		return bin, nil
	}
	if !doBuild {
		return nil, nil
	}
	err = buildDir(cacheDir, dir, func(tmp string) error {
		if err := javaBuild(ctx, javac, tmp, jars, sources, compile); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "done"), nil, 0o644)
	})
	if err != nil {
		return nil, err
	}
	bin.Cached = false
	return bin, nil
}

// javaBuild compiles the harness and the target's sources into dir and
// writes the agent jar.
func javaBuild(ctx context.Context, javac, dir string, jars map[string]string, sources []string, compile []string) error {
	hdir := filepath.Join(dir, "harness")
	if err := os.MkdirAll(hdir, 0o755); err != nil {
		return err
	}
	src := filepath.Join(dir, "ArborHarness.java")
	if err := os.WriteFile(src, javaHarnessSource, 0o644); err != nil {
		return err
	}
	var jcp []string
	for _, n := range javaJaCoCoJars {
		jcp = append(jcp, jars[n])
	}
	if err := javaCompile(ctx, javac, jcp, hdir, []string{src}); err != nil {
		return fmt.Errorf("compile the java harness: %w", err)
	}
	if len(compile) > 0 {
		if err := javaCompile(ctx, javac, sources, filepath.Join(dir, "classes"), compile); err != nil {
			return fmt.Errorf("compile the target's java sources: %w", err)
		}
	}
	return javaAgentJar(filepath.Join(dir, "agent.jar"), jars)
}

func javaCompile(ctx context.Context, javac string, classPath []string, out string, files []string) error {
	args := []string{"--release", "11", "-encoding", "UTF-8", "-nowarn", "-d", out}
	if len(classPath) > 0 {
		args = append(args, "-cp", strings.Join(classPath, string(os.PathListSeparator)))
	}
	cmd := exec.CommandContext(ctx, javac, append(args, files...)...)
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w\n%s", err, strings.TrimSpace(msg.String()))
	}
	return nil
}

// javaAgentJar writes a jar of only a manifest that makes Debian's JaCoCo
// agent loadable: its premain class, and a class path of file URLs of
// the jars the agent needs.
func javaAgentJar(path string, jars map[string]string) error {
	var m strings.Builder
	m.WriteString("Manifest-Version: 1.0\nPremain-Class: org.jacoco.agent.rt.internal.PreMain\n")
	cp := "Class-Path:"
	for _, n := range javaJaCoCoJars {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(jars[n])}
		cp += " " + u.String()
	}
	// Manifest lines hold at most 72 bytes; longer ones continue on lines
	// that start with a space.
	for first := true; cp != ""; first = false {
		n := min(len(cp), 72)
		if !first {
			m.WriteByte(' ')
			n = min(len(cp), 71)
		}
		m.WriteString(cp[:n])
		m.WriteByte('\n')
		cp = cp[n:]
	}
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, err := z.Create("META-INF/MANIFEST.MF")
	if err != nil {
		return err
	}
	io.WriteString(w, m.String()+"\n")
	if err := z.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// javaArgs are the JVM's arguments: the agent, recording only the
// covered classes and writing no file, then the user's JVM options, the
// class path, and the harness's own arguments.
func javaArgs(h HarnessTarget, dir string, jars map[string]string, sources []string, compiled bool) []string {
	cover := javaCover(h)
	// The entry's class is instrumented too, recorded or not: the harness
	// reads which classes its code initializes.
	entryClass := h.Entry[:strings.LastIndex(h.Entry, ".")]
	includes := []string{entryClass, entryClass + "$*"}
	for _, p := range cover {
		if strings.HasSuffix(p, ".*") {
			includes = append(includes, p)
		} else {
			includes = append(includes, p, p+"$*", p+".*")
		}
	}
	args := []string{"-javaagent:" + filepath.Join(dir, "agent.jar") + "=includes=" + strings.Join(includes, ":") + ",output=none"}
	args = append(args, h.Flags...)
	scan := slices.Clone(sources)
	if compiled {
		scan = append([]string{filepath.Join(dir, "classes")}, scan...)
	}
	cp := append([]string{filepath.Join(dir, "harness")}, scan...)
	for _, n := range javaJaCoCoJars {
		cp = append(cp, jars[n])
	}
	reject := "-"
	if len(h.Reject) > 0 {
		reject = strings.Join(h.Reject, ",")
	}
	args = append(args, "-cp", strings.Join(cp, string(os.PathListSeparator)), "ArborHarness", h.Entry, strings.Join(cover, ","), reject)
	return append(args, scan...)
}

// javaCover is what the harness records: h.Cover, or else the entry's
// package (the entry's class, in the default package).
func javaCover(h HarnessTarget) []string {
	if len(h.Cover) > 0 {
		return h.Cover
	}
	cls := h.Entry[:strings.LastIndex(h.Entry, ".")]
	if i := strings.LastIndex(cls, "."); i >= 0 {
		return []string{cls[:i] + ".*"}
	}
	return []string{cls}
}

// javaCheckNames accepts Java names (pkg.Class.method, pkg.Class$Inner)
// and, with patterns, a trailing ".*"; nothing else reaches the agent's
// option string or the harness's arguments.
func javaCheckNames(what string, names []string, patterns bool) error {
	for _, n := range names {
		s := n
		if patterns {
			s = strings.TrimSuffix(s, ".*")
		}
		ok := s != ""
		for _, part := range strings.Split(s, ".") {
			if part == "" || part[0] >= '0' && part[0] <= '9' {
				ok = false
			}
			for _, r := range part {
				if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127) {
					ok = false
				}
			}
		}
		if what == "entry" && !strings.Contains(s, ".") {
			ok = false
		}
		if !ok {
			if what == "entry" {
				return fmt.Errorf("java harness: want the entry as pkg.Class.method (a static method taking byte[] or String), not %q", n)
			}
			return fmt.Errorf("java harness: %s %q is not a Java name", what, n)
		}
	}
	return nil
}

// javaTool finds a JDK tool: in JAVA_HOME, if set, or on the PATH.
func javaTool(name string) (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("java harness: %s not found (install a JDK, such as Debian's default-jdk-headless): %w", name, err)
	}
	return p, nil
}

// javaLibDirs are the folders searched for jars named without a folder:
// those of ARBOR_JAVA_LIBS, then Debian's.
func javaLibDirs() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("ARBOR_JAVA_LIBS")) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return append(dirs, javaDebianDir)
}

// javaFindJaCoCo finds JaCoCo's jars: in ARBOR_JACOCO_DIR if set, or else
// in the library folders.
func javaFindJaCoCo() (map[string]string, error) {
	dirs := javaLibDirs()
	if d := os.Getenv("ARBOR_JACOCO_DIR"); d != "" {
		dirs = []string{d}
	}
	jars := map[string]string{}
	for _, n := range javaJaCoCoJars {
		for _, d := range dirs {
			p := filepath.Join(d, n)
			if _, err := os.Stat(p); err == nil {
				if p, err = filepath.Abs(p); err == nil {
					jars[n] = p
					break
				}
			}
		}
		if jars[n] == "" {
			return nil, fmt.Errorf("java harness: %s not found in %s (install Debian's libjacoco-java, or set ARBOR_JACOCO_DIR to a folder of JaCoCo's and ASM's jars)", n, strings.Join(dirs, string(os.PathListSeparator)))
		}
	}
	return jars, nil
}

// javaSources makes the class path absolute: relative entries are
// relative to h.Dir, where the harness runs; a jar named without a
// folder that is not there is looked for in the library folders (so that
// a target can name Debian's gson.jar as "gson.jar").
func javaSources(h HarnessTarget) ([]string, error) {
	var out []string
	for _, s := range h.Sources {
		p := s
		if !filepath.IsAbs(p) {
			p = filepath.Join(h.Dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			found := false
			if filepath.Base(s) == s && strings.HasSuffix(s, ".jar") {
				for _, d := range javaLibDirs() {
					if _, err := os.Stat(filepath.Join(d, s)); err == nil {
						p, found = filepath.Join(d, s), true
						break
					}
				}
			}
			if !found {
				return nil, fmt.Errorf("java harness: class path entry %s: %w", s, err)
			}
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		out = append(out, abs)
	}
	if len(out) == 0 {
		return nil, errors.New("java harness: no sources (the class path: folders and jars)")
	}
	return out, nil
}

// javaSourceFiles lists the .java files in the folders of the class path.
func javaSourceFiles(sources []string) ([]string, error) {
	var files []string
	for _, s := range sources {
		if fi, err := os.Stat(s); err != nil || !fi.IsDir() {
			continue
		}
		err := filepath.WalkDir(s, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".java") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("java harness: %w", err)
		}
	}
	slices.Sort(files)
	return files, nil
}

// javaBuildKey hashes what a build reads: the harness, the JDK's version,
// JaCoCo's jars, the class path and the sources compiled.
func javaBuildKey(ctx context.Context, javac string, jars map[string]string, sources, compile []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "recipe %d\n", javaRecipe)
	h.Write(javaHarnessSource)
	version, err := javaVersion(ctx, javac)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "\njdk %s\n", version)
	hashFile := func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("java harness: %w", err)
		}
		defer f.Close()
		fmt.Fprintf(h, "file %s\n", path)
		_, err = io.Copy(h, f)
		return err
	}
	for _, n := range javaJaCoCoJars {
		if err := hashFile(jars[n]); err != nil {
			return "", err
		}
	}
	for _, s := range sources {
		// The compiled sources depend on the jars' APIs: their sizes and
		// times stand in for their contents, which may be large. A
		// folder's time changes whenever it is written out afresh (as
		// bundled subjects are), so only its sources count.
		fi, err := os.Stat(s)
		if err != nil {
			return "", fmt.Errorf("java harness: %w", err)
		}
		if fi.IsDir() {
			fmt.Fprintf(h, "cp %s\n", s)
		} else {
			fmt.Fprintf(h, "cp %s %d %d\n", s, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	for _, f := range compile {
		if err := hashFile(f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// javaVersion is the JDK's release file, found from javac's real path
// (Debian links it from /usr/bin), or else what javac -version says.
func javaVersion(ctx context.Context, javac string) (string, error) {
	if real, err := filepath.EvalSymlinks(javac); err == nil {
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(real)), "release")); err == nil {
			return real + "\n" + string(b), nil
		}
	}
	out, err := exec.CommandContext(ctx, javac, "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("java harness: %s -version: %w", javac, err)
	}
	return string(out), nil
}
