package eval

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// E7's gofuzz method: Go's native fuzzer (go test -fuzz) on the
// grammar-aware fuzz target synth.ByteGenerator makes of the subject's
// grammar (docs/gofuzz.md), for the run's wall time. The fuzz test is
// built once per subject, before the clock starts; each run then fuzzes
// with a corpus of its own, and what Go's fuzzer kept is measured by the
// subject's session afterwards, as of the times the files appeared.
//
// Its inputs keep the grammar's constraints (where clauses) unless
// E7Config.NoConstraints, as the other methods' do: the ByteGenerator
// repairs each tree the bytes decide, with a search seeded the same for
// every call (synth.ByteGenerator.Constraints), so that an input is
// still a function of the bytes Go's fuzzer keeps and mutates, and the
// corpus it kept is turned into the same inputs here.

// arborModule is arbor's module path: the fuzz target imports its
// grammar and synth packages from arbor's source.
const arborModule = "github.com/arbor-fuzz/arbor"

// goFuzzFunc is the fuzz target's name.
const goFuzzFunc = "FuzzGrammar"

// goFuzzPoll is how often a run's corpus folders are listed.
const goFuzzPoll = 250 * time.Millisecond

// goFuzzTarget is a subject's fuzz test, built.
type goFuzzTarget struct {
	dir string               // temporary folder: the module, the binary, the runs
	bin string               // the fuzz test binary
	gen *synth.ByteGenerator // the generator the fuzz target runs, in this process
}

func (g *goFuzzTarget) close() { os.RemoveAll(g.dir) }

// goFuzzTest is the fuzz test: the subject's function on the input the
// ByteGenerator makes of the fuzzer's bytes, for the grammar E7 wrote
// into it, with a panic recovered so that a crash does not end the run
// (as the measurement of docs/gofuzz.md). TestAgree checks that the
// generator built from arbor's source makes of some bytes what E7's
// makes in process, which decodes the corpus.
const goFuzzTest = `package fz

import (
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"{{constraint import}}
	subject {{import}}
)

// grammarText is the subject's grammar, in arbor's notation.
const grammarText = {{grammar}}

func generator(tb testing.TB) *synth.ByteGenerator {
	ast, err := grammar.Parse("subject.grammar", []byte(grammarText))
	if err != nil {
		tb.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		tb.Fatal(err)
	}
	gen := synth.NewByteGenerator(g)
	gen.MaxDepth = {{maxdepth}}{{constraints}}
	return gen
}

// run runs the subject; a panic is a finding, not the end of fuzzing.
func run(data []byte) {
	defer func() { recover() }()
	subject.{{func}}(data)
}

func FuzzGrammar(f *testing.F) {
	gen := generator(f)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) { run(gen.FromBytes(data)) })
}

// agree holds byte strings and the inputs arbor's E7 made of them.
var agree = [][2]string{
{{agree}}}

func TestAgree(t *testing.T) {
	gen := generator(t)
	for _, a := range agree {
		if got := string(gen.FromBytes([]byte(a[0]))); got != a[1] {
			t.Fatalf("ARBOR-DISAGREE: of %q this source makes %q, the arbor that wrote the test %q", a[0], got, a[1])
		}
	}
}
`

