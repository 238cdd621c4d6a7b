package coverage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Need is one thing this machine lacks that a kind of target or a
// coverage report format needs, and where it comes from.
type Need struct {
	// What is the tool or file: "gcc", "JaCoCo's jars", "coverage.py".
	What string `json:"what"`
	// Error is why it was not found, in the words of the harness that
	// looks for it (recording would fail with the same message).
	Error string `json:"error"`
	// Package is the Debian package that provides it, or "" if there is
	// none (the go command, apt-get itself).
	Package string `json:"package,omitempty"`
	// Install says how to get it when no Debian package does.
	Install string `json:"install,omitempty"`
}

// ToolStatus says whether one kind of target, or the tools that write one
// coverage report format, can be used on this machine.
type ToolStatus struct {
	// Name is the kind of target ("go", "go-isolated", "c", "java",
	// "python", "command") or the report format ("gcov", "lcov",
	// "jacoco", "coveragepy").
	Name string `json:"name"`
	// Kind is "target" or "report".
	Kind        string `json:"kind"`
	Description string `json:"description"`
	OK          bool   `json:"ok"`
	// Found are the tools and files that were found, as paths.
	Found   []string `json:"found,omitempty"`
	Missing []Need   `json:"missing,omitempty"`
	// Install is the command that installs what is missing (see
	// InstallCommand), or "" if nothing is or no package provides it.
	Install string `json:"install,omitempty"`
	// Optional are missing tools that arbor does not need but the
	// hand-written recipes of docs/recording.md use (lcov's own lcov).
	Optional []Need `json:"optional,omitempty"`
}

// The kinds of target and the report formats that CheckTools reports on.
const (
	ToolGo         = "go"
	ToolGoIsolated = "go-isolated"
	ToolC          = "c"
	ToolJava       = "java"
	ToolPython     = "python"
	ToolCommand    = "command"
	ToolGcov       = "gcov"
	ToolLcov       = "lcov"
	ToolJaCoCo     = "jacoco"
	ToolCoveragePy = "coveragepy"
)

// CheckTools says which kinds of target (Go in one process and in a
// process per input, C, Java, Python, any command) and which coverage
// report formats work on this machine, and for each that does not, what
// is missing and how to install it.
//
// The targets' tools are looked for by the very functions their
// harnesses use (PATH, JAVA_HOME, ARBOR_JAVA_LIBS, ARBOR_JACOCO_DIR,
// ARBOR_PYTHON are respected the same way), so that a check cannot pass
// where recording then fails for a missing tool, or the other way round.
// arbor reads every report format itself; a report's status is about the
// tools that write it, as docs/recording.md runs them.
//
// The checks are cheap: files are looked up, and a Python interpreter is
// asked once whether it can import coverage.py (which is what the Python
// harness needs, and a lookup on PATH cannot tell). Nothing is built,
// fetched or written.
func CheckTools(ctx context.Context) []ToolStatus {
	p := newProbe(ctx)
	return []ToolStatus{
		p.status(ToolGo, "target", "Go functions recorded in one harness process (--go, the Go subjects)", p.goCmd),
		p.status(ToolGoIsolated, "target", "Go functions recorded with a process per input (--isolate)", p.goCmd),
		p.status(ToolC, "target", "C libFuzzer targets recorded in-process (--c, cjson)", p.gcc),
		p.status(ToolJava, "target", "Java methods recorded in-process with JaCoCo (--java, gson)", p.java, p.javac, p.jacoco),
		p.status(ToolPython, "target", "Python functions recorded in-process with coverage.py (--python, pyjson, ...)", p.python),
		p.status(ToolCommand, "target", "any program run once per input (--cmd); it needs what its report needs"),
		p.status(ToolGcov, "report", "gcov --json-format output of a program built with gcc --coverage (arbor runs gcov)", p.gcc, p.gcov),
		p.optional(p.status(ToolLcov, "report", "lcov tracefiles (arbor makes them from gcov's output of a program built with gcc --coverage)", p.gcc, p.gcov), p.lcov),
		p.status(ToolJaCoCo, "report", "JaCoCo's XML report, written with the JaCoCo agent and its report library", p.java, p.javac, p.jacoco, p.jacocoReport),
		p.status(ToolCoveragePy, "report", "coverage.py's JSON or lcov reports (older ones get their functions from python3)", p.python, p.python3),
	}
}

