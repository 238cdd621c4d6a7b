package coverage_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
)

// pythonModule is a subject with a known shape: a class, a function
// nested in a method, a function one input alone reaches, a rejection,
// a crash and a loop. It prints, which must not disturb the protocol.
const pythonModule = `import sys

class Parser:
    def __init__(self, text):
        self.text = text

    def parse(self):
        def helper(c):
            return c.upper()
        if self.text.startswith("n"):
            return number(self.text[1:])
        return [helper(c) for c in self.text]


def number(s):
    return int(s)


def crash(s):
    return {}[s]


def loop():
    while True:
        pass


def deep(n):
    return deep(n + 1)


def run(data):
    text = data.decode()
    print("noise", text)
    sys.stdout.flush()
    if text == "crash":
        crash(text)
    if text == "loop":
        loop()
    if text == "deep":
        deep(0)
    if text == "exit":
        sys.exit(0)
    return Parser(text).parse()


def unused():
    return 1
`

// pythonCoverageTool is the coverage.py command, or the test is skipped.
func pythonCoverageTool(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs Python")
	}
	p, err := exec.LookPath("python3-coverage")
	if err != nil {
		t.Skip("coverage.py is not installed (Debian: python3-coverage)")
	}
	return p
}

// writePythonModule writes pythonModule as pkg/shapes.py under a new
// folder and returns the folder.
func writePythonModule(t *testing.T) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"pkg/__init__.py": "", "pkg/shapes.py": pythonModule} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func startPython(t testing.TB, h coverage.HarnessTarget, cache string) *coverage.Session {
	t.Helper()
	bin, err := coverage.Build(context.Background(), coverage.Target{Harness: &h}, cache)
	if err != nil {
		t.Fatal(err)
	}
	s, err := coverage.Start(bin, coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func coveredNames(s *coverage.Session, r *coverage.Result) []string {
	var names []string
	for _, id := range r.Covered {
		names = append(names, s.Funcs.Names[id])
	}
	return names
}

func TestPythonHarness(t *testing.T) {
	pythonCoverageTool(t)
	dir := writePythonModule(t)
	cache := t.TempDir()
	s := startPython(t, coverage.HarnessTarget{Lang: "python", Entry: "pkg.shapes:run", Sources: []string{dir}}, cache)
	p := "pkg.shapes."
	wantNames := []string{p + "Parser.__init__", p + "Parser.parse", p + "Parser.parse.helper", p + "crash", p + "deep", p + "loop", p + "number", p + "run", p + "unused"}
	if !slices.Equal(s.Funcs.Names, wantNames) {
		t.Fatalf("names %q, want %q", s.Funcs.Names, wantNames)
	}
	parse := []string{p + "Parser.__init__", p + "Parser.parse", p + "Parser.parse.helper", p + "run"}
	number := []string{p + "Parser.__init__", p + "Parser.parse", p + "number", p + "run"}
	for _, tt := range []struct {
		in      string
		outcome coverage.Outcome
		covered []string
		frames  string // a prefix of the crash's innermost frame
	}{
		{in: "ab", outcome: coverage.OK, covered: parse},
		{in: "n12", outcome: coverage.OK, covered: number},
		{in: "nx", outcome: coverage.Error, covered: number},
		{in: "crash", outcome: coverage.Panic, covered: []string{p + "crash", p + "run"}, frames: p + "crash:"},
		{in: "ab", outcome: coverage.OK, covered: parse}, // the crash left the harness working
		{in: "deep", outcome: coverage.Panic, covered: []string{p + "deep", p + "run"}, frames: p + "deep:"},
		{in: "exit", outcome: coverage.Panic, covered: []string{p + "run"}, frames: p + "run:"},
		{in: "\xff", outcome: coverage.Error, covered: []string{p + "run"}}, // UnicodeDecodeError is a ValueError
		{in: "loop", outcome: coverage.Timeout},
		{in: "n7", outcome: coverage.OK, covered: number}, // after a restart
	} {
		timeout := 20 * time.Second
		if tt.outcome == coverage.Timeout {
			timeout = 500 * time.Millisecond
		}
		r, err := s.Record([]byte(tt.in), timeout)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		got := coveredNames(s, r)
		if r.Outcome != tt.outcome || (tt.outcome != coverage.Timeout && !slices.Equal(got, tt.covered)) {
			t.Errorf("%q: %s %q (%s), want %s %q", tt.in, r.Outcome, got, r.Message, tt.outcome, tt.covered)
		}
		if tt.frames != "" && !strings.HasPrefix(r.Frames, tt.frames) {
			t.Errorf("%q: frames %q, want the innermost to start with %q", tt.in, r.Frames, tt.frames)
		}
		if tt.outcome == coverage.Error && r.Message == "" {
			t.Errorf("%q: rejected without a message", tt.in)
		}
	}
	// The bytes the subject printed went to the capture, not the replies.
	if s.OutputBytes() == 0 {
		t.Errorf("the subject's prints were not captured")
	}
}

// TestPythonHarnessReject: Reject names the classes that are
// rejections; others, and errors that are not exceptions of the input,
// are crashes.
func TestPythonHarnessReject(t *testing.T) {
	pythonCoverageTool(t)
	dir := writePythonModule(t)
	cache := t.TempDir()
	for _, tt := range []struct {
		reject []string
		in     string
		want   coverage.Outcome
	}{
		{nil, "nx", coverage.Error},
		{[]string{"KeyError"}, "nx", coverage.Panic},
		{[]string{"KeyError"}, "crash", coverage.Error},
		{[]string{"LookupError", "ValueError"}, "crash", coverage.Error},
		{[]string{"Exception"}, "deep", coverage.Panic}, // RecursionError is always a crash
		{[]string{"json.JSONDecodeError"}, "nx", coverage.Panic},
	} {
		s := startPython(t, coverage.HarnessTarget{Lang: "python", Entry: "pkg.shapes:run", Sources: []string{dir}, Reject: tt.reject}, cache)
		r, err := s.Record([]byte(tt.in), 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != tt.want {
			t.Errorf("reject %q, %q: %s (%s), want %s", tt.reject, tt.in, r.Outcome, r.Message, tt.want)
		}
		s.Close()
	}
}

// TestPythonHarnessBad: a target the harness cannot run is an error at
// build or start, saying why.
func TestPythonHarnessBad(t *testing.T) {
	pythonCoverageTool(t)
	dir := writePythonModule(t)
	cache := t.TempDir()
	for _, tt := range []struct {
		h    coverage.HarnessTarget
		want string
	}{
		{coverage.HarnessTarget{Entry: "pkg.shapes.run"}, "want module:function"},
		{coverage.HarnessTarget{Entry: "pkg.nothere:run"}, "nothere"},
		{coverage.HarnessTarget{Entry: "pkg.shapes:nothere"}, "no function nothere"},
		{coverage.HarnessTarget{Entry: "pkg.shapes:run", Cover: []string{"pkg.gone"}}, "no module pkg.gone"},
		{coverage.HarnessTarget{Entry: "pkg.shapes:run", Reject: []string{"NoSuchError"}}, "NoSuchError"},
	} {
		h := tt.h
		h.Lang, h.Sources = "python", []string{dir}
		bin, err := coverage.Build(context.Background(), coverage.Target{Harness: &h}, cache)
		if err == nil {
			var s *coverage.Session
			if s, err = coverage.Start(bin, coverage.RunOptions{}); err == nil {
				s.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error with %q", tt.h, err, tt.want)
		}
	}
}

// TestPythonCached: Cached finds nothing before Build writes the
// harness, and the harness after.
func TestPythonCached(t *testing.T) {
	pythonCoverageTool(t)
	cache := t.TempDir()
	target := coverage.Target{Harness: &coverage.HarnessTarget{Lang: "python", Entry: "m:f"}}
	if bin, err := coverage.Cached(context.Background(), target, cache); err != nil || bin != nil {
		t.Fatalf("before a build: %v, %v; want nothing", bin, err)
	}
	first, err := coverage.Build(context.Background(), target, cache)
	if err != nil || first.Cached {
		t.Fatalf("first build: %+v, %v", first, err)
	}
	again, err := coverage.Cached(context.Background(), target, cache)
	if err != nil || again == nil || !again.Cached || !slices.Equal(again.Args, first.Args) {
		t.Fatalf("after a build: %+v, %v", again, err)
	}
}