// buildGoFuzz builds the subject's fuzz test. It returns why the method
// does not apply instead when the subject is no Go function, or the go
// command or arbor's source is not at hand.
func buildGoFuzz(ctx context.Context, cfg E7Config, s subject.Setup) (_ *goFuzzTarget, skip string, _ error) {
	if skip := goFuzzSkip(s); skip != "" {
		return nil, skip, nil
	}
	src, err := arborSource(cfg.ArborDir)
	if err != nil {
		return nil, err.Error(), nil
	}
	// The subject's module, and the modules of the workspace its folder is
	// in, join the fuzz test's workspace, as coverage's harness does.
	modDir, _ := goOutput(ctx, s.Target.Dir, []string{"GOWORK=off"}, "list", "-m", "-f", "{{.Dir}}")
	if modDir != "" {
		if _, err := os.Stat(filepath.Join(modDir, "vendor", "modules.txt")); err == nil {
			return nil, fmt.Sprintf("the subject's module (%s) is vendored, and a Go workspace cannot use a vendored module", modDir), nil
		}
	}
	dir, err := os.MkdirTemp("", "arbor-e7-gofuzz-")
	if err != nil {
		return nil, "", err
	}
	g := &goFuzzTarget{dir: dir, bin: filepath.Join(dir, "fz.test")}
	if runtime.GOOS == "windows" {
		g.bin += ".exe"
	}
	ok := false
	defer func() {
		if !ok {
			g.close()
		}
	}()
	text := grammar.Format(s.Grammar.Source)
	if g.gen, err = byteGenerator(text, cfg.MaxDepth, !cfg.NoConstraints); err != nil {
		return nil, "", fmt.Errorf("the grammar, formatted: %w", err)
	}
	fz, err := g.writeModule(ctx, s.Target, text, cfg.MaxDepth, g.gen.Constraints != nil, src, modDir)
	if err != nil {
		return nil, "", err
	}
	if skip, err := g.compile(ctx, fz, src); skip != "" || err != nil {
		return nil, skip, err
	}
	ok = true
	return g, "", nil
}

// goFuzzSkip says why the gofuzz method does not apply to the subject, if
// it does not: it is no Go function, its grammar has no source, or there
// is no go command.
func goFuzzSkip(s subject.Setup) string {
	t := s.Target
	switch {
	case t.Harness != nil:
		return fmt.Sprintf("Go's fuzzer runs Go functions; %s is run by arbor's %s harness", s.Name, t.Harness.Lang)
	case t.Command != nil:
		return fmt.Sprintf("Go's fuzzer runs Go functions; %s is a command", s.Name)
	case t.ImportPath == "" || t.Func == "":
		return "Go's fuzzer runs Go functions; the subject names none"
	case s.Grammar == nil || s.Grammar.Source == nil:
		return "the grammar has no source to write into a fuzz test"
	}
	if _, err := exec.LookPath("go"); err != nil {
		return fmt.Sprintf("it needs the go command: %v", err)
	}
	return ""
}

// writeModule writes the fuzz test's module, fz, for the grammar's text,
// and the workspace that joins it with arbor's source and the subject's
// module; it returns fz's folder.
func (g *goFuzzTarget) writeModule(ctx context.Context, t coverage.Target, text string, maxDepth int, constraints bool, src, modDir string) (string, error) {
	version, err := goOutput(ctx, g.dir, nil, "env", "GOVERSION")
	if err != nil {
		return "", err
	}
	version = strings.TrimPrefix(version, "go")
	if i := strings.IndexAny(version, " -+"); i >= 0 {
		version = version[:i]
	}
	if version == "" || version[0] < '0' || version[0] > '9' {
		version = "1.24" // a development toolchain
	}
	fz := filepath.Join(g.dir, "fz")
	work, err := goFuzzWorkspace(ctx, t.Dir, version, []string{fz, src, modDir})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(g.dir, "go.work"), []byte(work), 0o644); err != nil {
		return "", err
	}
	if err := os.Mkdir(fz, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(fz, "go.mod"), fmt.Appendf(nil, "module arborgofuzz\n\ngo %s\n", version), 0o644); err != nil {
		return "", err
	}
	imp, keep := "", ""
	if constraints {
		imp = "\n\t\"github.com/arbor-fuzz/arbor/constraint\""
		keep = "\n\tset, err := constraint.Compile(g)\n\tif err != nil {\n\t\ttb.Fatal(err)\n\t}\n\tgen.Constraints = set"
	}
	test := strings.NewReplacer("{{import}}", strconv.Quote(t.ImportPath), "{{func}}", t.Func, "{{grammar}}", strconv.Quote(text),
		"{{maxdepth}}", strconv.Itoa(maxDepth), "{{agree}}", agreeVectors(g.gen), "{{constraint import}}", imp, "{{constraints}}", keep).Replace(goFuzzTest)
	return fz, os.WriteFile(filepath.Join(fz, "fuzz_test.go"), []byte(test), 0o644)
}

