package coverage_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/testenv"
	"github.com/arbor-fuzz/arbor/synth"
)

// A tiny library with a known call structure: "n..." counts digits with
// digit(), "w..." calls word() once per letter through a static helper,
// "x" is rejected, "crash" writes through NULL, "abort" aborts, "loop"
// never returns, "forge" writes a reply-shaped frame to fd 4, "kill"
// sends its parent SIGTERM. Its header holds a function of the library's own.
const (
	cLibHeader = `#include <stddef.h>
static inline int is_letter(char c) { return (c >= 'a' && c <= 'z'); }
int digits(const char *s, size_t n);
int letters(const char *s, size_t n);
`
	cLib = `#include "lib.h"
static int digit(char c) { return c >= '0' && c <= '9'; }
int digits(const char *s, size_t n) { int k = 0; for (size_t i = 0; i < n; i++) k += digit(s[i]); return k; }
static void word(const char *s, int *k) { if (is_letter(*s)) (*k)++; }
int letters(const char *s, size_t n) { int k = 0; for (size_t i = 0; i < n; i++) word(s + i, &k); return k; }
int unused(void) { return 7; }
`
	cEntry = `#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib.h"
volatile int sink;
__attribute__((noinline)) static void smash(volatile int *p) { *p = 1; }
__attribute__((noinline)) static void crash(void) { smash(NULL); }
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	const char *s = (const char *)data;
	if (size == 0) return 0;
	if (size == 5 && memcmp(s, "crash", 5) == 0) crash();
	if (size == 5 && memcmp(s, "abort", 5) == 0) abort();
	if (size == 4 && memcmp(s, "loop", 4) == 0) for (;;) sink++;
	if (size == 5 && memcmp(s, "forge", 5) == 0) {
		static const char frame[29] = {[16] = 2};
		sink = (int)write(4, frame, sizeof frame);
		return 0;
	}
	if (size == 4 && memcmp(s, "kill", 4) == 0) {
		struct timespec pause = {0, 300000000};
		kill(getppid(), SIGTERM);
		nanosleep(&pause, NULL);
		return 0;
	}
	if (size == 3 && memcmp(s, "big", 3) == 0) {
		char *p = malloc(1 << 30);
		if (p == NULL) return -1;
		memset(p, 1, 1 << 30);
		sink = p[12345];
		free(p);
		return 0;
	}
	switch (s[0]) {
	case 'n': sink = digits(s + 1, size - 1); return 0;
	case 'w': sink = letters(s + 1, size - 1); return 0;
	}
	return -1;
}
`
)

func needGCC(t *testing.T) {
	t.Helper()
	testenv.NeedTool(t, "gcc", "apt-get install gcc")
}

// cTarget writes the tiny library into a folder and returns its target.
func cTarget(t *testing.T) coverage.Target {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"lib.h": cLibHeader, "lib.c": cLib, "fuzz/entry.c": cEntry} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return coverage.Target{Harness: &coverage.HarnessTarget{
		Lang:    "c",
		Sources: []string{"lib.c", "fuzz/entry.c"},
		Flags:   []string{"-I."},
		Cover:   []string{"lib.c"},
		Dir:     dir,
	}}
}