// InstallCommand is the command that installs the Debian packages of
// needs ("apt-get install gcc lcov"), each once, in the order first
// needed; needs that no package provides add their own advice after it.
// It is "" when nothing is needed.
func InstallCommand(needs []Need) string {
	var pkgs, other []string
	for _, n := range needs {
		switch {
		case n.Package != "":
			if !slices.Contains(pkgs, n.Package) {
				pkgs = append(pkgs, n.Package)
			}
		case n.Install != "":
			if !slices.Contains(other, n.Install) {
				other = append(other, n.Install)
			}
		}
	}
	if len(pkgs) > 0 {
		other = append([]string{"apt-get install " + strings.Join(pkgs, " ")}, other...)
	}
	return strings.Join(other, "; ")
}

// FindJavaLib finds a jar named without a folder (as a Java target's
// class path may name Debian's "gson.jar") where the Java harness looks
// for it: in the folders of ARBOR_JAVA_LIBS, then Debian's.
func FindJavaLib(name string) (string, error) {
	return findIn(name, javaLibDirs())
}

// findIn finds the file name in the first of dirs that holds it.
func findIn(name string, dirs []string) (string, error) {
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("%s not found in %s", name, strings.Join(dirs, string(os.PathListSeparator)))
}

// probe runs each check once, however many statuses need it (the Python
// interpreter is asked once for the python target and the coverage.py
// report).
type probe struct {
	ctx  context.Context
	done map[string]probeResult
}

type probeResult struct {
	found []string
	need  *Need
}

func newProbe(ctx context.Context) *probe {
	return &probe{ctx: ctx, done: map[string]probeResult{}}
}

// once runs look under the key name, or returns its earlier result.
func (p *probe) once(name string, look func() ([]string, *Need)) ([]string, *Need) {
	if r, ok := p.done[name]; ok {
		return r.found, r.need
	}
	found, need := look()
	p.done[name] = probeResult{found, need}
	return found, need
}

// status runs the checks of one kind of target or report.
func (p *probe) status(name, kind, desc string, checks ...func() ([]string, *Need)) ToolStatus {
	s := ToolStatus{Name: name, Kind: kind, Description: desc}
	for _, c := range checks {
		found, need := c()
		s.Found = append(s.Found, found...)
		if need != nil {
			s.Missing = append(s.Missing, *need)
		}
	}
	s.OK = len(s.Missing) == 0
	s.Install = InstallCommand(s.Missing)
	return s
}

// optional adds to s what the checks find missing, as optional.
func (p *probe) optional(s ToolStatus, checks ...func() ([]string, *Need)) ToolStatus {
	for _, c := range checks {
		found, need := c()
		s.Found = append(s.Found, found...)
		if need != nil {
			s.Optional = append(s.Optional, *need)
		}
	}
	return s
}

// onPath finds a command on PATH, as exec.Command does.
func (p *probe) onPath(tool, pkg string) ([]string, *Need) {
	return p.once("path:"+tool, func() ([]string, *Need) {
		path, err := exec.LookPath(tool)
		if err != nil {
			return nil, &Need{What: tool, Error: fmt.Sprintf("%s is not on PATH", tool), Package: pkg}
		}
		return []string{path}, nil
	})
}

// goCmd is the go command, which builds every Go harness (build.go runs
// "go" from PATH). Debian's golang-go is too old in some releases, so
// the advice is Go's own.
func (p *probe) goCmd() ([]string, *Need) {
	found, need := p.onPath("go", "")
	if need != nil {
		n := *need
		n.Install = "install Go 1.24 or newer (https://go.dev/doc/install)"
		return nil, &n
	}
	return found, nil
}

