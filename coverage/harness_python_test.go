package coverage_test

import (
	"context"
	"encoding/json"
	"flag"
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
	"github.com/arbor-fuzz/arbor/synth"
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
    if text == "mem":
        return len(bytearray(256 << 20))
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
	return testenv.NeedTool(t, "python3-coverage", "apt-get install python3-coverage")
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

// TestPythonHarnessMemory: the session's memory limit holds in the
// harness; past it the input crashes, with MemoryError.
func TestPythonHarnessMemory(t *testing.T) {
	pythonCoverageTool(t)
	dir := writePythonModule(t)
	h := coverage.HarnessTarget{Lang: "python", Entry: "pkg.shapes:run", Sources: []string{dir}}
	bin, err := coverage.Build(context.Background(), coverage.Target{Harness: &h}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		memory int64
		want   coverage.Outcome
	}{
		{-1, coverage.OK},
		{128 << 20, coverage.Panic},
	} {
		s, err := coverage.Start(bin, coverage.RunOptions{Memory: tt.memory})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Record([]byte("mem"), 20*time.Second)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != tt.want || (tt.want == coverage.Panic && !strings.HasPrefix(r.Message, "MemoryError")) {
			t.Errorf("memory %d: %s %q, want %s", tt.memory, r.Outcome, r.Message, tt.want)
		}
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

// pythonDriver runs an entry function on one input file, the way the
// harness calls it, for coverage.py's own command line: a rejection
// exits 3, a crash (an uncaught exception) 1. Its configuration, JSON of
// strings alone, is read as a Python literal: json.loads would run the
// json module under measurement.
const pythonDriver = `import ast, importlib, sys
cfg = ast.literal_eval(sys.argv[1])
sys.path[:0] = cfg["sources"]
mod, _, fn = cfg["entry"].partition(":")
f = getattr(importlib.import_module(mod), fn)
reject = []
for name in cfg["reject"]:
    m, _, attr = name.rpartition(".")
    reject.append(getattr(importlib.import_module(m or "builtins"), attr))
with open(sys.argv[2], "rb") as inp:
    data = inp.read()
try:
    f(data)
except (RecursionError, MemoryError):
    raise
except tuple(reject):
    sys.exit(3)
`

// pythonAdapter runs an entry function once per input under
// python3-coverage and reads the report as arbor's process-per-input
// recording does.
type pythonAdapter struct {
	cmd *coverage.Command
	rr  *coverage.ReportReader
}

// newPythonAdapter measures the files matching include; names are
// relative to root.
func newPythonAdapter(t testing.TB, tool, root, include string, h coverage.HarnessTarget) *pythonAdapter {
	t.Helper()
	dir := t.TempDir()
	driver := filepath.Join(dir, "driver.py")
	if err := os.WriteFile(driver, []byte(pythonDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	reject := h.Reject
	if len(reject) == 0 {
		reject = []string{"ValueError"}
	}
	cfg, err := json.Marshal(map[string]any{"entry": h.Entry, "sources": h.Sources, "reject": reject})
	if err != nil {
		t.Fatal(err)
	}
	script := `"$0" run --data-file="$ARBOR_RUN_DIR/.coverage" --include="$1" "$2" "$3" "$4"; s=$?
"$0" json -q --data-file="$ARBOR_RUN_DIR/.coverage" -o "$ARBOR_RUN_DIR/cov.json"
exit $s`
	rr, err := coverage.NewReportReader("coveragepy", root)
	if err != nil {
		t.Fatal(err)
	}
	rr.Dir = root
	return &pythonAdapter{
		cmd: &coverage.Command{Argv: []string{"sh", "-c", script, tool, include, driver, string(cfg), "{}"}, Dir: root,
			Reject: []int{3}, Timeout: 30 * time.Second},
		rr: rr,
	}
}

// run returns the input's outcome and the functions that ran, by name,
// and every function the report lists.
func (a *pythonAdapter) run(input []byte) (coverage.Outcome, []string, []string, error) {
	run, err := a.cmd.Run(context.Background(), input)
	if err != nil {
		return "", nil, nil, err
	}
	defer run.Close()
	cov, err := a.rr.Read(run.Dir)
	if err != nil {
		return run.Outcome, nil, nil, err
	}
	var ran, all []string
	for _, f := range cov.Functions {
		all = append(all, f.Name)
		if f.Hits > 0 {
			ran = append(ran, f.Name)
		}
	}
	slices.Sort(ran)
	slices.Sort(all)
	return run.Outcome, slices.Compact(ran), slices.Compact(all), nil
}

// TestPythonHarnessAgrees: the harness names the functions as coverage.py
// run once per input and read by arbor's coveragepy reader does, and
// labels each input alike.
func TestPythonHarnessAgrees(t *testing.T) {
	tool := pythonCoverageTool(t)
	dir := writePythonModule(t)
	h := coverage.HarnessTarget{Lang: "python", Entry: "pkg.shapes:run", Sources: []string{dir}}
	s := startPython(t, h, t.TempDir())
	a := newPythonAdapter(t, tool, dir, filepath.Join(dir, "pkg", "*"), h)
	for i, in := range []string{"ab", "n12", "nx", "crash", "", "deep"} {
		r, err := s.Record([]byte(in), 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		outcome, ran, all, err := a.run([]byte(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if i == 0 && !slices.Equal(all, s.Funcs.Names) {
			t.Errorf("harness names %q\nadapter names %q", s.Funcs.Names, all)
		}
		if got := coveredNames(s, r); r.Outcome != outcome || !slices.Equal(got, ran) {
			t.Errorf("%q: harness %s %q, adapter %s %q", in, r.Outcome, got, outcome, ran)
		}
	}
}

// pythonSubject is a standard-library parser run through an entry of
// datasets/native/python/arbor_stdlib.py.
type pythonSubject struct {
	name, grammar string
	target        coverage.HarnessTarget
	include       []string // the covered files, relative to the standard library's folder, for coverage.py's --include
}

func pythonSubjects(t testing.TB) []pythonSubject {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "datasets", "native", "python"))
	if err != nil {
		t.Fatal(err)
	}
	h := func(entry string, cover, reject []string) coverage.HarnessTarget {
		return coverage.HarnessTarget{Lang: "python", Entry: "arbor_stdlib:" + entry, Sources: []string{src}, Cover: cover, Reject: reject}
	}
	return []pythonSubject{
		{"json", "json", h("json_run", []string{"json"}, []string{"ValueError"}), []string{"json/*"}},
		{"toml", "toml", h("toml_run", []string{"tomllib"}, []string{"ValueError"}), []string{"tomllib/*"}},
		{"url", "url", h("url_run", []string{"urllib.parse"}, []string{"ValueError"}), []string{"urllib/parse.py"}},
		{"ini", "ini", h("ini_run", []string{"configparser"}, []string{"configparser.Error", "ValueError"}), []string{"configparser.py"}},
		{"html", "html", h("html_run", []string{"html", "_markupbase"}, []string{"ValueError"}), []string{"html/*", "_markupbase.py"}},
	}
}

// pythonInputs generates n inputs of a bundled grammar.
func pythonInputs(t testing.TB, name string, n int, seed uint64) [][]byte {
	t.Helper()
	g, err := datasets.Grammar(name)
	if err != nil {
		t.Fatal(err)
	}
	gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
	gen.MaxDepth = 12
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(gen.Generate().String())
	}
	return out
}

// TestPythonStdlib records generated inputs of each standard-library
// subject: many of the library's functions run, and inputs are accepted
// as well as rejected.
func TestPythonStdlib(t *testing.T) {
	pythonCoverageTool(t)
	cache := t.TempDir()
	for _, sub := range pythonSubjects(t) {
		t.Run(sub.name, func(t *testing.T) {
			s := startPython(t, sub.target, cache)
			outcomes := map[coverage.Outcome]int{}
			ran := map[int]bool{}
			inputs := pythonInputs(t, sub.grammar, 200, 1)
			messages := map[string]int{}
			for _, in := range inputs {
				r, err := s.Record(in, 20*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				outcomes[r.Outcome]++
				if r.Outcome == coverage.Panic {
					messages[r.Message]++
				}
				for _, id := range r.Covered {
					ran[id] = true
				}
			}
			t.Logf("%d functions, %d ran; outcomes %v; crashes %v", len(s.Funcs.Names), len(ran), outcomes, messages)
			if len(ran) < 10 {
				t.Errorf("%d of %d functions ran", len(ran), len(s.Funcs.Names))
			}
			if outcomes[coverage.OK] < len(inputs)/10 {
				t.Errorf("outcomes %v: fewer than a tenth accepted", outcomes)
			}
			if outcomes[coverage.Panic]+outcomes[coverage.Timeout] > len(inputs)/4 {
				t.Errorf("outcomes %v: crashes %v", outcomes, messages)
			}
		})
	}
}

var pythonMeasure = flag.Bool("python.measure", false, "measure the Python harness against the Go recorder and coverage.py run once per input (TestPythonMeasure)")

// TestPythonMeasure measures, over the same generated inputs: the
// in-process Python harness in each of its modes, the Go recorder on the
// Go subject of the same name, coverage.py run once per input, and how
// often the harness's labels equal coverage.py's. It only reports:
//
//	go test ./coverage -run TestPythonMeasure -v -args -python.measure
func TestPythonMeasure(t *testing.T) {
	if !*pythonMeasure {
		t.Skip("a measurement: -args -python.measure")
	}
	tool := pythonCoverageTool(t)
	const n, warm, adapterN = 1000, 50, 150
	stdlib := pythonStdlibDir(t, tool)
	cache := t.TempDir()
	for _, sub := range pythonSubjects(t) {
		t.Run(sub.name, func(t *testing.T) {
			inputs := pythonInputs(t, sub.grammar, n, 2)
			warmUp := pythonInputs(t, sub.grammar, warm, 3)
			labels := map[string][][]string{}
			outcomes := map[string][]coverage.Outcome{}
			for _, mode := range []string{"collector", "api", "trace"} {
				t.Setenv("ARBOR_PYTHON_MODE", mode)
				s := startPython(t, sub.target, cache)
				var wallW, wallR, call []time.Duration
				for _, in := range warmUp {
					start := time.Now()
					if _, err := s.WarmUp(in, 20*time.Second); err != nil {
						t.Fatal(err)
					}
					wallW = append(wallW, time.Since(start))
				}
				for _, in := range inputs {
					start := time.Now()
					r, err := s.Record(in, 20*time.Second)
					if err != nil {
						t.Fatal(err)
					}
					wallR = append(wallR, time.Since(start))
					call = append(call, r.Duration)
					labels[mode] = append(labels[mode], coveredNames(s, r))
					outcomes[mode] = append(outcomes[mode], r.Outcome)
				}
				t.Logf("%s python harness, mode %s: median per input %v recorded (call alone %v), %v unrecorded warm-up",
					sub.name, mode, median(wallR), median(call), median(wallW))
				s.Close()
			}
			if s, err := datasets.LookupSubject(sub.name); err == nil {
				target, err := s.Target()
				if err != nil {
					t.Fatal(err)
				}
				bin, err := coverage.Build(context.Background(), target, coverage.DefaultCacheDir())
				if err != nil {
					t.Fatal(err)
				}
				gs, err := coverage.Start(bin, coverage.RunOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for _, in := range warmUp {
					gs.WarmUp(in, 20*time.Second)
				}
				var wall []time.Duration
				for _, in := range inputs {
					start := time.Now()
					if _, err := gs.Record(in, 20*time.Second); err != nil {
						t.Fatal(err)
					}
					wall = append(wall, time.Since(start))
				}
				gs.Close()
				t.Logf("%s Go recorder (%s): median per input %v", sub.name, target, median(wall))
			}
			include := make([]string, len(sub.include))
			for i, p := range sub.include {
				include[i] = filepath.Join(stdlib, p)
			}
			a := newPythonAdapter(t, tool, stdlib, strings.Join(include, ","), sub.target)
			var wall []time.Duration
			agree := map[string]int{}
			differ := map[string]map[string]int{}
			for i, in := range inputs[:adapterN] {
				start := time.Now()
				outcome, ran, _, err := a.run(in)
				if err != nil {
					t.Fatalf("%q: %v", in, err)
				}
				wall = append(wall, time.Since(start))
				for _, mode := range []string{"collector", "api", "trace"} {
					got := labels[mode][i]
					if outcomes[mode][i] == outcome && slices.Equal(got, ran) {
						agree[mode]++
						continue
					}
					if differ[mode] == nil {
						differ[mode] = map[string]int{}
					}
					if outcomes[mode][i] != outcome {
						differ[mode]["outcome "+string(outcomes[mode][i])+" vs "+string(outcome)]++
					}
					for _, name := range symDiff(got, ran) {
						differ[mode][name]++
					}
				}
			}
			t.Logf("%s coverage.py once per input: median per input %v over %d inputs", sub.name, median(wall), adapterN)
			for _, mode := range []string{"collector", "api", "trace"} {
				t.Logf("%s mode %s: labels equal coverage.py's on %d of %d inputs (%.1f%%); differing (harness-only +, coverage.py-only -): %v",
					sub.name, mode, agree[mode], adapterN, 100*float64(agree[mode])/adapterN, differ[mode])
			}
		})
	}
	// The harness's own cost: an entry that does nothing.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "trivial.py"), []byte("def run(data):\n    return None\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"collector", "api", "trace"} {
		t.Setenv("ARBOR_PYTHON_MODE", mode)
		s := startPython(t, coverage.HarnessTarget{Lang: "python", Entry: "trivial:run", Sources: []string{dir}}, cache)
		var wall []time.Duration
		for i := 0; i < n; i++ {
			start := time.Now()
			if _, err := s.Record([]byte("x"), 20*time.Second); err != nil {
				t.Fatal(err)
			}
			wall = append(wall, time.Since(start))
		}
		t.Logf("trivial entry, mode %s: median per input %v", mode, median(wall))
		s.Close()
	}
}

// pythonStdlibDir is the folder of the standard library of the
// interpreter that runs coverage.py's command.
func pythonStdlibDir(t testing.TB, tool string) string {
	t.Helper()
	out, err := exec.Command(tool, "run", "--data-file="+filepath.Join(t.TempDir(), "c"), "-m", "sysconfig").Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " = "); ok && k == "stdlib" {
			return strings.Trim(v, `"`)
		}
	}
	t.Fatalf("%s: no stdlib path in sysconfig's output", tool)
	return ""
}

// TestPythonHashSeed: a subject whose code depends on the order of a set
// of strings runs the same functions in every harness process. Before,
// each process salted string hashes anew, so the function the first
// element picks changed from session to session.
func TestPythonHashSeed(t *testing.T) {
	pythonCoverageTool(t)
	// The harness decides, not this test's environment (t.Setenv restores it).
	t.Setenv("PYTHONHASHSEED", "")
	os.Unsetenv("PYTHONHASHSEED")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "order"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n\ndef d():\n    return 4\n\n" +
		"def run(data):\n    first = next(iter(set(data.decode().split())))\n    {'a': a, 'b': b, 'c': c, 'd': d}[first]()\n"
	for name, text := range map[string]string{"order/__init__.py": "", "order/pick.py": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	h := coverage.HarnessTarget{Lang: "python", Entry: "order.pick:run", Sources: []string{dir}}
	seen := map[string]bool{}
	for range 8 {
		s := startPython(t, h, cache)
		r, err := s.Record([]byte("a b c d"), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		seen[strings.Join(coveredNames(s, r), " ")] = true
		s.Close()
	}
	if len(seen) != 1 {
		t.Errorf("eight harness processes ran %d different sets of functions: %v", len(seen), seen)
	}
}
