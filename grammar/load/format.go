package load

import (
	"path"
	"strings"
)

// Format is the notation a grammar file is written in.
type Format int

const (
	Arbor Format = iota // arbor's notation (.grammar)
	ANTLR               // ANTLR 4 (.g4)
	JSON                // fuzzingbook-style JSON (.json)
)

// String is the name arbor's commands give the format: arbor, g4 or
// json.
func (f Format) String() string {
	switch f {
	case ANTLR:
		return "g4"
	case JSON:
		return "json"
	}
	return "arbor"
}

// DetectFormat tells a grammar file's notation by its extension (.g4,
// .json, .grammar) or, for any other name, by its content: a JSON object
// is JSON, text that starts with "grammar", "lexer grammar" or "parser
// grammar" after comments is ANTLR, anything else arbor's notation.
func DetectFormat(filename string, src []byte) Format {
	switch strings.ToLower(path.Ext(strings.ReplaceAll(filename, `\`, "/"))) {
	case ".g4":
		return ANTLR
	case ".json":
		return JSON
	case ".grammar":
		return Arbor
	}
	s := skipComments(string(src))
	switch {
	case strings.HasPrefix(s, "{"):
		return JSON
	case hasWord(s, "grammar"), strings.HasPrefix(s, "lexer") && hasWord(skipComments(s[5:]), "grammar"),
		strings.HasPrefix(s, "parser") && hasWord(skipComments(s[6:]), "grammar"):
		return ANTLR
	}
	return Arbor
}

// hasWord reports whether s starts with the word w: w followed by white
// space or a comment.
func hasWord(s, w string) bool {
	rest, ok := strings.CutPrefix(s, w)
	return ok && rest != "" && strings.ContainsRune(" \t\r\n/", rune(rest[0]))
}

// skipComments drops leading white space and // and /* */ comments.
func skipComments(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n\ufeff")
		switch {
		case strings.HasPrefix(s, "//"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return ""
			}
			s = s[i+4:]
		default:
			return s
		}
	}
}
