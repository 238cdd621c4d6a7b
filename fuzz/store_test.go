package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/synth"
)

// campaignIn runs a campaign of execs executions saved into dir and
// returns its result and the store's view of it.
func campaignIn(t *testing.T, dir string, execs int, seed uint64) (*Result, *Store) {
	t.Helper()
	g := jsonGraph(t)
	bounds := Bounds{MaxDepth: 12}
	st, err := OpenStore(context.Background(), StoreConfig{Dir: dir, Ext: ".json", Grammar: g, Bounds: bounds})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts := Options{Seed: seed, Execs: execs, Bounds: bounds, Seeds: st.Seeds()}
	st.Attach(&opts)
	res, err := Fuzz(context.Background(), g, &prefixRunner{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Finish(res); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return res, st
}

// corpusOf reads corpus.jsonl and asserts that every line replays to
// the file it names.
func corpusOf(t *testing.T, dir string) []CorpusLine {
	t.Helper()
	g := jsonGraph(t)
	data, err := os.ReadFile(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []CorpusLine
	names := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var c CorpusLine
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("corpus.jsonl: %q: %v", l, err)
		}
		if names[c.File] {
			t.Errorf("%s named twice", c.File)
		}
		names[c.File] = true
		in, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		gen := synth.NewGenerator(g, &synth.Replay{Choices: c.Choices}, synth.RandomPolicy)
		Bounds{MaxDepth: 12}.configure(gen)
		if got := gen.Generate().String(); got != string(in) {
			t.Errorf("%s: replays to %q, holds %q", c.File, got, in)
		}
		lines = append(lines, c)
	}
	return lines
}

// TestStoreCrashes damages a campaign folder the ways a crash does and
// resumes it: nothing kept is lost or named twice, no file name is
// reused, and failures keep their files and counts.
func TestStoreCrashes(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string, lines []CorpusLine)
	}{
		{"none", func(*testing.T, string, []CorpusLine) {}},
		{"cut line", func(t *testing.T, dir string, _ []CorpusLine) {
			// A full disk cut the last line short.
			f, err := os.OpenFile(filepath.Join(dir, "corpus.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"file":"corpus/000999.json","choi`)
			f.Close()
			f, _ = os.OpenFile(filepath.Join(dir, "curve.csv"), os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString("12,0.0")
			f.Close()
		}},
		{"lost lines", func(t *testing.T, dir string, lines []CorpusLine) {
			// Killed between the files and their lines: the last two
			// inputs have no line.
			data, _ := os.ReadFile(filepath.Join(dir, "corpus.jsonl"))
			rows := strings.SplitAfter(string(data), "\n")
			os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte(strings.Join(rows[:len(lines)-2], "")), 0o644)
		}},
		{"file by hand", func(t *testing.T, dir string, lines []CorpusLine) {
			// A file that holds the next number, not the grammar's.
			os.WriteFile(filepath.Join(dir, "corpus", "000500.json"), []byte("not json"), 0o644)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			res, st := campaignIn(t, dir, 600, 1)
			if len(res.Failures) == 0 {
				t.Fatal("the first campaign found no failure to keep")
			}
			before := corpusOf(t, dir)
			failures := slicesClone(st.Failures())
			tc.damage(t, dir, before)
			files, _ := os.ReadDir(filepath.Join(dir, "corpus"))
			used := map[string]bool{}
			for _, f := range files {
				used[f.Name()] = true
			}

			res2, st2 := campaignIn(t, dir, 600, 2)
			after := corpusOf(t, dir)
			inputs := map[string]string{}
			for _, c := range after {
				in, _ := os.ReadFile(filepath.Join(dir, c.File))
				if other, dup := inputs[string(in)]; dup {
					t.Errorf("%s and %s hold the same input", other, c.File)
				}
				inputs[string(in)] = c.File
			}
			// Every input named before is named after, by the same file.
			for _, c := range before {
				in, _ := os.ReadFile(filepath.Join(dir, c.File))
				if inputs[string(in)] != c.File {
					t.Errorf("%s (%q) lost: now %q", c.File, in, inputs[string(in)])
				}
			}
			// No new line names a file that was there before it.
			for _, c := range after[min(len(before), len(after)):] {
				if used[filepath.Base(c.File)] && !slicesContainsFile(before, c.File) && tc.name != "lost lines" {
					t.Errorf("%s reused", c.File)
				}
			}
			if data, _ := os.ReadFile(filepath.Join(dir, "corpus", "000500.json")); tc.name == "file by hand" && string(data) != "not json" {
				t.Errorf("the hand-made file was overwritten: %q", data)
			}
			// Failures: the same files, counts that go on, none new
			// reported as new.
			for _, f := range failures {
				i := indexOfFailure(st2.Failures(), f)
				if i < 0 || st2.Failures()[i].File != f.File || st2.Failures()[i].Count < f.Count {
					t.Errorf("failure %+v is now %+v", f, st2.Failures())
				}
			}
			for i, f := range res2.Failures {
				if indexOfFailure(failures, FailureRecord{Outcome: string(f.Outcome), Stack: f.Stack}) >= 0 && st2.FailureFile(i) != "" {
					t.Errorf("old failure %s reported as new (%s)", f.Stack, st2.FailureFile(i))
				}
			}
			curve, _ := os.ReadFile(filepath.Join(dir, "curve.csv"))
			if !bytes.HasSuffix(curve, []byte("\n")) || bytes.Contains(curve, []byte("12,0.0\n")) {
				t.Errorf("curve.csv:\n%s", curve)
			}
			var state State
			data, _ := os.ReadFile(filepath.Join(dir, "state.json"))
			if json.Unmarshal(data, &state) != nil || state.Executions != 1200 {
				t.Errorf("state.json: %s", data)
			}
		})
	}
}

func slicesClone(f []FailureRecord) []FailureRecord { return append([]FailureRecord(nil), f...) }

func slicesContainsFile(lines []CorpusLine, file string) bool {
	for _, c := range lines {
		if c.File == file {
			return true
		}
	}
	return false
}

func indexOfFailure(fs []FailureRecord, f FailureRecord) int {
	for i, g := range fs {
		if g.key() == f.key() {
			return i
		}
	}
	return -1
}

// TestStoreLock: one campaign at a time writes a folder.
func TestStoreLock(t *testing.T) {
	dir := t.TempDir()
	first, err := OpenStore(context.Background(), StoreConfig{Dir: dir, Ext: ".json"})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = OpenStore(context.Background(), StoreConfig{Dir: dir, Ext: ".json"})
	if err == nil || !strings.Contains(err.Error(), "is being written by") || !strings.Contains(err.Error(), "--wait") {
		t.Errorf("a second store on one folder: %v", err)
	}
}

// TestStoreWriteError: an error saving (a full disk) stops the campaign
// with that error, and nothing saved before is damaged.
func TestStoreWriteError(t *testing.T) {
	dir := t.TempDir()
	g := jsonGraph(t)
	st, err := OpenStore(context.Background(), StoreConfig{Dir: dir, Ext: ".json"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := Options{Seed: 1, Execs: 600, Bounds: Bounds{MaxDepth: 12}}
	st.Attach(&opts)
	kept := opts.Kept
	n := 0
	full := errors.New("no space left on device")
	opts.Kept = func(e Entry) error {
		if n++; n > 3 {
			return full
		}
		return kept(e)
	}
	if _, err := Fuzz(context.Background(), g, &prefixRunner{}, opts); !errors.Is(err, full) {
		t.Errorf("campaign error %v, want the write error", err)
	}
	if lines := corpusOf(t, dir); len(lines) != 3 {
		t.Errorf("%d corpus lines, want the 3 saved", len(lines))
	}
}
