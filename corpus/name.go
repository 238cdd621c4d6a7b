package corpus

import (
	"fmt"
	"regexp"
	"strings"
)

// Name is the name of input i (from 0) of n written to a folder, the same
// in every command that writes inputs: 00001.json, 00002.json, ..., with
// more digits when n needs them, so that the names sort in the inputs'
// order. ext is the extension, dot included (Extension).
func Name(i, n int, ext string) string {
	return paddedName(i, n, minNameWidth, ext)
}

// minNameWidth is the fewest digits of an input's file name.
const minNameWidth = 5

// paddedName is Name with at least width digits.
func paddedName(i, n, width int, ext string) string {
	return fmt.Sprintf("%0*d%s", max(len(fmt.Sprint(n)), width), i+1, ext)
}

// Extension is the file extension of the inputs of a grammar, named as
// the user named it: the format's own for the bundled grammars that have
// one (json: .json), else .txt.
func Extension(grammar string) string {
	switch grammar {
	case "json", "xml", "csv", "ini", "url", "expr":
		return "." + grammar
	}
	return ".txt"
}

// unsafeName matches what FolderName replaces.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// FolderName turns a name that may hold any character (a function's,
// encoding/json.(*decodeState).object) into a part of a folder's name
// that holds no separator and is at most 100 bytes long: each run of
// characters other than letters, digits, '.', '_' and '-' becomes '_',
// and of a longer name the end is kept.
func FolderName(name string) string {
	s := strings.Trim(unsafeName.ReplaceAllString(name, "_"), "_")
	if len(s) > 100 {
		s = s[len(s)-100:]
	}
	return s
}

// FunctionFolder is the name of the folder of function i (from 0) of a
// run that writes a folder per function (arbor target --rare): 001-name,
// with FolderName's name.
func FunctionFolder(i int, function string) string {
	return fmt.Sprintf("%03d-%s", i+1, FolderName(function))
}
