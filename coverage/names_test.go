package coverage

import (
	"strings"
	"testing"
)

// TestShowName (issue 29, item 11): a name is printed as it is unless it
// could rewrite the terminal, hide characters or be misread; then it is
// quoted, and the quoted form holds no control character.
func TestShowName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"corpus/00001.json", "corpus/00001.json"},
		{"dir with spaces/ü.txt", "dir with spaces/ü.txt"},
		{"日本語", "日本語"},
		{"it's (1)", "it's (1)"},
		{"a\x1b[2Jb", `"a\x1b[2Jb"`},
		{"line\nbreak", `"line\nbreak"`},
		{"tab\t", `"tab\t"`},
		{"bell\a", `"bell\a"`},
		{"del\x7f", `"del\x7f"`},
		{"c1\u009b31m", `"c1\u009b31m"`},
		{"bad\xff", `"bad\xff"`},
		{"\x9b", `"\x9b"`},
		{"rtl\u202egnp.exe", `"rtl\u202egnp.exe"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"", `""`},
		{" lead", `" lead"`},
		{"trail ", `"trail "`},
		{`"quoted"`, `"\"quoted\""`},
		{"in\"side", "in\"side"},
	}
	for _, tt := range tests {
		if got := ShowName(tt.name); got != tt.want {
			t.Errorf("ShowName(%q) = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestShowText: a message keeps its lines and printable text, and
// shows every other character as an escape.
func TestShowText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"open a.txt: permission denied", "open a.txt: permission denied"},
		{"two\nlines\tand tab", "two\nlines\tand tab"},
		{"open a\x1b]0;pwned\a: denied", `open a\x1b]0;pwned\a: denied`},
		{"bad \xff\xfe bytes", `bad \xff\xfe bytes`},
		{"ok \ufffd replacement", "ok \ufffd replacement"},
		{"c1 \u009b and \u202e", `c1 \u009b and \u202e`},
	}
	for _, tt := range tests {
		got := ShowText(tt.in)
		if got != tt.want {
			t.Errorf("ShowText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		for _, c := range []string{"\x1b", "\a", "\xc2\x9b", "\xff"} {
			if strings.Contains(got, c) {
				t.Errorf("ShowText(%q) keeps %q", tt.in, c)
			}
		}
	}
}
