package coverage

import "testing"

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in       string
		pkg, fn  string
		wantFail bool
	}{
		{in: "encoding/json.Valid", pkg: "encoding/json", fn: "Valid"},
		{in: "example.com/w.Run", pkg: "example.com/w", fn: "Run"},
		{in: "gopkg.in/yaml.v3.Unmarshal", pkg: "gopkg.in/yaml.v3", fn: "Unmarshal"},
		{in: "strings.ToUpper", pkg: "strings", fn: "ToUpper"},
		{in: "encoding/json", wantFail: true},
		{in: "example.com/w.", wantFail: true},
		{in: ".Run", wantFail: true},
		{in: "", wantFail: true},
	}
	for _, tt := range tests {
		got, err := ParseTarget(tt.in)
		if tt.wantFail {
			if err == nil {
				t.Errorf("ParseTarget(%q) = %+v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got.ImportPath != tt.pkg || got.Func != tt.fn {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %s and %s", tt.in, got, err, tt.pkg, tt.fn)
		}
	}
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"encoding/json.Valid", "a.b", "x/y.z.w", "", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTarget(s)
		if err == nil && (got.String() != s || got.Func == "" || got.ImportPath == "") {
			t.Errorf("ParseTarget(%q) = %+v", s, got)
		}
	})
}
