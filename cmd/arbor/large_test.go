package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
)

// Tests of inputs that are large or deeply nested (issue 14, item 7):
// outputs stay linear in the input, nothing overflows or runs out of
// memory, and inputs that are long but flat are not taken for deep ones.

// deepJSON is n nested empty arrays: n '[' then n ']'.
func deepJSON(n int) []byte {
	return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
}

// flatXML is one element holding n empty elements.
func flatXML(n int) []byte {
	return []byte("<r>" + strings.Repeat("<a/>", n) + "</r>")
}

func writeInput(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// maxOutlinePerByte bounds the text outline of an input, in bytes per
// input byte. A nested JSON array byte makes about five outline lines.
const maxOutlinePerByte = 128

func TestLargeInputs(t *testing.T) {
	dir := t.TempDir()
	deep2k := writeInput(t, dir, "deep2k.json", deepJSON(2000))
	deep5k := writeInput(t, dir, "deep5k.json", deepJSON(5000))
	deep12k := writeInput(t, dir, "deep12k.json", deepJSON(12000))
	deep13k := writeInput(t, dir, "deep13k.json", deepJSON(13000))
	flat := writeInput(t, dir, "flat.xml", flatXML(20000))
	flatDir := filepath.Dir(writeInput(t, dir, "flatcorpus/flat.xml", flatXML(20000)))

	outlineBound := func(file string) func(t *testing.T, out string) {
		return func(t *testing.T, out string) {
			info, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			if limit := maxOutlinePerByte * int(info.Size()); len(out) > limit {
				t.Errorf("outline of %d bytes for a %d-byte input; want at most %d", len(out), info.Size(), limit)
			}
			if !strings.HasPrefix(out, "WS_1\n") {
				t.Errorf("outline starts %.80q", out)
			}
			if !strings.Contains(out, "·[") {
				t.Errorf("no depth marker (·[N]) in the outline")
			}
		}
	}
	validTreeJSON := func(arrays int) func(t *testing.T, out string) {
		return func(t *testing.T, out string) {
			if err := checkJSONSyntax([]byte(out)); err != nil {
				t.Fatalf("parse --json wrote invalid JSON: %v", err)
			}
			if !strings.HasPrefix(out, `{"file":`) || !strings.HasSuffix(out, "]}\n") {
				t.Errorf("want one object {\"file\":...,\"trees\":[...]}, got %.60q...%q", out, out[max(0, len(out)-20):])
			}
			if n := strings.Count(out, `"kind":"Ref","label":"Array"`); n != arrays {
				t.Errorf("%d Array nodes, want %d", n, arrays)
			}
		}
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		check  func(t *testing.T, out string)
	}{
		{"outline of 2,000-deep json is linear", []string{"parse", "json", deep2k}, 0, "", outlineBound(deep2k)},
		{"outline of 12,000-deep json is linear", []string{"parse", "json", deep12k}, 0, "", outlineBound(deep12k)},
		{"json of 5,000-deep json is valid", []string{"parse", "json", deep5k, "--json"}, 0, "", validTreeJSON(5000)},
		{"dot of 5,000-deep json", []string{"parse", "json", deep5k, "--dot"}, 0, "", func(t *testing.T, out string) {
			nodes, edges := strings.Count(out, " [label="), strings.Count(out, " -> ")
			if !strings.HasPrefix(out, "digraph tree {") || !strings.HasSuffix(out, "}\n") || edges != nodes-1 || nodes < 5000 {
				t.Errorf("dot output of %d nodes and %d edges starts %.40q", nodes, edges, out)
			}
		}},
		{"kpaths of flat xml", []string{"kpaths", "xml", flat, "--k", "2"}, 0, "", func(t *testing.T, out string) {
			if !strings.Contains(out, "distinct 2-paths") || !strings.Contains(out, "EmptyElement") {
				t.Errorf("kpaths output: %.300s", out)
			}
		}},
		{"coverage of flat xml", []string{"coverage", "xml", flatDir, "--max-k", "2"}, 0, "", func(t *testing.T, out string) {
			if !strings.Contains(out, "1 inputs parsed, 0 rejected") {
				t.Errorf("coverage output: %.300s", out)
			}
		}},
		{"parse of flat xml, all trees", []string{"parse", "xml", flat, "--trees", "2"}, 0, "", func(t *testing.T, out string) {
			if strings.Count(out, "EmptyElement_") != 20000 {
				t.Errorf("want 20000 EmptyElement lines, got %d", strings.Count(out, "EmptyElement_"))
			}
		}},
		{"too deep is a clean error", []string{"kpaths", "json", deep13k}, 1, "nests rule expansions more than", nil},
		{"too deep parse is a clean error", []string{"parse", "json", deep13k, "--json"}, 1, "nests rule expansions more than", func(t *testing.T, out string) {
			var rec struct{ File, Error string }
			if err := json.Unmarshal([]byte(out), &rec); err != nil || !strings.Contains(rec.Error, "nests rule expansions") {
				t.Errorf("want a JSON error line, got %q (%v)", out, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runArbor(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %.500s", code, tt.code, errOut)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q: %.500s", tt.stderr, errOut)
			}
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
}

// maxAllocPerByte bounds what kpaths and predict allocate over a large
// deterministic input, in bytes per input byte: reading it, a copy of it
// as a string, and output, but no derivation tree (about 130 bytes per
// byte of JSON).
const maxAllocPerByte = 16

// TestLargeInputMemory checks that kpaths and predict read the features
// of a large JSON input without building its tree: what they allocate in
// all stays a small multiple of the input.
func TestLargeInputMemory(t *testing.T) {
	dir := t.TempDir()
	var big bytes.Buffer
	big.WriteString("[\n")
	for i := 0; big.Len() < 2<<20; i++ {
		if i > 0 {
			big.WriteString(",\n")
		}
		fmt.Fprintf(&big, `{"id": %d, "name": "user %d", "score": %d.5e1, "tags": ["a", "b<c"], "ok": true, "next": null}`, i, i, i%97)
	}
	big.WriteString("\n]\n")
	bigFile := writeInput(t, dir, "big.json", big.Bytes())
	model := trainTinyModel(t, dir)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"kpaths", []string{"kpaths", "json", bigFile, "--k", "3"}},
		{"predict", []string{"predict", "--model", model, bigFile}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, errOut, code := runArbor(t, "", tt.args...)
			runtime.ReadMemStats(&after)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(big.Len())
			if perByte > maxAllocPerByte {
				t.Errorf("%s allocated %.1f bytes per input byte; want at most %d", tt.name, perByte, maxAllocPerByte)
			}
		})
	}
}

// trainTinyModel trains a json model on a few inputs with made-up
// coverage (a function runs when the input has an array), without
// recording a subject.
func trainTinyModel(t *testing.T, dir string) string {
	t.Helper()
	model, _ := trainTiny(t, dir, []string{`[1]`, `{"a": 1}`, `[{"b": [2]}]`, `"s"`, `{"c": [true]}`, `null`, `[[]]`, `{"d": {"e": 3}}`, `[]`, `12`})
	return model
}

// trainTiny trains a json model on the inputs with made-up coverage (a
// function f.array runs when the input has a "[", f.any always) and
// returns the model's path and what train printed.
func trainTiny(t *testing.T, dir string, inputs []string) (model, stdout string) {
	t.Helper()
	var cov bytes.Buffer
	line := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		cov.Write(append(b, '\n'))
	}
	line(coverage.NewHeader("made-up", []string{"f.array", "f.any"}))
	for i, in := range inputs {
		name := fmt.Sprintf("in%02d.json", i)
		writeInput(t, dir, filepath.Join("tiny", name), []byte(in))
		sum := sha256.Sum256([]byte(in))
		covered := []int{1}
		if strings.Contains(in, "[") {
			covered = []int{0, 1}
		}
		line(coverage.Record{Input: name, SHA256: hex.EncodeToString(sum[:]), Covered: covered, Outcome: "ok"})
	}
	covFile := writeInput(t, dir, "tiny.cov.jsonl", cov.Bytes())
	model = filepath.Join(dir, "tiny.model.gz")
	out, errOut, code := runArbor(t, "", "train", "--grammar", "json", "--inputs", filepath.Join(dir, "tiny"), "--coverage", covFile, "--out", model, "--cv", "0")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	return model, out
}

// checkJSONSyntax checks that data is one JSON value followed by a
// newline, without a limit on nesting (encoding/json stops at 10,000
// levels, and a tree's JSON nests deeper than its input).
func checkJSONSyntax(data []byte) error {
	var stack []byte // '{' or '['
	i := 0
	ws := func() {
		for i < len(data) && strings.IndexByte(" \t\r\n", data[i]) >= 0 {
			i++
		}
	}
	str := func() error {
		i++ // opening quote
		for i < len(data) {
			switch c := data[i]; {
			case c == '"':
				i++
				return nil
			case c == '\\':
				i += 2
			case c < 0x20:
				return fmt.Errorf("control character in string at %d", i)
			default:
				i++
			}
		}
		return errors.New("unterminated string")
	}
	// key reads an object member's key and its colon.
	key := func() error {
		if i >= len(data) || data[i] != '"' {
			return fmt.Errorf("want a key at %d", i)
		}
		if err := str(); err != nil {
			return err
		}
		ws()
		if i >= len(data) || data[i] != ':' {
			return fmt.Errorf("want ':' at %d", i)
		}
		i++
		return nil
	}
	// value reads a scalar or opens a container; closing is done by the loop.
	value := func() error {
		ws()
		if i >= len(data) {
			return errors.New("unexpected end")
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			stack = append(stack, c)
			i++
			ws()
			if i < len(data) && (c == '{' && data[i] == '}' || c == '[' && data[i] == ']') {
				i++
				stack = stack[:len(stack)-1]
				return nil
			}
			if c == '{' {
				if err := key(); err != nil {
					return err
				}
				return errOpen
			}
			return errOpen
		case c == '"':
			return str()
		case c == '-' || c >= '0' && c <= '9':
			for i < len(data) && strings.IndexByte("+-0123456789.eE", data[i]) >= 0 {
				i++
			}
			return nil
		}
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(data[i:], []byte(lit)) {
				i += len(lit)
				return nil
			}
		}
		return fmt.Errorf("unexpected %q at %d", data[i], i)
	}
	for {
		err := value()
		if err == errOpen {
			continue // read the container's first value
		}
		if err != nil {
			return err
		}
		// A value ended: close containers or move to the next element.
		for {
			ws()
			if len(stack) == 0 {
				if i != len(data) {
					return fmt.Errorf("data after the value at %d", i)
				}
				return nil
			}
			if i >= len(data) {
				return errors.New("unexpected end")
			}
			top := stack[len(stack)-1]
			switch {
			case data[i] == ',':
				i++
				if top == '{' {
					ws()
					if err := key(); err != nil {
						return err
					}
				}
			case top == '{' && data[i] == '}' || top == '[' && data[i] == ']':
				i++
				stack = stack[:len(stack)-1]
				continue
			default:
				return fmt.Errorf("unexpected %q at %d", data[i], i)
			}
			break
		}
	}
}

var errOpen = errors.New("container opened")

func TestCheckJSONSyntax(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{`{"a":[1,{"b":null},"x\"y"],"c":{}}` + "\n", true},
		{`[[[]]]`, true},
		{`{"a":1,}`, false},
		{`[1 2]`, false},
		{`{"a" 1}`, false},
		{`[1]]`, false},
		{`[[`, false},
	} {
		if err := checkJSONSyntax([]byte(tt.in)); (err == nil) != tt.ok {
			t.Errorf("%s: %v, want ok=%v", tt.in, err, tt.ok)
		}
	}
}
