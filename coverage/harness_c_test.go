package coverage

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A tiny library with a known call structure: "n..." counts digits with
// digit(), "w..." calls word() once per letter through a static helper,
// "x" is rejected, "crash" writes through NULL, "abort" aborts, "loop"
// never returns. Its header holds a function of the library's own.
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
	cEntry = `#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (Debian package gcc)")
	}
}

// cTarget writes the tiny library into a folder and returns its target.
func cTarget(t *testing.T) Target {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"lib.h": cLibHeader, "lib.c": cLib, "fuzz/entry.c": cEntry} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Target{Harness: &HarnessTarget{
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
	bin, err := Build(ctx, target, cache)
	if err != nil {
		t.Fatal(err)
	}
	if bin.Cached {
		t.Error("first build reported as cached")
	}
	s, err := Start(bin, RunOptions{})
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
		outcome Outcome
		covered []count
		frames  string // a crash's innermost frames, or the first of them
	}{
		{in: "n12a", outcome: OK, covered: []count{{"lib.c:digit", 3}, {"lib.c:digits", 1}}},
		{in: "wab1", outcome: OK, covered: []count{{"lib.c:letters", 1}, {"lib.c:word", 3}, {"lib.h:is_letter", 3}}},
		{in: "x", outcome: Error},
		{in: "crash", outcome: Panic, frames: "fuzz/entry.c:smash\nfuzz/entry.c:crash\nfuzz/entry.c:LLVMFuzzerTestOneInput"},
		{in: "n1", outcome: OK, covered: []count{{"lib.c:digit", 1}, {"lib.c:digits", 1}}},
		{in: "abort", outcome: Panic, frames: "fuzz/entry.c:LLVMFuzzerTestOneInput"},
		{in: "loop", outcome: Timeout},
		{in: "wz", outcome: OK, covered: []count{{"lib.c:letters", 1}, {"lib.c:word", 1}, {"lib.h:is_letter", 1}}},
	} {
		timeout := 10 * time.Second
		if tt.outcome == Timeout {
			timeout = 200 * time.Millisecond
		}
		r, err := s.Record([]byte(tt.in), timeout)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if r.Outcome != tt.outcome {
			t.Errorf("%q: outcome %s (%s), want %s", tt.in, r.Outcome, r.Message, tt.outcome)
			continue
		}
		var got []count
		for i, id := range r.Covered {
			got = append(got, count{s.Funcs.Names[id], r.Counts[i]})
		}
		if tt.outcome != Timeout && tt.outcome != Panic && !slices.Equal(got, tt.covered) {
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

	again, err := Build(ctx, target, cache)
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
	s, err := Open(context.Background(), cTarget(t), t.TempDir(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, err := s.WarmUp([]byte("n123"), 10*time.Second); err != nil || r.Outcome != OK || len(r.Covered) != 0 {
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

func TestCHarnessErrors(t *testing.T) {
	needGCC(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		edit  func(h *HarnessTarget)
		error string
	}{
		{"compile error", func(h *HarnessTarget) {
			os.WriteFile(filepath.Join(h.Dir, "lib.c"), []byte("int digits(void) { return 1 +; }\n"), 0o644)
		}, "lib.c"},
		{"no entry", func(h *HarnessTarget) { h.Sources = []string{"lib.c"} }, "LLVMFuzzerTestOneInput"},
		{"missing source", func(h *HarnessTarget) { h.Sources = append(h.Sources, "gone.c") }, "gone.c"},
		{"no sources", func(h *HarnessTarget) { h.Sources = nil }, "no sources"},
		{"nothing covered", func(h *HarnessTarget) { h.Cover = []string{"elsewhere"} }, "none of the sources"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target := cTarget(t)
			tt.edit(target.Harness)
			_, err := Build(ctx, target, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.error) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.error)
			}
		})
	}
}
