//go:build linux

package coverage

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/proctest"
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

// TestRecordCommandLimits (issue 29, item 10): recording a command
// subject (record --cmd) applies --memory to it, shared mappings
// included, kills the setsid children it leaves, and labels a run that
// signals its parent. Before, "shm" was recorded ok, the setsid child
// outlived the recording, and "kill" killed the recorder.
func TestRecordCommandLimits(t *testing.T) {
	python := testenv.NeedTool(t, "python3", "apt-get install python3")
	mark := markProcesses(t)
	root := t.TempDir()
	script := filepath.Join(root, "subject.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
in=$(cat "$1")
printf 'SF:%s/lib.c\nFN:1,run\nFNDA:1,run\nend_of_record\n' "`+root+`" > "$ARBOR_RUN_DIR/cov.info"
case "$in" in
shm) exec `+python+` -c 'import mmap, sys
try:
    mmap.mmap(-1, 3 << 30, flags=mmap.MAP_SHARED)
except OSError as e:
    sys.exit("shared mapping: %s" % e)' ;;
setsid) setsid sleep 300 >/dev/null 2>&1 < /dev/null & sleep 0.2 ;;
kill) kill -TERM $PPID; sleep 1 ;;
esac
exit 0
`), 0o755)
	bin, err := Build(context.Background(), Target{Command: &CommandTarget{Argv: []string{script, "{}"}, Coverage: "lcov", Root: root}}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"ok 1", "shm", "ok 2", "setsid", "kill", "ok 3"}
	dir := t.TempDir()
	var files []string
	for i, w := range words {
		name := filepath.Join(dir, strconv.Itoa(i))
		os.WriteFile(name, []byte(w), 0o644)
		files = append(files, name)
	}
	out := filepath.Join(t.TempDir(), "cov.jsonl")
	opts := Options{Subject: "cmd", Timeout: 20 * time.Second, RunOptions: RunOptions{Memory: 256 << 20}}
	if _, err := RecordInputs(context.Background(), bin, files, out, opts); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		outcome Outcome
		message string
	}{
		"ok 1": {OK, ""}, "shm": {Error, "shared mapping: [Errno 12] Cannot allocate memory"}, "ok 2": {OK, ""},
		"setsid": {OK, ""}, "kill": {Panic, "sent SIGTERM to its parent"}, "ok 3": {OK, ""},
	}
	if len(f.Records) != len(words) {
		t.Fatalf("%d records of %d inputs", len(f.Records), len(words))
	}
	for _, r := range f.Records {
		i := slices.Index(files, r.Input)
		w := want[words[i]]
		if r.Outcome != w.outcome || !strings.Contains(r.Error, w.message) {
			t.Errorf("%q: %s %q, want %s with %q", words[i], r.Outcome, r.Error, w.outcome, w.message)
		}
	}
	if left := proctest.WaitGone(mark, 5*time.Second); len(left) > 0 {
		t.Errorf("processes outlive the recording: %v", left)
		for _, p := range left {
			syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
}