// compile builds the fuzz test in fz and checks that it makes of some
// bytes what this binary's generator makes; if it does not, arbor's
// source src changed since, and it says so as the reason to skip.
func (g *goFuzzTarget) compile(ctx context.Context, fz, src string) (skip string, _ error) {
	env := []string{"GOWORK=" + filepath.Join(g.dir, "go.work")}
	// -fuzz makes go test instrument the packages for Go's fuzzer; -c
	// builds the binary only, so that compiling costs the method none of
	// its wall time.
	if out, err := goOutput(ctx, fz, env, "test", "-c", "-fuzz", "^"+goFuzzFunc+"$", "-o", g.bin, "."); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("build the fuzz test: %w\n%s", err, out)
	}
	agree := exec.CommandContext(ctx, g.bin, "-test.run=^TestAgree$")
	agree.Dir = fz
	if out, err := agree.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if strings.Contains(string(out), "ARBOR-DISAGREE") {
			return fmt.Sprintf("arbor's source in %s makes other inputs of the same bytes than this arbor binary (it changed since the binary was built)", src), nil
		}
		return "", fmt.Errorf("the fuzz test's check: %w\n%s", err, out)
	}
	return "", nil
}

// byteGenerator is the ByteGenerator the fuzz test builds: from the
// grammar's text, with the depth bound.
func byteGenerator(text string, maxDepth int, constraints bool) (*synth.ByteGenerator, error) {
	ast, err := grammar.Parse("subject.grammar", []byte(text))
	if err != nil {
		return nil, err
	}
	gr, err := grammar.Build(ast)
	if err != nil {
		return nil, err
	}
	gen := synth.NewByteGenerator(gr)
	gen.MaxDepth = maxDepth
	if constraints && len(ast.Where) > 0 {
		if gen.Constraints, err = constraint.Compile(gr); err != nil {
			return nil, err
		}
	}
	return gen, nil
}

// agreeVectors are the fuzz test's agree table: fixed pseudo-random byte
// strings of 0 to 512 bytes and what gen makes of them.
func agreeVectors(gen *synth.ByteGenerator) string {
	r := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	for _, n := range []int{0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 512} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		fmt.Fprintf(&b, "\t{%s, %s},\n", strconv.Quote(string(data)), strconv.Quote(string(gen.FromBytes(data))))
	}
	return b.String()
}

