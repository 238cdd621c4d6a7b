package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

func compareFolders(t *testing.T, name, got, want string) {
	t.Helper()
	g, w := testenv.Files(t, got), testenv.Files(t, want)
	if len(g) != len(w) {
		t.Errorf("%s: %d files, want %d", name, len(g), len(w))
	}
	for p, content := range w {
		if gc, ok := g[p]; !ok {
			t.Errorf("%s: %s missing", name, p)
		} else if gc != content {
			t.Errorf("%s: %s holds %q, want %q", name, p, gc, content)
		}
	}
}

// TestSettleNames: the files of a set whose size is known only at its
// end are renamed to the names of its final size, and choices.jsonl with
// them, so that the folder is the one a Writer told the size in advance
// writes. Names are at least 5 digits wide, which takes 100,000 inputs
// to outgrow; the Writer here has a minimum of 1 digit so that 12 do. An
// input without choices has null ones, however they were handed over.
func TestSettleNames(t *testing.T) {
	dir := t.TempDir()
	write := func(out string, n int) {
		s := NewWriter(out, Layout{Ext: ".json"}, n, true)
		s.width = 1
		for i := range 12 {
			// Input 3 made no choices, and a recorder that reuses its
			// slice hands over an empty one: written as null.
			choices := []int{}
			if i != 3 {
				choices = []int{i, i + 1}
			}
			if err := s.Write(fmt.Sprintf("input %d", i), choices); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(nil); err != nil {
			t.Fatal(err)
		}
	}
	known, unknown := filepath.Join(dir, "known"), filepath.Join(dir, "unknown")
	write(known, 12)
	write(unknown, UnknownCount)
	compareFolders(t, "size unknown while writing", unknown, known)
	files := testenv.Files(t, known)
	if files["01.json"] != "input 0" || files["12.json"] != "input 11" || !strings.Contains(files["choices.jsonl"], `{"file":"04.json","choices":null}`) {
		t.Errorf("the Writer told the size writes %v", files)
	}
}

// TestWriter: what a Writer writes, into a folder (raw and Go's format,
// with and without choices) and as JSON Lines.
func TestWriter(t *testing.T) {
	inputs := []struct {
		text    string
		choices []int
	}{{"a<b>", []int{1, 2}}, {"\xff\x00", nil}, {"", []int{}}}
	goName := func(in string) string { return GoFuzzName(EncodeGoFuzz([]byte(in))) }
	for _, tt := range []struct {
		name    string
		layout  Layout
		choices bool
		lines   bool
		want    map[string]string // the folder's files, or "" the stream
	}{
		{"raw", Layout{Ext: ".txt"}, false, false, map[string]string{"00001.txt": "a<b>", "00002.txt": "\xff\x00", "00003.txt": ""}},
		{"raw choices", Layout{Ext: ".txt"}, true, false, map[string]string{"00001.txt": "a<b>", "00002.txt": "\xff\x00", "00003.txt": "",
			"choices.jsonl": `{"file":"00001.txt","choices":[1,2]}` + "\n" + `{"file":"00002.txt","choices":null}` + "\n" + `{"file":"00003.txt","choices":null}` + "\n"}},
		{"gofuzz choices", Layout{Ext: ".txt", FuzzTarget: "FuzzX"}, true, false, map[string]string{
			"testdata/fuzz/FuzzX/" + goName("a<b>"):     string(EncodeGoFuzz([]byte("a<b>"))),
			"testdata/fuzz/FuzzX/" + goName("\xff\x00"): string(EncodeGoFuzz([]byte("\xff\x00"))),
			"testdata/fuzz/FuzzX/" + goName(""):         string(EncodeGoFuzz(nil)),
			"testdata/fuzz/FuzzX.choices.jsonl": `{"file":"` + goName("a<b>") + `","choices":[1,2]}` + "\n" + `{"file":"` + goName("\xff\x00") + `","choices":null}` + "\n" +
				`{"file":"` + goName("") + `","choices":null}` + "\n"}},
		{"lines", Layout{}, false, true, map[string]string{"": `{"input":"a<b>"}` + "\n" + `{"bytes":"/wA="}` + "\n" + `{"input":""}` + "\n"}},
		{"lines choices", Layout{}, true, true, map[string]string{"": `{"input":"a<b>","choices":[1,2]}` + "\n" + `{"bytes":"/wA="}` + "\n" + `{"input":""}` + "\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			var stream bytes.Buffer
			w := NewWriter(out, tt.layout, len(inputs), tt.choices)
			if tt.lines {
				w = NewLineWriter(&stream, tt.choices)
			}
			for _, in := range inputs {
				if err := w.Write(in.text, in.choices); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(nil); err != nil || w.Written() != len(inputs) {
				t.Fatalf("Close: %v; %d written", err, w.Written())
			}
			if tt.lines {
				if stream.String() != tt.want[""] {
					t.Errorf("lines %q, want %q", stream.String(), tt.want[""])
				}
				return
			}
			got := testenv.Files(t, out)
			if len(got) != len(tt.want) {
				t.Errorf("files %v, want %v", got, tt.want)
			}
			for name, content := range tt.want {
				if got[name] != content {
					t.Errorf("%s holds %q, want %q", name, got[name], content)
				}
			}
		})
	}
}

// TestWriterMakesNothingEarly: a Writer into a folder makes it at its
// first input, or at Close without an error, but not when it closes on
// an error before any input: a generator that refuses its grammar
// leaves no folder behind.
func TestWriterMakesNothingEarly(t *testing.T) {
	dir := t.TempDir()
	refused := errors.New("refused")
	out := filepath.Join(dir, "refused")
	if err := NewWriter(out, Layout{Ext: ".txt"}, UnknownCount, true).Close(refused); err != refused {
		t.Errorf("Close(err) = %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a Writer closed on an error made its folder: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := NewWriter(empty, Layout{Ext: ".txt"}, 0, true).Close(nil); err != nil {
		t.Fatal(err)
	}
	if got := testenv.Files(t, empty); len(got) != 1 || got["choices.jsonl"] != "" {
		t.Errorf("an empty set: %v, want an empty choices.jsonl", got)
	}
}
