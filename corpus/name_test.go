package corpus

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for _, tt := range []struct {
		i, n int
		ext  string
		want string
	}{
		{0, 1, ".json", "00001.json"},
		{9, 10, ".xml", "00010.xml"},
		{99998, 99999, ".txt", "99999.txt"},
		{0, 100000, ".txt", "000001.txt"},
		{99999, 123456, ".xml", "100000.xml"},
		{4, 5, "", "00005"},
	} {
		if got := Name(tt.i, tt.n, tt.ext); got != tt.want {
			t.Errorf("Name(%d, %d, %q) = %q, want %q", tt.i, tt.n, tt.ext, got, tt.want)
		}
	}
}

func TestExtension(t *testing.T) {
	for grammar, want := range map[string]string{
		"json": ".json", "xml": ".xml", "csv": ".csv", "ini": ".ini", "url": ".url", "expr": ".expr",
		"toml": ".txt", "my.grammar": ".txt", "dir/json": ".txt", "": ".txt",
	} {
		if got := Extension(grammar); got != want {
			t.Errorf("Extension(%q) = %q, want %q", grammar, got, want)
		}
	}
}

func TestFolderName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"encoding/json.(*decodeState).object", "encoding_json._decodeState_.object"},
		{"regexp/syntax.addSpan", "regexp_syntax.addSpan"},
		{"../../etc", ".._.._etc"},
		{"/abs", "abs"},
		{strings.Repeat("a", 300) + "z", strings.Repeat("a", 99) + "z"},
	} {
		got := FolderName(tt.in)
		if got != tt.want {
			t.Errorf("FolderName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.ContainsRune(got, filepath.Separator) || len(got) > 100 {
			t.Errorf("FolderName(%q) = %q: not one folder name", tt.in, got)
		}
	}
	if got := FunctionFolder(6, "p.(*T).m"); got != "007-p._T_.m" {
		t.Errorf("FunctionFolder = %q", got)
	}
	if got := FunctionFolder(1233, "f"); got != "1234-f" {
		t.Errorf("FunctionFolder = %q", got)
	}
}

func TestLayout(t *testing.T) {
	for _, tt := range []struct {
		name              string
		l                 Layout
		input, side, lock string
		gofuzz            bool
	}{
		{"raw", Layout{Ext: ".json"}, "out", "out/manifest.jsonl", "out/.lock", false},
		{"gofuzz", Layout{Ext: ".json", FuzzTarget: "FuzzX"}, "out/testdata/fuzz/FuzzX", "out/testdata/fuzz/FuzzX.manifest.jsonl",
			"out/testdata/fuzz/FuzzX.lock", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.GoFuzz(); got != tt.gofuzz {
				t.Errorf("GoFuzz() = %v", got)
			}
			if got := tt.l.InputDir("out"); got != filepath.FromSlash(tt.input) {
				t.Errorf("InputDir = %q, want %q", got, tt.input)
			}
			if got := tt.l.SideFile("out", "manifest.jsonl"); got != filepath.FromSlash(tt.side) {
				t.Errorf("SideFile = %q, want %q", got, tt.side)
			}
			if got := tt.l.LockFile("out"); got != filepath.FromSlash(tt.lock) {
				t.Errorf("LockFile = %q, want %q", got, tt.lock)
			}
		})
	}
}