// gcc is the C compiler, looked up as buildC looks it up, and missing
// in its words.
func (p *probe) gcc() ([]string, *Need) {
	found, need := p.onPath("gcc", "gcc")
	if need != nil {
		n := *need
		n.Error = "c harness: gcc is not installed (Debian package gcc)"
		return nil, &n
	}
	return found, nil
}

// gcov is found as record --report gcov|lcov finds it for a program
// built with gcc --coverage; the program's own compiler version, which
// may pick a versioned gcov, is not known here. It comes with Debian's
// gcc.
func (p *probe) gcov() ([]string, *Need) {
	return p.once("gcov", func() ([]string, *Need) {
		path, err := gcovTool("")
		if err != nil {
			return nil, &Need{What: "gcov", Error: err.Error(), Package: "gcc"}
		}
		return []string{path}, nil
	})
}

// lcov is lcov's own command, which arbor does not run (it writes lcov
// tracefiles itself) but hand-written recipes and arbor's tests do.
func (p *probe) lcov() ([]string, *Need) { return p.onPath("lcov", "lcov") }

// python3 is what the coverage.py report adapter runs to read the
// function ranges that reports before coverage.py 7.5 lack.
func (p *probe) python3() ([]string, *Need) { return p.onPath("python3", "python3") }

// java and javac are found as the Java harness finds them: in
// JAVA_HOME, else on PATH.
func (p *probe) java() ([]string, *Need)  { return p.jdkTool("java") }
func (p *probe) javac() ([]string, *Need) { return p.jdkTool("javac") }

func (p *probe) jdkTool(name string) ([]string, *Need) {
	return p.once("jdk:"+name, func() ([]string, *Need) {
		path, err := javaTool(name)
		if err != nil {
			return nil, &Need{What: name, Error: err.Error(), Package: "default-jdk-headless"}
		}
		return []string{path}, nil
	})
}

// jacoco is JaCoCo's agent and core with ASM, found as the Java harness
// finds them (Debian's libjacoco-java depends on libasm-java).
func (p *probe) jacoco() ([]string, *Need) {
	return p.once("jacoco", func() ([]string, *Need) {
		jars, err := javaFindJaCoCo()
		if err != nil {
			return nil, &Need{What: "JaCoCo's jars", Error: err.Error(), Package: "libjacoco-java"}
		}
		var found []string
		for _, n := range javaJaCoCoJars {
			found = append(found, jars[n])
		}
		return found, nil
	})
}

// jacocoReport is JaCoCo's report library, which writes the XML report
// (Debian ships no JaCoCo command-line tool); it is looked for where the
// harness looks for the rest of JaCoCo.
func (p *probe) jacocoReport() ([]string, *Need) {
	return p.once("jacoco-report", func() ([]string, *Need) {
		dirs := javaLibDirs()
		if d := os.Getenv("ARBOR_JACOCO_DIR"); d != "" {
			dirs = []string{d}
		}
		path, err := findIn("org.jacoco.report.jar", dirs)
		if err != nil {
			return nil, &Need{What: "org.jacoco.report.jar", Error: err.Error(), Package: "libjacoco-java"}
		}
		return []string{path}, nil
	})
}

// python is an interpreter that can import coverage.py, found as the
// Python harness finds it.
func (p *probe) python() ([]string, *Need) {
	return p.once("python", func() ([]string, *Need) {
		path, err := pythonInterpreter(p.ctx)
		if err != nil {
			if ctxErr := p.ctx.Err(); ctxErr != nil {
				err = errors.Join(err, ctxErr)
			}
			return nil, &Need{What: "coverage.py", Error: err.Error(), Package: "python3-coverage"}
		}
		return []string{path}, nil
	})
}
