package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestList: a corpus folder's inputs leave out what arbor writes beside
// them (issue 14, item 9: manifest.jsonl was read as an input), follow a
// link to a file and a linked folder given as the corpus (it was
// silently empty), and refuse a link to a folder inside it.
func TestList(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	for name, text := range map[string]string{
		"a": "1", "sub/b": "2", ".hidden": "3", "manifest.jsonl": "{}", "verify.cov.jsonl": "{}", "sub/manifest.jsonl": "{}",
		"choices.jsonl": "{}", "FuzzX.manifest.jsonl": "{}", "FuzzX.choices.jsonl": "{}", ".git/config": "x",
	} {
		p := filepath.Join(corpus, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(dir, "outside")
	os.WriteFile(outside, []byte("4"), 0o644)
	if err := os.Symlink(outside, filepath.Join(corpus, "linked")); err != nil {
		t.Skip("no symbolic links here")
	}
	want := []string{filepath.Join(corpus, "a"), filepath.Join(corpus, "linked"), filepath.Join(corpus, "sub", "b")}
	got, err := List(corpus)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("List(corpus) = %v, %v; want %v", got, err, want)
	}
	// The corpus given as a link to the folder.
	alias := filepath.Join(dir, "alias")
	os.Symlink(corpus, alias)
	got, err = List(alias)
	wantAlias := []string{filepath.Join(alias, "a"), filepath.Join(alias, "linked"), filepath.Join(alias, "sub", "b")}
	if err != nil || !slices.Equal(got, wantAlias) {
		t.Errorf("List(alias) = %v, %v; want %v", got, err, wantAlias)
	}
	// A named file is an input whatever its name.
	if got, err := List(filepath.Join(corpus, "manifest.jsonl")); err != nil || len(got) != 1 {
		t.Errorf("a named file: %v, %v", got, err)
	}
	if _, err := List(filepath.Join(dir, "nowhere")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing path: %v", err)
	}
	// A link to a folder inside the corpus may loop: refused.
	os.Symlink(corpus, filepath.Join(corpus, "sub", "loop"))
	if _, err := List(corpus); err == nil || !strings.Contains(err.Error(), "is a link to a folder") {
		t.Errorf("a link to a folder inside: %v", err)
	}
}

func TestSideFile(t *testing.T) {
	for name, want := range map[string]bool{
		"manifest.jsonl": true, "choices.jsonl": true, "x.cov.jsonl": true, "FuzzParse.manifest.jsonl": true,
		"FuzzParse.choices.jsonl": true, "00001.json": false, "manifest.json": false, "d9a2ee7aa3a31b46": false, "cov.jsonl": false,
	} {
		if got := SideFile(name); got != want {
			t.Errorf("SideFile(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRead: a folder mixing raw inputs and Go's corpus files reads each
// as the input it holds; raw files in a Go corpus folder stay raw.
func TestRead(t *testing.T) {
	dir := GoFuzzDir(t.TempDir(), "FuzzX")
	os.MkdirAll(dir, 0o755)
	files := map[string]string{
		"raw":       `{"a":1}`,
		"rawbinary": "\xff\x00go test fuzz v1\n",
		"gofuzz":    "go test fuzz v1\n[]byte(\"{\\\"a\\\":1}\\n\\xff\")\n",
		"crlf":      "go test fuzz v1\r\n[]byte(\"x\")\r\n",
		"empty":     "",
	}
	want := map[string]string{
		"raw": `{"a":1}`, "rawbinary": "\xff\x00go test fuzz v1\n", "gofuzz": "{\"a\":1}\n\xff", "crlf": "x", "empty": "",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list, err := List(dir)
	if err != nil || len(list) != len(files) {
		t.Fatalf("List = %v, %v", list, err)
	}
	for _, f := range list {
		got, err := Read(f)
		if err != nil || !bytes.Equal(got, []byte(want[filepath.Base(f)])) {
			t.Errorf("Read(%s) = %q, %v; want %q", filepath.Base(f), got, err, want[filepath.Base(f)])
		}
	}
	if _, err := Read(filepath.Join(dir, "nowhere")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("go test fuzz v1\nstring(\"x\")\n"), 0o644)
	var fe *FormatError
	if _, err := Read(bad); !errors.As(err, &fe) || fe.File != bad || fe.Line != 2 || !strings.HasPrefix(err.Error(), bad+":2: a string value") {
		t.Errorf("Read of a string value: %v", err)
	}
}

// TestReadAll: every file's input, by SHA-256, the values of files in
// Go's format decoded; the same input in two files once; a file that
// cannot be read is an error naming it.
func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	var files []string
	want := map[string][]byte{}
	for i := range 600 {
		// Batches of files with the same inputs, an empty one, and ones
		// larger than a file system block.
		in := []byte(fmt.Sprintf(`{"n":%d}`, i%450))
		switch i % 450 {
		case 7:
			in = []byte{}
		case 8, 300:
			in = bytes.Repeat(in, 10000+i%450)
		}
		name := filepath.Join(dir, fmt.Sprintf("%03d", i))
		content := in
		if i%3 == 0 {
			content = EncodeGoFuzz(in)
		}
		if err := os.WriteFile(name, content, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
		sum := sha256.Sum256(in)
		want[hex.EncodeToString(sum[:])] = in
	}
	got, err := ReadAll(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 450 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d inputs, want 450 and equal", len(got))
	}
	missing := filepath.Join(dir, "missing")
	if _, err := ReadAll(slices.Insert(files, 300, missing)); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %v", err)
	}
}
