//go:build linux

package coverage

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// recordHostile records the inputs of testdata/hostile (one file each,
// named by position) and returns their records in input order.
func recordHostile(t *testing.T, bin *Binary, inputs []string, opts Options) []Record {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i, in := range inputs {
		name := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(name, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	out := filepath.Join(t.TempDir(), "cov.jsonl")
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	if _, err := RecordInputs(context.Background(), bin, files, out, opts); err != nil {
		t.Fatalf("the recording stopped: %v", err)
	}
	f, err := ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]Record, len(inputs))
	seen := make([]bool, len(inputs))
	for _, r := range f.Records {
		i := slices.Index(files, r.Input)
		if i < 0 || seen[i] {
			t.Fatalf("record of %s: unknown or twice", r.Input)
		}
		seen[i] = true
		r.Error = strings.Join(append([]string{r.Error}, names(f, r.Covered)...), " ")
		recs[i] = r
	}
	for i, ok := range seen {
		if !ok {
			t.Errorf("%q was not recorded", inputs[i])
		}
	}
	return recs
}

// TestForgedReply (issue 29, item 3): a subject that writes bytes shaped
// like a reply to fd 4, where replies once went, or to every pipe it
// holds, cannot pass them for the reply to its input. On fd 4 they now
// reach nothing; written to the real reply pipe they lack the request's
// token, and the input is labelled "harness protocol" while the inputs
// after it (pipelined behind it) keep their own labels. Before, "forge4"
// and "forge" were recorded as panics and every later input in flight
// took the label of the one before it, or the recording stopped with
// "malformed coverage data".
func TestForgedReply(t *testing.T) {
	bin, _ := hostileBinary(t)
	inputs := []struct {
		input   string
		outcome Outcome
		message string // in the error, or a function covered
	}{
		{"ok 1", OK, "calm"},
		{"forge4 1", OK, "calm"},
		{"ok 2", OK, "calm"},
		{"bogus 1", Error, "unknown word"},
		{"forge 1", Error, "harness protocol"},
		{"ok 3", OK, "calm"},
		{"bogus 2", Error, "unknown word"},
		{"panic", Panic, "hostile: panic"},
		{"forge 2", Error, "harness protocol"},
		{"forge4 2", OK, "calm"},
		{"ok 4", OK, "calm"},
	}
	var words []string
	for _, in := range inputs {
		words = append(words, in.input)
	}
	for _, isolate := range []bool{false, true} {
		recs := recordHostile(t, bin, words, Options{Subject: "hostile", Isolate: isolate})
		for i, in := range inputs {
			r := recs[i]
			if r.Outcome != in.outcome || !strings.Contains(r.Error, in.message) {
				t.Errorf("isolate %v, %q: %s %q, want %s with %q", isolate, in.input, r.Outcome, r.Error, in.outcome, in.message)
			}
		}
	}
}

// FuzzReply feeds the reply reader bytes that may be anything a subject
// could write to the reply pipe: it must never panic or read past what
// a blob's length allows, and must return a result only for a reply
// that starts with the request's token.
func FuzzReply(f *testing.F) {
	token := [tokenSize]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	good := append(token[:], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0)
	f.Add(good)
	f.Add(append(make([]byte, tokenSize), good[tokenSize:]...))
	f.Add(good[:20])
	f.Add(append(token[:], 7, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, reply []byte) {
		s := &Session{bin: &Binary{}, Funcs: &Functions{Names: []string{"a", "b", "c"}}, ids: []int{0, 1, 2}}
		s.seen, s.counts = make([]int32, 3), make([]uint32, 3)
		s.stdout = bufio.NewReader(bytes.NewReader(reply))
		s.tokens = [][tokenSize]byte{token}
		r, err := s.readReply('R')
		if err == nil && !bytes.HasPrefix(reply, token[:]) {
			t.Errorf("a reply without the token was taken: %+v", r)
		}
		var proto protocolError
		if errors.As(err, &proto) && bytes.HasPrefix(reply, token[:]) && len(reply) > tokenSize && reply[tokenSize] <= 2 && !strings.Contains(err.Error(), "blob") {
			t.Errorf("a reply with the token and a known outcome: %v", err)
		}
	})
}