// arborSource is the root of arbor's source: dir if given, else the
// checkout this binary was built from, if it is still there.
func arborSource(dir string) (string, error) {
	if dir == "" {
		_, file, _, ok := runtime.Caller(0)
		if !ok || !filepath.IsAbs(file) {
			return "", errors.New("it needs arbor's source, and this arbor binary does not know where it was built from (-trimpath); E7Config.ArborDir names it")
		}
		dir = filepath.Dir(filepath.Dir(file))
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("it needs arbor's source, which is not in %s: %v", dir, err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == arborModule {
			return dir, nil
		}
	}
	return "", fmt.Errorf("it needs arbor's source, and %s holds another module", dir)
}

// goFuzzWorkspace is the fuzz test's go.work: the given module folders,
// and the modules and replacements of the workspace the subject's
// folder dir is in, if any (as coverage's harnesses have it).
func goFuzzWorkspace(ctx context.Context, dir, version string, modules []string) (string, error) {
	return coverage.Workspace(ctx, dir, version, modules...)
}

// goOutput runs the go command in dir with env added and returns its
// output, trimmed (standard error too, when it fails).
func goOutput(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return strings.TrimSpace(string(out) + stderr.String()), fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goFuzzExecs reads the executions from Go's progress lines:
// "fuzz: elapsed: 3s, execs: 20322 (6772/sec), new interesting: ...".
var goFuzzExecs = regexp.MustCompile(`^fuzz: elapsed: .*\bexecs: (\d+)`)

// execSample is the executions Go's fuzzer reported at a time of the run.
type execSample struct {
	seconds float64
	execs   int
}

// execsAt is the executions at a time of the run: interpolated linearly
// between Go's progress lines (about every 3 seconds, and at the end),
// from none at the start; after the last line, its count.
func execsAt(samples []execSample, t float64) int {
	prev := execSample{}
	for _, s := range samples {
		if s.seconds >= t {
			if s.seconds <= prev.seconds {
				return s.execs
			}
			return prev.execs + int(float64(s.execs-prev.execs)*(t-prev.seconds)/(s.seconds-prev.seconds))
		}
		prev = s
	}
	return prev.execs
}

// goFuzzDeadlineRace reports whether a run's output ends the way Go's
// fuzzer before Go 1.27 may end a run that reached -fuzztime under load
// (golang/go#75804): its coordinator wakes at the deadline before the
// workers' context is canceled, and reports the cancellation as the fuzz
// test's failure, "context deadline exceeded", with no failing input.
func goFuzzDeadlineRace(output []string) bool {
	race := false
	for _, l := range output {
		switch l = strings.TrimSpace(l); {
		case l == "context deadline exceeded":
			race = true
		case strings.Contains(l, "Failing input written to"), strings.HasPrefix(l, "panic:"), strings.HasPrefix(l, "fatal error:"):
			return false
		}
	}
	return race
}

// goFuzzLine is a line of the fuzz test's output and when it was read.
type goFuzzLine struct {
	at   time.Time
	text string
}

// run fuzzes for cfg.Time with a corpus of the run's own (a fresh
// -test.fuzzcachedir; its working folder, where Go writes a failing
// input, is new too), one worker (-test.parallel 1) and minimization off
// (-test.fuzzminimizetime 0: Go's default of a minute per new input can
// stall a lone worker for most of a run). The clock starts at Go's first
// progress line, printed when its coordinator starts, which is also when
// -test.fuzztime starts counting; the binary is built already, so only
// its own start-up (milliseconds) precedes it.
//
// Go's fuzzer stops at its first failure. With time left, it is started
// again for the time left on the corpus it kept (the same cache folder),
// its failing inputs set aside so that it does not run into them again
// at once, as a fuzzing service starts a fuzzer again after a crash: a
// run counts its whole budget, whatever the subject's bugs, and keeps
// every failure. It is not started again after a failure in its first
// second, before it fuzzed (a crash of the corpus it starts from).
//
// The run's folders are listed every 250 ms; a corpus file's time is its
// modification time, which Go sets when it writes the file, bounded by
// the listings before and at which it was first seen, so that a coarse or
// skewed file clock errs by no more than a listing interval. After the
// run, the seed (the empty input, at time 0) and every file Go's fuzzer
// kept or failed at, in the order of their times, are decoded from Go's
// corpus format, turned into their inputs by the same ByteGenerator and
// run by the subject's session; the curve gets a point at a file's time
// whenever coverage grows.
func (g *goFuzzTarget) run(ctx context.Context, cfg E7Config, sess *fuzzSession) (E7Run, error) {
	runDir, err := os.MkdirTemp(g.dir, "run")
	if err != nil {
		return E7Run{}, err
	}
	defer os.RemoveAll(runDir)
	cacheDir := filepath.Join(runDir, "cache")
	r := &goFuzzRun{folders: []string{filepath.Join(cacheDir, goFuzzFunc), corpus.GoFuzzDir(runDir, goFuzzFunc)},
		aside: filepath.Join(runDir, "failures"), seen: map[string]float64{}}
	runCtx, cancel := context.WithTimeout(ctx, cfg.Time+2*time.Minute)
	defer cancel()
	left := cfg.Time
	for {
		cmd := exec.CommandContext(runCtx, g.bin, "-test.run=^$", "-test.fuzz=^"+goFuzzFunc+"$", "-test.fuzztime="+left.String(),
			"-test.parallel=1", "-test.fuzzminimizetime=0", "-test.fuzzcachedir="+cacheDir)
		cmd.Dir = runDir
		// Interrupted, Go's fuzzer stops its workers and exits.
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = 10 * time.Second
		began := r.end
		waitErr, err := r.watch(cmd)
		if err != nil {
			return E7Run{}, err
		}
		if ctx.Err() != nil {
			return E7Run{}, ctx.Err()
		}
		failed, err := r.ended(runCtx, waitErr)
		if err != nil {
			return E7Run{}, err
		}
		if !failed {
			break
		}
		if err := r.setAside(); err != nil {
			return E7Run{}, err
		}
		left = cfg.Time - time.Duration(r.end*float64(time.Second))
		if left < time.Second || r.end-began < 1 {
			break
		}
		r.restarts++
	}
	run, err := r.replay(ctx, cfg, sess, g.gen, r.note(cfg.Time))
	if err != nil {
		return E7Run{}, err
	}
	run.Restarts, run.Failures = r.restarts, len(r.failures)
	run.Stopped = len(r.failures) > 0 && !r.whole(cfg.Time)
	run.Failure, err = r.failure(g.gen)
	return run, err
}

// failure is the first failure Go's fuzzer stopped at, if any: the
// first failing input it wrote, realized as the fuzz target does, and
// its output from that failure on.
func (r *goFuzzRun) failure(gen *synth.ByteGenerator) (*E7Failure, error) {
	if len(r.failures) == 0 {
		return nil, nil
	}
	f := r.failures[0]
	raw, err := os.ReadFile(f.path)
	if err != nil {
		return nil, err
	}
	data, err := corpus.Decode(filepath.Base(f.path), raw)
	if err != nil {
		return nil, fmt.Errorf("go test -fuzz's failing input %s: %w", filepath.Base(f.path), err)
	}
	return &E7Failure{Seconds: r.seen[f.path], Input: string(gen.FromBytes(data)), Message: f.message}, nil
}

// setAside moves the failing inputs Go's fuzzer wrote into its seed
// corpus out of it (a fuzzer started again runs its seed corpus first,
// and would stop at them at once), keeping their times, and notes the
// output that told of them.
func (r *goFuzzRun) setAside() error {
	if err := os.MkdirAll(r.aside, 0o755); err != nil {
		return err
	}
	tail := r.tail
	for i, l := range tail {
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") {
			tail = tail[i:]
			break
		}
	}
	var found []goFuzzFailure
	for path, t := range r.seen {
		if filepath.Dir(path) != r.folders[1] {
			continue
		}
		to := filepath.Join(r.aside, filepath.Base(path))
		if _, err := os.Stat(to); err == nil {
			// The same failing input again: it was set aside already.
			to = filepath.Join(r.aside, fmt.Sprintf("%s.%d", filepath.Base(path), len(r.failures)+len(found)))
		}
		if err := os.Rename(path, to); err != nil {
			return fmt.Errorf("setting aside go test -fuzz's failing input: %w", err)
		}
		delete(r.seen, path)
		r.seen[to] = t
		found = append(found, goFuzzFailure{path: to, message: strings.Join(tail, "\n")})
	}
	slices.SortFunc(found, func(a, b goFuzzFailure) int {
		if c := cmp.Compare(r.seen[a.path], r.seen[b.path]); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	r.failures = append(r.failures, found...)
	return nil
}

// note says how the run ended where Go's fuzzer failed in it.
func (r *goFuzzRun) note(budget time.Duration) string {
	var notes []string
	if r.raced {
		notes = append(notes, "Go's fuzzer reported its end of time as a failure (golang/go#75804, fixed in Go 1.27); the run is whole")
	}
	if n := len(r.failures); n > 0 {
		first := r.seen[r.failures[0].path]
		switch {
		case r.restarts > 0 && r.whole(budget) && n == 1:
			notes = append(notes, fmt.Sprintf("Go's fuzzer failed after %.1f s and was started again for the time left", first))
		case r.restarts > 0 && r.whole(budget):
			notes = append(notes, fmt.Sprintf("Go's fuzzer failed %d times, first after %.1f s, and was started again after each for the time left", n, first))
		case r.restarts > 0:
			notes = append(notes, fmt.Sprintf("Go's fuzzer failed %d times, first after %.1f s; started again %d times, it stopped after %.1f s", n, first, r.restarts, r.end))
		default:
			notes = append(notes, fmt.Sprintf("Go's fuzzer stopped at a failure after %.1f s", first))
		}
	}
	return strings.Join(notes, "; ")
}

// whole reports whether the run fuzzed for its budget, but for a
// second.
func (r *goFuzzRun) whole(budget time.Duration) bool { return r.end >= budget.Seconds()-1 }

// goFuzzRun is a run of Go's fuzzer as it is watched: its progress lines
// and the files it writes, with their times.
type goFuzzRun struct {
	folders  []string // the run's corpus and its failing inputs
	aside    string   // where failing inputs are set aside
	start    time.Time
	started  bool // Go's first progress line was read; start is its time
	end      float64
	samples  []execSample
	base     int                // executions of the fuzzer's earlier starts
	tail     []string           // the output's last lines, for errors
	seen     map[string]float64 // file: seconds into the run
	lastPoll float64
	failures []goFuzzFailure // in the order of their times
	restarts int             // times Go's fuzzer was started again after a failure
	raced    bool            // the last start ended in golang/go#75804
}

// goFuzzFailure is a failing input Go's fuzzer wrote, set aside, and the
// output that told of it.
type goFuzzFailure struct {
	path, message string
}

// line takes a line of the fuzz test's output.
func (r *goFuzzRun) line(l goFuzzLine) {
	if !r.started && strings.HasPrefix(l.text, "fuzz: elapsed:") {
		r.started, r.start = true, l.at
	}
	if m := goFuzzExecs.FindStringSubmatch(l.text); m != nil && r.started {
		n, _ := strconv.Atoi(m[1])
		r.samples = append(r.samples, execSample{l.at.Sub(r.start).Seconds(), r.base + n})
	}
	if r.tail = append(r.tail, l.text); len(r.tail) > 30 {
		r.tail = r.tail[1:]
	}
}

// poll lists the run's folders and times the files not seen before.
func (r *goFuzzRun) poll() {
	now := time.Since(r.start).Seconds()
	for _, dir := range r.folders {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if _, ok := r.seen[path]; ok || !e.Type().IsRegular() {
				continue
			}
			t := now
			if info, err := e.Info(); err == nil {
				t = min(max(info.ModTime().Sub(r.start).Seconds(), r.lastPoll), now)
			}
			r.seen[path] = t
		}
	}
	r.lastPoll = now
}

// watch runs cmd to its end, reading its output and listing its folders
// every goFuzzPoll, and returns how it ended (cmd.Wait's error).
func (r *goFuzzRun) watch(cmd *exec.Cmd) (waitErr, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	if !r.started {
		r.start = time.Now()
	}
	if len(r.samples) > 0 {
		// A start after a failure counts its executions from 0.
		r.base = r.samples[len(r.samples)-1].execs
	}
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, err
	}
	pw.Close()
	lines, done := make(chan goFuzzLine, 64), make(chan struct{})
	defer close(done)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			select {
			case lines <- goFuzzLine{time.Now(), sc.Text()}:
			case <-done:
				return
			}
		}
		io.Copy(io.Discard, pr) // a line too long for the scanner: the fuzzer must not block writing
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	tick := time.NewTicker(goFuzzPoll)
	defer tick.Stop()
loop:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			r.line(l)
		case <-tick.C:
			r.poll()
		case waitErr = <-waited:
			break loop
		}
	}
	r.end = time.Since(r.start).Seconds()
	// Go's last progress line, with the final count, is in the pipe: read
	// it out (a worker that lingers holding the pipe gets 2 seconds).
	drain := time.After(2 * time.Second)
	for lines != nil {
		select {
		case l, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			r.line(l)
		case <-drain:
			pr.Close()
			lines = nil
		}
	}
	r.poll()
	return waitErr, nil
}

