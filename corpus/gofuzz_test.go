package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGoWritten: files that `go test -fuzz` wrote (a crasher in
// testdata/fuzz and an entry of its cache) decode to values that encode
// back to the same bytes, under the same names.
func TestGoWritten(t *testing.T) {
	files, err := List("testdata/gofuzz")
	if err != nil || len(files) < 4 {
		t.Fatalf("List = %v, %v", files, err)
	}
	for _, f := range files {
		content, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Read(f)
		if err != nil {
			t.Errorf("Read(%s): %v", f, err)
			continue
		}
		if enc := EncodeGoFuzz(v); !bytes.Equal(enc, content) {
			t.Errorf("%s: EncodeGoFuzz(Read) = %q, want %q", f, enc, content)
		}
		if name := GoFuzzName(content); name != filepath.Base(f) {
			t.Errorf("%s: GoFuzzName = %s", f, name)
		}
	}
}

// TestDecode: the forms Go's decoder accepts for a []byte value decode;
// everything else in a file with the header is an error naming the line.
func TestDecode(t *testing.T) {
	const h = GoFuzzHeader + "\n"
	tests := []struct {
		name, in string
		want     string // the value, when err is ""
		err      string // what the error says
	}{
		{"go's form", h + `[]byte("a\x00\"é\u2028")` + "\n", "a\x00\"é\u2028", ""},
		{"no final newline", h + `[]byte("ab")`, "ab", ""},
		{"raw string", h + "[]byte(`a\\x`)\n", `a\x`, ""},
		{"raw string with CR", h + "[]byte(`a\rb`)\n", "ab", ""},
		{"blank lines and spaces", h + "\n  \t[] byte ( \"ab\" )  \n\n", "ab", ""},
		{"CRLF", GoFuzzHeader + "\r\n[]byte(\"ab\")\r\n", "ab", ""},
		{"octal and unicode escapes", h + `[]byte("\101\u00e9\U0001F600\a")`, "Aé\U0001F600\a", ""},
		{"comment", h + `[]byte("ab") // seed` + "\n", "ab", ""},
		{"ellipsis", h + `[]byte("ab"...)` + "\n", "ab", ""},
		{"empty", h + `[]byte("")` + "\n", "", ""},
		{"not the header", "go test fuzz v2\n[]byte(\"ab\")\n", "go test fuzz v2\n[]byte(\"ab\")\n", ""},
		{"header later", "x\n" + h, "x\n" + h, ""},
		{"header only", GoFuzzHeader, "", "f: a Go fuzzing corpus file (go test fuzz v1) without a value"},
		{"no value", h + "\n\n", "", "f: a Go fuzzing corpus file (go test fuzz v1) without a value"},
		{"two values", h + "[]byte(\"a\")\n\n[]byte(\"b\")\n", "", "f:4: a second value, but arbor's inputs are one []byte (fuzz targets func(*testing.T, []byte)); the first is on line 2"},
		{"string", h + `string("a")`, "", "f:2: a string value, but arbor's inputs are []byte"},
		{"int", h + `int(-4)`, "", "f:2: a int value"},
		{"float bits", h + `math.Float64frombits(0x7ff8000000000001)`, "", "f:2: a math.Float64frombits value"},
		{"byte", h + `byte('a')`, "", "f:2: a byte value"},
		{"[]uint8", h + `[]uint8("a")`, "", "f:2: a []uint8 value"},
		{"array", h + `[2]byte("a")`, "", "f:2: a [2]byte value"},
		{"not a literal", h + `[]byte(x)`, "", "f:2: a []byte value must be a string literal"},
		{"rune literal", h + `[]byte('a')`, "", "f:2: a []byte value must be a string literal"},
		{"concatenation", h + `[]byte("a" + "b")`, "", "f:2: a []byte value must be a string literal"},
		{"two arguments", h + `[]byte("a", "b")`, "", "f:2: not a Go fuzzing value"},
		{"not a call", h + `"a"`, "", "f:2: not a Go fuzzing value"},
		{"syntax", h + `[]byte("a`, "", "f:2: not a Go fuzzing value"},
		{"bad escape", h + `[]byte("\z")`, "", "f:2: not a Go fuzzing value"},
		{"trailing", h + `[]byte("a");`, "", "f:2: not a Go fuzzing value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode("f", []byte(tt.in))
			if tt.err == "" {
				if err != nil || string(got) != tt.want {
					t.Errorf("Decode = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			var fe *FormatError
			if err == nil || !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("Decode = %q, %v; want an error starting %q", got, err, tt.err)
			}
		})
	}
}

func TestEncodeGoFuzz(t *testing.T) {
	for in, want := range map[string]string{
		"":              "go test fuzz v1\n[]byte(\"\")\n",
		`{"a":[1,2]}`:   "go test fuzz v1\n[]byte(\"{\\\"a\\\":[1,2]}\")\n",
		"é\xff\n\t\x00": "go test fuzz v1\n[]byte(\"é\\xff\\n\\t\\x00\")\n",
	} {
		if got := string(EncodeGoFuzz([]byte(in))); got != want {
			t.Errorf("EncodeGoFuzz(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteGoFuzz(t *testing.T) {
	dir := GoFuzzDir(t.TempDir(), "FuzzParse")
	if want := filepath.Join("testdata", "fuzz", "FuzzParse"); !strings.HasSuffix(dir, want) {
		t.Errorf("GoFuzzDir = %s, want it to end in %s", dir, want)
	}
	inputs := []string{`{"a":1}`, "\xff", `{"a":1}`, ""}
	paths := map[string]bool{}
	for _, in := range inputs {
		p, err := WriteGoFuzz(dir, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(filepath.Base(p)) {
			t.Errorf("file name %s is not 16 hexadecimal digits", filepath.Base(p))
		}
		got, err := Read(p)
		if err != nil || string(got) != in {
			t.Errorf("Read(WriteGoFuzz(%q)) = %q, %v", in, got, err)
		}
		paths[p] = true
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 || len(paths) != 3 {
		t.Errorf("%d files for 3 distinct inputs (%d paths)", len(entries), len(paths))
	}
}

func TestCheckFuzzTarget(t *testing.T) {
	for name, ok := range map[string]bool{
		"FuzzParse": true, "Fuzz": true, "Fuzz_x": true, "Fuzz2": true, "FuzzÉ": true,
		"Fuzzparse": false, "fuzzParse": false, "Parse": false, "": false, "Fuzz-X": false, "Fuzz/../X": false, "FuzzX Y": false,
	} {
		if err := CheckFuzzTarget(name); (err == nil) != ok {
			t.Errorf("CheckFuzzTarget(%q) = %v, want ok %v", name, err, ok)
		}
	}
}

// FuzzDecode: whatever a file holds, Decode returns a value or a
// *FormatError, never panics; a value encodes to a file that decodes to
// it again, and a canonical file (one EncodeGoFuzz wrote) is unchanged
// by a round trip.
func FuzzDecode(f *testing.F) {
	files, _ := List("testdata/gofuzz")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte(GoFuzzHeader + "\n[]byte(`x`)\n"))
	f.Add([]byte(GoFuzzHeader + "\r\n  []byte(\"\\u00e9\")\n\n"))
	f.Add([]byte(GoFuzzHeader + "\nstring(\"x\")\n"))
	f.Add([]byte("raw input"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode("f", data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || !IsGoFuzz(data) {
				t.Fatalf("Decode(%q): %v, not a FormatError of a Go corpus file", data, err)
			}
			return
		}
		if !IsGoFuzz(data) && !bytes.Equal(v, data) {
			t.Fatalf("Decode(%q) of a raw file = %q", data, v)
		}
		enc := EncodeGoFuzz(v)
		again, err := Decode("f", enc)
		if err != nil || !bytes.Equal(again, v) {
			t.Fatalf("Decode(EncodeGoFuzz(%q)) = %q, %v", v, again, err)
		}
		if IsGoFuzz(data) && bytes.Equal(data, enc) != bytes.Equal(data, EncodeGoFuzz(again)) {
			t.Fatalf("EncodeGoFuzz is not stable on %q", data)
		}
	})
}

// FuzzEncode: every input survives EncodeGoFuzz and Decode unchanged, and
// the encoding is fmt's %q, as Go's engine writes it.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "a", "\xff\x00", "é\u2028\U0001F600", "\"\\`\n\r\t"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		enc := EncodeGoFuzz(b)
		if want := fmt.Sprintf("%s\n[]byte(%q)\n", GoFuzzHeader, b); string(enc) != want {
			t.Fatalf("EncodeGoFuzz(%q) = %q, want %q", b, enc, want)
		}
		got, err := Decode("f", enc)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("Decode(EncodeGoFuzz(%q)) = %q, %v", b, got, err)
		}
	})
}
