//go:build linux

package coverage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// TestSharedMemoryGo (issue 29, item 10): a Go subject that maps 3 GiB of
// shared memory, which RLIMIT_DATA does not count, is stopped under
// --memory 256MiB and under the 2 GiB default: the harness bounds its
// address space too. Before, the mapping succeeded under both ("shm"
// was recorded ok).
func TestSharedMemoryGo(t *testing.T) {
	bin, _ := hostileBinary(t)
	words := []string{"ok 1", "shm", "ok 2", "alloc", "ok 3"}
	for _, memory := range []int64{256 << 20, 0} {
		recs := recordHostile(t, bin, words, Options{Subject: "hostile", RunOptions: RunOptions{Memory: memory}})
		for i, want := range []struct {
			outcome Outcome
			message string
		}{{OK, "calm"}, {Panic, "shared mapping: cannot allocate memory"}, {OK, "calm"}, {Panic, "out of memory"}, {OK, "calm"}} {
			if r := recs[i]; r.Outcome != want.outcome || !strings.Contains(r.Error, want.message) {
				t.Errorf("--memory %d, %q: %s %q, want %s with %q", memory, words[i], r.Outcome, r.Error, want.outcome, want.message)
			}
		}
	}
}

// TestCommandMemory (issue 29, item 10): Command.Memory bounds a
// command's memory from its first instruction: its private data and
// its address space, shared mappings included. Before, --memory was not
// applied to commands at all: "shm" and "big" ran to the end.
func TestCommandMemory(t *testing.T) {
	python := testenv.NeedTool(t, "python3", "apt-get install python3")
	script := filepath.Join(t.TempDir(), "subject.py")
	os.WriteFile(script, []byte(`import mmap, sys
word = open(sys.argv[1]).read()
try:
    if word == "shm":
        m = mmap.mmap(-1, 3 << 30, flags=mmap.MAP_SHARED)
    elif word == "big":
        b = bytearray(1 << 30)
except (OSError, MemoryError) as e:
    sys.exit("%s: %s" % (type(e).__name__, e))
`), 0o644)
	tests := []struct {
		input   string
		memory  int64
		outcome Outcome
		message string
	}{
		{"ok", 256 << 20, OK, ""},
		{"shm", 256 << 20, Error, "Cannot allocate memory"},
		{"big", 256 << 20, Error, "MemoryError"},
		{"ok", 0, OK, ""},
		{"shm", 0, OK, ""}, // untouched: the mapping costs nothing
	}
	for _, tt := range tests {
		c := &Command{Argv: []string{python, script, "{}"}, Memory: tt.memory, Timeout: 20 * time.Second}
		r, err := c.Run(context.Background(), []byte(tt.input))
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != tt.outcome || !strings.Contains(r.Message, tt.message) {
			t.Errorf("%q under %d bytes: %s %q, want %s with %q", tt.input, tt.memory, r.Outcome, r.Message, tt.outcome, tt.message)
		}
		r.Close()
	}
}
