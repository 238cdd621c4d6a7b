//go:build linux

package coverage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/proctest"
)

// hostileBinary builds the harness of testdata/hostile, the subject that
// misbehaves on purpose, and returns it with the module's folder.
func hostileBinary(t *testing.T) (*Binary, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a harness")
	}
	mod, _ := filepath.Abs("testdata/hostile")
	bin, err := Build(context.Background(), Target{ImportPath: "example.com/hostile", Func: "Run", Dir: mod}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin, mod
}

// hostileInputs are inputs of testdata/hostile with the outcome each
// must get, a text its message must hold, and a function its coverage
// must hold.
var hostileInputs = []struct {
	input   string
	outcome Outcome
	message string
	covered string
}{
	{"ok 1", OK, "", "calm"},
	{"print", OK, "", "printed"},       // fmt.Print on stdout: once every input timed out
	{"println", OK, "", "printed"},     // once labelled panics that were not
	{"frame", OK, "", "printed"},       // once taken for a reply
	{"stderr", OK, "", "printed"},      //
	{"stdin", OK, "", "calm"},          // once read the requests
	{"ok 2", OK, "", "calm"},           //
	{"child", OK, "", "calm"},          // a child holding stderr: once hung the session
	{"leak", OK, "", "calm"},           // goroutines that never end
	{"loop", Timeout, "no result", ""}, //
	{"ok 3", OK, "", "calm"},           // after a timeout
	{"exit", Panic, "exit status 7", ""},
	{"ok 4", OK, "", "calm"}, // after an exit
	{"alloc", Panic, "out of memory", ""},
	{"deadlock", Timeout, "no result", ""},
	{"panic", Panic, "hostile: panic", ""},
	{"bogus", Error, "unknown word", ""},
	{"ok 5", OK, "", "calm"},
}

// TestHostileSubject (issue 14, items 2, 3 and 4): a subject that writes
// to stdout, reads stdin, forks a child holding stderr, hangs, exits,
// exhausts memory, leaks goroutines or deadlocks gets the right outcome
// for each input, in one process and with --isolate; every input is
// recorded once; what it printed reaches the output writer with its
// stream's name; no process outlives the recording; and nothing is
// written into the subject's module. Before the harness spoke over pipes
// of its own, "print" timed out, "frame" was a panic and the inputs after
// them were mislabelled.
func TestHostileSubject(t *testing.T) {
	bin, mod := hostileBinary(t)
	before, _ := proctest.Tree(mod)
	mark := proctest.NewMark()
	name, value, _ := strings.Cut(mark, "=")
	t.Setenv(name, value) // the harnesses inherit it
	dir := t.TempDir()
	var files []string
	for i, in := range hostileInputs {
		name := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(name, []byte(in.input), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	for _, isolate := range []bool{false, true} {
		t.Run("isolate="+strconv.FormatBool(isolate), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "cov.jsonl")
			var shown bytes.Buffer
			opts := Options{Subject: "hostile", Timeout: time.Second, Isolate: isolate}
			opts.Memory = 256 << 20
			opts.Output = &shown
			fds := openFiles(t)
			sum, err := RecordInputs(context.Background(), bin, files, out, opts)
			if err != nil {
				t.Fatal(err)
			}
			// Every process started (one per crash, timeout or isolated
			// input) had three pipes: none may stay open.
			if now := openFiles(t); now > fds {
				t.Errorf("%d files open after the recording, %d before", now, fds)
			}
			f, err := ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Records) != len(hostileInputs) || sum.Recorded != len(hostileInputs) {
				t.Fatalf("%d records (%d recorded) of %d inputs", len(f.Records), sum.Recorded, len(hostileInputs))
			}
			byName := map[string]Record{}
			for _, r := range f.Records {
				if _, dup := byName[r.Input]; dup {
					t.Errorf("%s recorded twice", r.Input)
				}
				byName[r.Input] = r
			}
			for i, in := range hostileInputs {
				r := byName[files[i]]
				if r.Outcome != in.outcome || !strings.Contains(r.Error, in.message) {
					t.Errorf("%q: %s %q, want %s with %q", in.input, r.Outcome, r.Error, in.outcome, in.message)
				}
				if in.covered != "" && !slices.ContainsFunc(r.Covered, func(id int) bool { return strings.HasSuffix(f.Functions[id], "."+in.covered) }) {
					t.Errorf("%q: covered %v, want %s among them", in.input, names(f, r.Covered), in.covered)
				}
			}
			for _, line := range []string{"stdout| a line of the subject's own\n", "stderr| a complaint on stderr\n"} {
				if !strings.Contains(shown.String(), line) {
					t.Errorf("the output shown lacks %q:\n%s", line, shown.String())
				}
			}
			if sum.OutputBytes < int64(len("a line of the subject's own\n")) {
				t.Errorf("output counted: %d bytes", sum.OutputBytes)
			}
			if left := proctest.WaitGone(mark, 5*time.Second); len(left) > 0 {
				t.Errorf("processes outlive the recording: %v", left)
			}
		})
	}
	if after, _ := proctest.Tree(mod); !slices.Equal(before, after) {
		t.Errorf("the module changed:\nbefore %q\nafter  %q", before, after)
	}
}

func names(f *File, ids []int) []string {
	var s []string
	for _, id := range ids {
		s = append(s, f.Functions[id])
	}
	return s
}

// TestHarnessEndsWithParent (issue 14, item 4): a harness stuck in the
// subject ends when the parent's end of its parent pipe closes, as it
// does when arbor dies however it dies (before, a harness spinning in
// the subject ran for ever once arbor was killed; Pdeathsig covers Linux
// only, and only the thread that started it).
func TestHarnessEndsWithParent(t *testing.T) {
	bin, _ := hostileBinary(t)
	s, err := Start(bin, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.send('R', []byte("loop")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // in the loop by now
	s.live.Close()
	select {
	case err := <-s.done:
		s.done <- err // for Close
	case <-time.After(10 * time.Second):
		t.Fatal("the harness goes on after its parent pipe closed")
	}
}

// openFiles counts this process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