func TestCHarness(t *testing.T) {
	needGCC(t)
	ctx := context.Background()
	target := cTarget(t)
	cache := t.TempDir()
	bin, err := coverage.Build(ctx, target, cache)
	if err != nil {
		t.Fatal(err)
	}
	if bin.Cached {
		t.Error("first build reported as cached")
	}
	s, err := coverage.Start(bin, coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Every function of lib.c and of its own header, named as gcov names
	// them, including the one never called; none of the entry's.
	want := []string{"lib.c:digit", "lib.c:digits", "lib.c:letters", "lib.c:unused", "lib.c:word", "lib.h:is_letter"}
	if !slices.Equal(s.Funcs.Names, want) {
		t.Fatalf("names %q, want %q", s.Funcs.Names, want)
	}
	type count struct {
		name  string
		calls uint32
	}
	for _, tt := range []struct {
		in      string
		outcome coverage.Outcome
		covered []count
		frames  string // a crash's innermost frames, or the first of them
		message string // in the message, if set
	}{
		{in: "n12a", outcome: coverage.OK, covered: []count{{"lib.c:digit", 3}, {"lib.c:digits", 1}}},
		{in: "wab1", outcome: coverage.OK, covered: []count{{"lib.c:letters", 1}, {"lib.c:word", 3}, {"lib.h:is_letter", 3}}},
		{in: "x", outcome: coverage.Error},
		{in: "crash", outcome: coverage.Panic, frames: "fuzz/entry.c:smash\nfuzz/entry.c:crash\nfuzz/entry.c:LLVMFuzzerTestOneInput"},
		{in: "n1", outcome: coverage.OK, covered: []count{{"lib.c:digit", 1}, {"lib.c:digits", 1}}},
		{in: "abort", outcome: coverage.Panic, frames: "fuzz/entry.c:LLVMFuzzerTestOneInput"},
		{in: "loop", outcome: coverage.Timeout},
		// A subject writing to fd 4 writes to /dev/null (issue 29, item 3),
		// and one that signals its parent signals arbor's supervisor
		// (Linux), which ends the run; the labels after them are their own.
		{in: "forge", outcome: coverage.OK},
		{in: "n12", outcome: coverage.OK, covered: []count{{"lib.c:digit", 2}, {"lib.c:digits", 1}}},
		{in: "wz", outcome: coverage.OK, covered: []count{{"lib.c:letters", 1}, {"lib.c:word", 1}, {"lib.h:is_letter", 1}}},
	} {
		timeout := 10 * time.Second
		if tt.outcome == coverage.Timeout {
			timeout = 200 * time.Millisecond
		}
		r, err := s.Record([]byte(tt.in), timeout)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if tt.message != "" && !strings.Contains(r.Message, tt.message) {
			t.Errorf("%q: message %q, want %q in it", tt.in, r.Message, tt.message)
		}
		if r.Outcome != tt.outcome {
			t.Errorf("%q: outcome %s (%s), want %s", tt.in, r.Outcome, r.Message, tt.outcome)
			continue
		}
		var got []count
		for i, id := range r.Covered {
			got = append(got, count{s.Funcs.Names[id], r.Counts[i]})
		}
		if tt.outcome != coverage.Timeout && tt.outcome != coverage.Panic && !slices.Equal(got, tt.covered) {
			t.Errorf("%q: covered %v, want %v", tt.in, got, tt.covered)
		}
		if tt.frames != "" {
			if !strings.HasPrefix(r.Frames, tt.frames) || r.Stack == "" {
				t.Errorf("%q: frames %q (message %q), want %q first", tt.in, r.Frames, r.Message, tt.frames)
			}
			if !strings.HasPrefix(r.Message, "SIG") {
				t.Errorf("%q: message %q, want the signal's name", tt.in, r.Message)
			}
		}
	}

	if runtime.GOOS == "linux" {
		// Under the supervisor, a signal to the parent ends the run as a
		// crash that names it, and the session goes on.
		r, err := s.Record([]byte("kill"), 10*time.Second)
		if err != nil || r.Outcome != coverage.Panic || !strings.Contains(r.Message, "sent SIGTERM to its parent") {
			t.Errorf("kill: %v %+v, want a panic naming SIGTERM", err, r)
		}
		if r, err := s.Record([]byte("n1"), 10*time.Second); err != nil || r.Outcome != coverage.OK || len(r.Covered) != 2 {
			t.Errorf("after kill: %v %+v", err, r)
		}
	}

	again, err := coverage.Build(ctx, target, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || again.Path != bin.Path {
		t.Errorf("second build: %+v, want the first's binary, cached", again)
	}
}

// TestCHarnessWarmUp checks that a warm-up run sends no counters and
// leaves none behind for the recorded run after it.
func TestCHarnessWarmUp(t *testing.T) {
	needGCC(t)
	s, err := coverage.Open(context.Background(), cTarget(t), t.TempDir(), coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, err := s.WarmUp([]byte("n123"), 10*time.Second); err != nil || r.Outcome != coverage.OK || len(r.Covered) != 0 {
		t.Fatalf("warm-up: %+v, %v", r, err)
	}
	r, err := s.Record([]byte("wa"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range r.Covered {
		got = append(got, s.Funcs.Names[id])
	}
	if want := []string{"lib.c:letters", "lib.c:word", "lib.h:is_letter"}; !slices.Equal(got, want) {
		t.Errorf("covered %q, want %q", got, want)
	}
}

// TestCHarnessMemory checks that the harness applies the session's
// memory limit: past it, malloc fails (and the entry rejects the input).
func TestCHarnessMemory(t *testing.T) {
	needGCC(t)
	s, err := coverage.Open(context.Background(), cTarget(t), t.TempDir(), coverage.RunOptions{Memory: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Record([]byte("big"), 10*time.Second)
	if err != nil || r.Outcome != coverage.Error {
		t.Errorf("a gigabyte under a 256 MB limit: %+v, %v; want a rejection", r, err)
	}
}

func TestCHarnessErrors(t *testing.T) {
	needGCC(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		edit  func(h *coverage.HarnessTarget)
		error string
	}{
		{"compile error", func(h *coverage.HarnessTarget) {
			os.WriteFile(filepath.Join(h.Dir, "lib.c"), []byte("int digits(void) { return 1 +; }\n"), 0o644)
		}, "lib.c"},
		{"no entry", func(h *coverage.HarnessTarget) { h.Sources = []string{"lib.c"} }, "LLVMFuzzerTestOneInput"},
		{"missing source", func(h *coverage.HarnessTarget) { h.Sources = append(h.Sources, "gone.c") }, "gone.c"},
		{"no sources", func(h *coverage.HarnessTarget) { h.Sources = nil }, "no sources"},
		{"nothing covered", func(h *coverage.HarnessTarget) { h.Cover = []string{"elsewhere"} }, "none of the sources"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target := cTarget(t)
			tt.edit(target.Harness)
			_, err := coverage.Build(ctx, target, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.error) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.error)
			}
		})
	}
}

// cJSONTarget is cJSON from Debian's source package, or a skip.
func cJSONTarget(t *testing.T) coverage.Target {
	t.Helper()
	needGCC(t)
	if testing.Short() {
		t.Skip("fetches and builds cJSON")
	}
	s, err := datasets.LookupSubject("cjson")
	if err != nil {
		t.Fatal(err)
	}
	target, err := s.Target()
	if err != nil {
		testenv.Missing(t, fmt.Sprintf("Debian's cjson source package, which could not be fetched (%v)", err), "apt-get and the network, or an earlier fetch")
	}
	return target
}

// cJSONInputs are n JSON texts from arbor's generator, every seventh cut
// short, so that some are rejected.
func cJSONInputs(t testing.TB, n int, seed uint64) [][]byte {
	t.Helper()
	g, err := datasets.Grammar("json")
	if err != nil {
		t.Fatal(err)
	}
	gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
	gen.MaxDepth = 10
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(gen.Generate().String())
		if i%7 == 3 && len(out[i]) > 1 {
			out[i] = out[i][:len(out[i])/2]
		}
	}
	return out
}

func cCovered(s *coverage.Session, r *coverage.Result) []string {
	names := make([]string, len(r.Covered))
	for i, id := range r.Covered {
		names[i] = s.Funcs.Names[id]
	}
	return names
}

// TestCJSON records generated JSON texts with cJSON: most of the
// library's functions run, texts are accepted and rejected, nothing
// crashes, and functions are named by their file in the upstream folder.
func TestCJSON(t *testing.T) {
	target := cJSONTarget(t)
	s, err := coverage.Open(context.Background(), target, t.TempDir(), coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"cJSON.c:parse_value", "cJSON.c:print_value", "cJSON.c:cJSON_Minify", "cJSON_Utils.c:cJSONUtils_MergePatchCaseSensitive"} {
		if !slices.Contains(s.Funcs.Names, name) {
			t.Errorf("no function %s among %d", name, len(s.Funcs.Names))
		}
	}
	for _, n := range s.Funcs.Names {
		if strings.Contains(n, "cjson_target") || strings.HasPrefix(n, "/") {
			t.Errorf("function %s is not the library's", n)
		}
	}
	outcomes := map[coverage.Outcome]int{}
	ran := map[string]bool{}
	inputs := cJSONInputs(t, 200, 1)
	for _, in := range inputs {
		r, err := s.Record(in, 10*time.Second)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		outcomes[r.Outcome]++
		if r.Outcome == coverage.Panic {
			t.Errorf("%q: crash %s\n%s", in, r.Message, r.Frames)
		}
		for _, n := range cCovered(s, r) {
			ran[n] = true
		}
	}
	t.Logf("%d functions, %d ran; outcomes %v", len(s.Funcs.Names), len(ran), outcomes)
	if len(ran) < len(s.Funcs.Names)/3 {
		t.Errorf("%d of %d functions ran", len(ran), len(s.Funcs.Names))
	}
	if outcomes[coverage.OK] < len(inputs)/2 || outcomes[coverage.Error] == 0 {
		t.Errorf("outcomes %v: want most accepted, some rejected", outcomes)
	}
	// A rejected text runs the parser but none of the printing.
	r, err := s.Record([]byte(`{"a": [1, 2`), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := cCovered(s, r)
	if r.Outcome != coverage.Error || !slices.Contains(got, "cJSON.c:parse_array") || slices.Contains(got, "cJSON.c:print_value") {
		t.Errorf("a cut text: %s, covered %q", r.Outcome, got)
	}
}

var cMeasure = flag.Bool("c.measure", false, "TestCMeasure: time the C harness against Go's and gcov run once per input")

// TestCMeasure measures, over the same generated JSON texts: the C
// harness on cJSON, the Go recorder on the bundled json subject, cJSON
// built with --coverage and read by gcov once per input, how often the
// harness's labels equal gcov's, and the harness's own cost (an entry
// that returns at once). It only reports:
//
//	go test ./coverage -run TestCMeasure -v -args -c.measure
func TestCMeasure(t *testing.T) {
	if !*cMeasure {
		t.Skip("a measurement: -args -c.measure")
	}
	testenv.NeedTool(t, "gcov", "apt-get install gcc")
	testenv.NeedTool(t, "sh", "apt-get install dash")
	target := cJSONTarget(t)
	const n, warm, gcovN = 1000, 20, 300
	inputs := cJSONInputs(t, n, 2)
	cache := t.TempDir()
	ctx := context.Background()

	record := func(s *coverage.Session, inputs [][]byte) (wall, call []time.Duration, labels [][]string, outcomes []coverage.Outcome) {
		for _, in := range inputs {
			start := time.Now()
			r, err := s.Record(in, 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			wall = append(wall, time.Since(start))
			call = append(call, r.Duration)
			labels = append(labels, cCovered(s, r))
			outcomes = append(outcomes, r.Outcome)
		}
		return
	}

	s, err := coverage.Open(ctx, target, cache, coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs[:warm] {
		s.WarmUp(in, 20*time.Second)
	}
	wall, call, labels, outcomes := record(s, inputs)
	names := s.Funcs.Names
	s.Close()
	sizes := make([]time.Duration, len(inputs))
	for i, in := range inputs {
		sizes[i] = time.Duration(len(in))
	}
	t.Logf("%d generated JSON texts, median %d bytes", n, int(median(sizes)))
	t.Logf("(a) C harness, cJSON: median per input %v (call alone %v) over %d inputs", median(wall), median(call), n)

	if sub, err := datasets.LookupSubject("json"); err == nil {
		gt, err := sub.Target()
		if err != nil {
			t.Fatal(err)
		}
		bin, err := coverage.Build(ctx, gt, coverage.DefaultCacheDir())
		if err != nil {
			t.Fatal(err)
		}
		gs, err := coverage.Start(bin, coverage.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs[:warm] {
			gs.WarmUp(in, 20*time.Second)
		}
		gwall, gcall, _, _ := record(gs, inputs)
		gs.Close()
		t.Logf("(b) Go recorder, json subject (%s): median per input %v (call alone %v)", gt, median(gwall), median(gcall))
	} else {
		t.Logf("(b) no Go json subject: %v", err)
	}

	// (c) cJSON built with --coverage, a process per input, read by gcov.
	h := target.Harness
	build := t.TempDir()
	driver := filepath.Join(build, "driver.c")
	os.WriteFile(driver, []byte(`#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int main(int argc, char **argv) {
	static uint8_t buf[1 << 20];
	FILE *f = fopen(argv[1], "rb");
	if (f == NULL) return 3;
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	return LLVMFuzzerTestOneInput(buf, n) == 0 ? 0 : 1;
}
`), 0o644)
	args := append([]string{"--coverage", "-O0", "-o", filepath.Join(build, "prog")}, h.Flags...)
	args = append(append(args, h.Sources...), driver, "-lm")
	gcc := exec.Command("gcc", args...)
	gcc.Dir = build
	if out, err := gcc.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	strip := fmt.Sprint(strings.Count(filepath.Clean(build), string(filepath.Separator)))
	script := `GCOV_PREFIX="$ARBOR_RUN_DIR" GCOV_PREFIX_STRIP=` + strip + ` "$0/prog" "$1"; s=$?
cp "$0"/*.gcno "$ARBOR_RUN_DIR"/ && cd "$ARBOR_RUN_DIR" && gcov --json-format *.gcda >/dev/null 2>&1
exit $s`
	cs, err := coverage.Start(&coverage.Binary{Target: coverage.Target{Command: &coverage.CommandTarget{
		Argv: []string{"sh", "-c", script, build, "{}"}, Coverage: "gcov", Root: h.Root,
	}}}, coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, n := range cs.Funcs.Names {
		if strings.HasPrefix(n, "cJSON.c:") || strings.HasPrefix(n, "cJSON_Utils.c:") {
			listed = append(listed, n)
		}
	}
	t.Logf("function lists: harness %d, gcov %d; differing (harness-only +, gcov-only -): %q", len(names), len(listed), symDiff(names, listed))
	cwall, _, clabels, coutcomes := record(cs, inputs[:gcovN])
	cs.Close()
	t.Logf("(c) gcov, a process per input: median per input %v over %d inputs", median(cwall), gcovN)

	// (d) The labels, on the library's functions alone (gcov also names
	// the entry's and the driver's).
	agree := 0
	differ := map[string]int{}
	for i := range inputs[:gcovN] {
		var theirs []string
		for _, n := range clabels[i] {
			if strings.HasPrefix(n, "cJSON.c:") || strings.HasPrefix(n, "cJSON_Utils.c:") {
				theirs = append(theirs, n)
			}
		}
		if slices.Equal(labels[i], theirs) && outcomes[i] == coutcomes[i] {
			agree++
			continue
		}
		if outcomes[i] != coutcomes[i] {
			differ[fmt.Sprintf("outcome %s vs %s", outcomes[i], coutcomes[i])]++
		}
		for _, n := range symDiff(labels[i], theirs) {
			differ[n]++
		}
	}
	t.Logf("(d) labels equal gcov's on %d of %d inputs (%.1f%%); differing (harness-only +, gcov-only -): %v",
		agree, gcovN, 100*float64(agree)/gcovN, differ)

	// The harness's own cost: an entry that returns at once.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "trivial.c"), []byte("#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n"), 0o644)
	ts, err := coverage.Open(ctx, coverage.Target{Harness: &coverage.HarnessTarget{Lang: "c", Sources: []string{filepath.Join(dir, "trivial.c")}}}, cache, coverage.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	twall, _, _, _ := record(ts, inputs)
	ts.Close()
	t.Logf("trivial entry: median per input %v; cJSON's entry costs %v more", median(twall), median(wall)-median(twall))
}
