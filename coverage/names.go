package coverage

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ShowName returns a file name as it can be printed to a terminal or a
// log: the name itself if it is plain, else quoted as a Go string
// (strconv.Quote). A file name may hold any byte but / and NUL, so an
// input named with an escape sequence, printed raw, would rewrite the
// user's terminal; a name in invalid UTF-8, or with characters that show
// as nothing or reorder the text (a right-to-left override), would be
// misread. Plain is valid UTF-8 of printable characters (strconv.IsPrint:
// letters, marks, numbers, punctuation, symbols and the ASCII space),
// neither empty nor starting or ending with a space, and not starting
// with a double quote, so that a quoted name cannot be taken for a plain
// one.
func ShowName(name string) string {
	if plainName(name) {
		return name
	}
	return strconv.Quote(name)
}

// plainName reports whether ShowName prints name as it is.
func plainName(name string) bool {
	if name == "" || name[0] == ' ' || name[0] == '"' || name[len(name)-1] == ' ' {
		return false
	}
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			// Most names are ASCII: no decoding, no table.
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}

// ShowText returns a message for a terminal: every character that is
// not printable (strconv.IsPrint) but a newline or a tab, and every byte
// of invalid UTF-8, written as a Go escape (\x1b, \u200b, \xff), the
// rest as it is. It is for messages made elsewhere that may hold a file
// name, such as an *fs.PathError's; names a message is made from go
// through ShowName.
func ShowText(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && (r == utf8.RuneError || !strconv.IsPrint(r)) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for s = s[i:]; s != ""; {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[0])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[0])&15, 16))
		case r == '\n' || r == '\t' || strconv.IsPrint(r):
			b.WriteString(s[:n])
		default:
			q := strconv.QuoteRune(r) // '\x1b', '\u200b'
			b.WriteString(q[1 : len(q)-1])
		}
		s = s[n:]
	}
	return b.String()
}
