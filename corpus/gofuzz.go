package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/internal/atomicfile"
)

// GoFuzzHeader is the first line of a file in Go's fuzzing corpus format
// (version 1, the only one there is).
const GoFuzzHeader = "go test fuzz v1"

// A FormatError reports a file that starts like one in Go's fuzzing
// corpus format but does not hold exactly one []byte value.
type FormatError struct {
	File string // as given to Read or Decode
	Line int    // 1-based; 0 when it is about the whole file
	Msg  string
}

func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// IsGoFuzz reports whether data is in Go's fuzzing corpus format: whether
// its first line is GoFuzzHeader (with or without a carriage return, as
// Go's decoder allows).
func IsGoFuzz(data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return string(bytes.TrimSuffix(line, []byte("\r"))) == GoFuzzHeader
}

// Decode returns the input a file's content holds. Content in Go's
// fuzzing corpus format must hold exactly one value, of type []byte; it
// is read as Go's decoder reads it: lines trimmed of white space, blank
// lines skipped, the value a conversion []byte(s) of one string literal,
// interpreted ("...", the form Go writes) or raw (`...`). Anything else
// (several values, a value of another type, a line that is no such
// conversion) is a *FormatError naming the file and line. Content
// without the header line is the input itself, returned as it is. name
// is the file's name, for errors.
func Decode(name string, data []byte) ([]byte, error) {
	if !IsGoFuzz(data) {
		return data, nil
	}
	var value []byte
	found := 0
	for i, line := range bytes.Split(data, []byte("\n"))[1:] {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		n := i + 2 // the header is line 1
		if found > 0 {
			return nil, &FormatError{name, n, fmt.Sprintf("a second value, but arbor's inputs are one []byte (fuzz targets func(*testing.T, []byte)); the first is on line %d", found)}
		}
		v, err := parseBytes(line)
		if err != nil {
			return nil, &FormatError{name, n, err.Error()}
		}
		value, found = v, n
	}
	if found == 0 {
		return nil, &FormatError{name, 0, "a Go fuzzing corpus file (" + GoFuzzHeader + ") without a value"}
	}
	return value, nil
}

// parseBytes parses one value line as Go's decoder does, accepting only
// []byte values.
func parseBytes(line []byte) ([]byte, error) {
	fset := token.NewFileSet()
	expr, err := parser.ParseExprFrom(fset, "", line, 0)
	if err != nil {
		return nil, fmt.Errorf("not a Go fuzzing value: %v", err)
	}
	call, ok := expr.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, fmt.Errorf("not a Go fuzzing value: want []byte(\"...\"), a conversion of one string literal")
	}
	if at, ok := call.Fun.(*ast.ArrayType); !ok || at.Len != nil || !isIdent(at.Elt, "byte") {
		typ := string(line[fset.Position(call.Fun.Pos()).Offset:fset.Position(call.Fun.End()).Offset])
		return nil, fmt.Errorf("a %s value, but arbor's inputs are []byte (fuzz targets func(*testing.T, []byte))", typ)
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, fmt.Errorf("a []byte value must be a string literal")
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return nil, fmt.Errorf("string literal: %v", err)
	}
	return []byte(s), nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// EncodeGoFuzz returns the file content Go's fuzzing engine writes for an
// input of a fuzz target func(*testing.T, []byte): the header line, then
// []byte(%q) and a newline.
func EncodeGoFuzz(input []byte) []byte {
	b := make([]byte, 0, len(GoFuzzHeader)+len(input)+16)
	b = append(b, GoFuzzHeader+"\n[]byte("...)
	b = strconv.AppendQuote(b, string(input))
	return append(b, ")\n"...)
}

// GoFuzzName is the name Go's fuzzing engine gives a corpus file: the
// first 16 hexadecimal digits of the SHA-256 of its content (the encoded
// file, not the input).
func GoFuzzName(encoded []byte) string {
	sum := sha256.Sum256(encoded)
	return hex.EncodeToString(sum[:8])
}

// GoFuzzDir is the seed corpus folder of the fuzz target named target in
// the Go package in folder pkg: pkg/testdata/fuzz/target.
func GoFuzzDir(pkg, target string) string {
	return filepath.Join(pkg, "testdata", "fuzz", target)
}

// WriteGoFuzz writes input to the folder dir (created if needed) in Go's
// fuzzing corpus format, named as Go names it, and returns the file's
// path. The name depends on the content only, so writing an input that
// is already there changes nothing.
func WriteGoFuzz(dir string, input []byte) (string, error) {
	enc := EncodeGoFuzz(input)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("corpus folder: %w", err)
	}
	path := filepath.Join(dir, GoFuzzName(enc))
	if err := atomicfile.Write(path, enc, 0o644); err != nil {
		return "", fmt.Errorf("write input: %w", err)
	}
	return path, nil
}

// CheckFuzzTarget reports whether name is one `go test` runs as a fuzz
// target, and so may name a seed corpus folder: an identifier starting
// with Fuzz, followed by nothing or by a character that is not a
// lower-case letter (FuzzParse, Fuzz_x, Fuzz).
func CheckFuzzTarget(name string) error {
	rest, ok := strings.CutPrefix(name, "Fuzz")
	r, _ := utf8.DecodeRuneInString(rest)
	if !ok || !token.IsIdentifier(name) || rest != "" && unicode.IsLower(r) {
		return fmt.Errorf("%q is not a fuzz target's name: go test runs functions named Fuzz followed by an upper-case letter, a digit or _ (FuzzParse)", name)
	}
	return nil
}
