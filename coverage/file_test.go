package coverage

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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

// TestDecodeRecord: the decoder of lines as Writer writes them gives
// exactly what encoding/json gives (nil and empty slices alike), and
// leaves every other line to it.
func TestDecodeRecord(t *testing.T) {
	tests := []struct {
		line string
		fast bool // decoded without encoding/json
	}{
		{`{"input":"a/b.json","sha256":"3df1","covered":[1,6,8],"counts":[1,2,40],"outcome":"ok","ms":0.003}`, true},
		{`{"input":"a","sha256":"aa","covered":[],"outcome":"error","ms":12,"error":"bad input"}`, true},
		{`{"input":"a","sha256":"aa","covered":[0],"outcome":"panic","ms":1e-3,"error":"x","stack":"abc"}`, true},
		{`{"input":"a","sha256":"aa","covered":[-0,-3],"outcome":"timeout","ms":-0.5E+2}`, true},
		{`{"input":"ü","sha256":"aa","covered":[0],"outcome":"new kind","ms":0}`, true},
		{`{"input":"a\"b\u00e9\n","sha256":"aa","covered":[0],"outcome":"ok","ms":0,"error":"\u003cx\u003e"}`, true},
		{"{\"input\":\"\xff\xfe\",\"sha256\":\"aa\",\"covered\":[0],\"outcome\":\"ok\",\"ms\":0}", true},
		{`{"input":"a","sha256":"aa","covered":[123456789012345678],"outcome":"ok","ms":0}`, true},
		// Left to encoding/json, which decodes or refuses them.
		{`{"input":"a","sha256":"aa","covered":null,"outcome":"ok","ms":0}`, false},
		{`{"sha256":"aa","input":"a","covered":[0],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"outcome":"ok"}`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"outcome":"ok","ms":0,"extra":1}`, false},
		{`{"Input":"a","sha256":"aa","covered":[0],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[ 0],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"outcome":"ok","ms":0} `, false},
		{`{"input":"a","sha256":"aa","covered":[1e2],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[1.0],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[01],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[1234567890123456789],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[99999999999999999999],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"counts":[-1],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"counts":[-0],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"counts":[4294967296],"outcome":"ok","ms":0}`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"outcome":"ok","ms":1e400}`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"outcome":"ok","ms":.5}`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"outcome":"ok","ms":1.}`, false},
		{`{"input":"a","sha256":"aa","covered":[0,],"outcome":"ok","ms":0}`, false},
		{"{\"input\":\"a\tb\",\"sha256\":\"aa\",\"covered\":[0],\"outcome\":\"ok\",\"ms\":0}", false},
		{`{"input":"a","sha256":"aa","covered":[0],"outcome":"ok","ms":0`, false},
		{`{"input":"a","sha256":"aa","covered":[0],"outcome":"ok","ms":0,"error":3}`, false},
	}
	for _, tt := range tests {
		var want Record
		wantErr := json.Unmarshal([]byte(tt.line), &want)
		var got Record
		var a recordAlloc
		fast := a.decode([]byte(tt.line), &got)
		a.finish()
		if fast != tt.fast {
			t.Errorf("%s: decoded without encoding/json: %v, want %v", tt.line, fast, tt.fast)
		}
		if fast && (wantErr != nil || !reflect.DeepEqual(got, want)) {
			t.Errorf("%s:\ndecoded %#v\nencoding/json %#v (%v)", tt.line, got, want, wantErr)
		}
	}
}

// FuzzDecodeRecord: whatever the line, a record decoded without
// encoding/json is the one encoding/json decodes.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(`{"input":"a/b.json","sha256":"3df1","covered":[1,6,8],"counts":[1,2,40],"outcome":"ok","ms":0.003}`)
	f.Add(`{"input":"a\"b","sha256":"aa","covered":[],"outcome":"panic","ms":-1.5e3,"error":"x\u003c","stack":"abc"}`)
	f.Fuzz(func(t *testing.T, line string) {
		var got Record
		var a recordAlloc
		if !a.decode([]byte(line), &got) {
			return
		}
		a.finish()
		var want Record
		if err := json.Unmarshal([]byte(line), &want); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\ndecoded %#v\nencoding/json %#v (%v)", line, got, want, err)
		}
	})
}

// TestReadRecordsSegments: a file read in segments of any size, lines
// cut at their ends or longer than one, reads as it does at once: the
// same records, the same first error, a last line without a newline
// left out.
func TestReadRecordsSegments(t *testing.T) {
	const header = `{"arbor":"coverage","version":1,"subject":"s","functions":["f","g","h"]}`
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf(`{"input":"in%d","sha256":"%x","covered":[%d],"counts":[%d],"outcome":"ok","ms":0.5}`, i, i%31, i%31%3, i))
		if i%7 == 3 {
			lines = append(lines, "", `{"sha256":"x","input":"reordered","covered":[2],"outcome":"error","ms":1,"error":"`+strings.Repeat("long ", i)+`"}`)
		}
	}
	good := header + "\n" + strings.Join(lines, "\n") + "\n" + `{"input":"cut`
	bad := header + "\n" + strings.Join(lines[:20], "\n") + "\n" + `{"input":"z","sha256":"zz","covered":[3],"outcome":"ok","ms":0}` + "\n" + strings.Join(lines[20:], "\n") + "\n"
	for _, data := range []string{good, bad} {
		wantH, want, wantErr := readRecords(strings.NewReader(data), "c", len(data), len(data)+1)
		if data == good && (wantErr != nil || len(want) != 32) {
			t.Fatalf("%d records (%v), want 32", len(want), wantErr)
		}
		if data == bad && (wantErr == nil || !strings.Contains(wantErr.Error(), "c:22: function 3 out of range")) {
			t.Fatalf("error %v, want one at line 22", wantErr)
		}
		for _, seg := range []int{1, 7, 64, 100, 1000, 4096} {
			h, recs, err := readRecords(strings.NewReader(data), "c", 0, seg)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(h, wantH) || !reflect.DeepEqual(recs, want) {
				t.Errorf("segments of %d bytes: %d records (%v), want %d (%v)", seg, len(recs), err, len(want), wantErr)
			}
		}
	}
}