// ended says how a start of Go's fuzzer ended: at a failure (failed),
// at its time, or in a way that makes the run not count (err).
func (r *goFuzzRun) ended(runCtx context.Context, waitErr error) (failed bool, err error) {
	log := strings.Join(r.tail, "\n")
	failures := 0
	for path := range r.seen {
		if filepath.Dir(path) == r.folders[1] {
			failures++
		}
	}
	r.raced = false
	switch {
	case runCtx.Err() != nil:
		return false, fmt.Errorf("go test -fuzz did not stop %v after its time\n%s", 2*time.Minute, log)
	case !r.started:
		return false, fmt.Errorf("go test -fuzz did not start fuzzing: %v\n%s", waitErr, log)
	case waitErr != nil && failures == 0 && goFuzzDeadlineRace(r.tail):
		r.raced = true
		return false, nil
	case waitErr != nil && failures == 0:
		return false, fmt.Errorf("go test -fuzz: %w\n%s", waitErr, log)
	}
	// Go's fuzzer stops at its first failure (a panic is recovered, so
	// this is a fatal error: a stack overflow, running out of memory, a
	// hang); the failing input counts as found.
	return waitErr != nil, nil
}

// replay runs the seed and every file the run kept, in the order of
// their times, through the subject's session, and draws the run's curve:
// the inputs as the fuzz target made them.
func (r *goFuzzRun) replay(ctx context.Context, cfg E7Config, sess *fuzzSession, gen *synth.ByteGenerator, note string) (E7Run, error) {
	type entry struct {
		path    string
		seconds float64
	}
	entries := []entry{{"", 0}} // the seed, f.Add([]byte{})
	for path, t := range r.seen {
		entries = append(entries, entry{path, min(t, r.end)})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if a.seconds != b.seconds {
			if a.seconds < b.seconds {
				return -1
			}
			return 1
		}
		return strings.Compare(a.path, b.path)
	})
	c := newCoverageCurve(sess)
	runner := coverage.SessionRunner{Session: sess.Session, Timeout: cfg.Timeout}
	for _, e := range entries {
		data := []byte{}
		if e.path != "" {
			raw, err := os.ReadFile(e.path)
			if err != nil {
				return E7Run{}, err
			}
			if data, err = corpus.Decode(filepath.Base(e.path), raw); err != nil {
				return E7Run{}, err
			}
		}
		res, err := runner.Run(ctx, gen.FromBytes(data))
		if err != nil {
			return E7Run{}, err
		}
		if c.grow(res) {
			c.curve = append(c.curve, E7Point{Seconds: e.seconds, Execs: execsAt(r.samples, e.seconds), Covered: len(c.covered), ValidCovered: len(c.good)})
		}
	}
	final := E7Point{Seconds: r.end, Execs: execsAt(r.samples, r.end), Covered: len(c.covered), ValidCovered: len(c.good)}
	if len(r.samples) > 0 {
		final.Execs = r.samples[len(r.samples)-1].execs
	}
	return E7Run{Final: final, Curve: append(c.curve, final), Corpus: len(entries), Note: note}, nil
}
