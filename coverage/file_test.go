package coverage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFileLines (issue 14, item 9): a blank line does not make a
// coverage file unreadable; an input recorded twice alike is read once;
// an input recorded twice with different coverage is refused, since
// training on both would learn a contradiction.
func TestReadFileLines(t *testing.T) {
	const header = `{"arbor":"coverage","version":1,"subject":"s","functions":["f","g"]}`
	tests := []struct {
		name    string
		lines   []string
		records int
		err     string
	}{
		{"blank lines", []string{header, `{"input":"a","sha256":"aa","covered":[0],"outcome":"ok"}`, "", "  ", `{"input":"b","sha256":"bb","covered":[1],"outcome":"ok"}`}, 2, ""},
		{"the same twice", []string{header, `{"input":"a","sha256":"aa","covered":[0],"outcome":"ok"}`, `{"input":"a2","sha256":"aa","covered":[0],"outcome":"ok"}`}, 1, ""},
		{"other coverage", []string{header, `{"input":"a","sha256":"aa","covered":[0],"outcome":"ok"}`, `{"input":"a","sha256":"aa","covered":[0,1],"outcome":"ok"}`}, 0, ":3: input aa was recorded at line 2 with other coverage"},
		{"other outcome", []string{header, `{"input":"a","sha256":"aa","covered":[0],"outcome":"ok"}`, `{"input":"a","sha256":"aa","covered":[0],"outcome":"error"}`}, 0, "other coverage or outcome"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.jsonl")
			os.WriteFile(path, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o644)
			f, err := ReadFile(path)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one with %q", err, tt.err)
				}
			case err != nil:
				t.Fatal(err)
			case len(f.Records) != tt.records:
				t.Errorf("%d records, want %d", len(f.Records), tt.records)
			}
		})
	}
}
