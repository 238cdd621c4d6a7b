package coverage

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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

// TestReadFileChecks (issue 29, item 11): what a coverage file says is
// checked before anything is trained on it: a version this arbor does not
// read is refused, naming the version found and the one read; a record
// whose counts do not pair with its covered functions, or which lists a
// function twice or out of order, is refused with its line.
func TestReadFileChecks(t *testing.T) {
	const header = `{"arbor":"coverage","version":1,"subject":"s","functions":["f","g","h"]}`
	rec := func(covered, counts string) string {
		s := `{"input":"a","sha256":"aa","covered":` + covered
		if counts != "" {
			s += `,"counts":` + counts
		}
		return s + `,"outcome":"ok","ms":0}`
	}
	tests := []struct {
		name  string
		lines []string
		err   string // "" if the file is read
	}{
		{"version 1", []string{header, rec("[0,2]", "[1,5]")}, ""},
		{"no counts", []string{header, rec("[0,1,2]", "")}, ""},
		{"no functions covered", []string{header, rec("[]", "[]")}, ""},
		{"version 99", []string{strings.Replace(header, `"version":1`, `"version":99`, 1), rec("[0]", "")},
			"c.jsonl:1: coverage file version 99; this arbor reads version 1"},
		{"version 0", []string{strings.Replace(header, `"version":1`, `"version":0`, 1), rec("[0]", "")},
			"c.jsonl:1: coverage file version 0; this arbor reads version 1"},
		{"no version", []string{strings.Replace(header, `"version":1,`, ``, 1), rec("[0]", "")},
			"c.jsonl:1: coverage file version 0; this arbor reads version 1"},
		{"a count too many", []string{header, rec("[0]", "[1,2]")}, "c.jsonl:2: 2 counts for 1 covered functions"},
		{"a count too few", []string{header, rec("[0,1,2]", "[1,2]")}, "c.jsonl:2: 2 counts for 3 covered functions"},
		{"counts without functions", []string{header, rec("[]", "[7]")}, "c.jsonl:2: 1 counts for 0 covered functions"},
		{"wrong length in the slow path", []string{header, `{"sha256":"aa","input":"a","covered":[1],"counts":[],"outcome":"ok","ms":0}`},
			"c.jsonl:2: 0 counts for 1 covered functions"},
		{"a function twice", []string{header, rec("[0]", ""), `{"input":"b","sha256":"bb","covered":[1,1],"outcome":"ok","ms":0}`},
			"c.jsonl:3: function 1 is listed twice"},
		{"out of order", []string{header, rec("[2,0]", "")}, "c.jsonl:2: functions out of order (0 after 2)"},
		{"negative", []string{header, rec("[-1]", "")}, "c.jsonl:2: function -1 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.jsonl")
			os.WriteFile(path, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o644)
			_, err := ReadFile(path)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want one with %q", err, tt.err)
			}
			// A recording cannot be appended to such a file either.
			w, err := OpenWriter(context.Background(), path, NewHeader("s", []string{"f", "g", "h"}), false)
			if err == nil {
				w.Close()
				t.Errorf("OpenWriter appends to it")
			} else if !strings.Contains(err.Error(), tt.err) {
				t.Errorf("OpenWriter: %v, want an error with %q", err, tt.err)
			}
		})
	}
}

// TestMergeVersion (issue 29, item 11): merge refuses a file of another
// version naming that version, not as "not an arbor coverage file
// (version 1)".
func TestMergeVersion(t *testing.T) {
	dir := t.TempDir()
	const line = `{"input":"a","sha256":"aa","covered":[0],"outcome":"ok","ms":0}` + "\n"
	v1 := filepath.Join(dir, "v1.jsonl")
	v99 := filepath.Join(dir, "v99.jsonl")
	os.WriteFile(v1, []byte(`{"arbor":"coverage","version":1,"subject":"s","functions":["f"]}`+"\n"+line), 0o644)
	os.WriteFile(v99, []byte(`{"arbor":"coverage","version":99,"subject":"s","functions":["f"]}`+"\n"+line), 0o644)
	_, err := Merge(context.Background(), filepath.Join(dir, "out.jsonl"), []string{v1, v99}, false)
	if err == nil || !strings.Contains(err.Error(), "version 99") || !strings.Contains(err.Error(), "reads version 1") {
		t.Errorf("merge: %v, want an error naming version 99 and version 1", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); err == nil {
		t.Errorf("merge wrote its output")
	}
}

// TestInputNames (issue 29, item 11): an input's file name is whatever
// bytes the file system holds; a record keeps it exactly, through a
// Writer, ReadFile and Merge, also when it is not valid UTF-8 (which a
// JSON string cannot hold: the record adds input_bytes), and records of
// valid names are written as before.
func TestInputNames(t *testing.T) {
	names := []string{"plain.json", "dir/ü.txt", "tab\there", "esc\x1b[2Jape", "bad\xff\xfeutf8", "\x80", "\"quoted\""}
	dir := t.TempDir()
	path := filepath.Join(dir, "c.jsonl")
	w, err := OpenWriter(context.Background(), path, NewHeader("s", []string{"f"}), false)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		if err := w.Write(Record{Input: n, SHA256: fmt.Sprintf("%02d", i), Covered: []int{0}, Counts: []uint32{1}, Outcome: OK}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	text, _ := os.ReadFile(path)
	if !strings.Contains(string(text), `{"input":"plain.json","sha256":"00","covered":[0],"counts":[1],"outcome":"ok","ms":0}`+"\n") {
		t.Errorf("a valid name is not written as before:\n%s", text)
	}
	if n := strings.Count(string(text), `"input_bytes":`); n != 2 {
		t.Errorf("%d records with input_bytes, want 2:\n%s", n, text)
	}
	check := func(what string, recs []Record) {
		t.Helper()
		got := map[string]bool{}
		for _, r := range recs {
			got[r.Input] = true
		}
		for _, n := range names {
			if !got[n] {
				t.Errorf("%s: no record names %q; names: %q", what, n, slices.Sorted(maps.Keys(got)))
			}
		}
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	check("ReadFile", f.Records)
	merged, err := Merge(context.Background(), filepath.Join(dir, "m.jsonl"), []string{path}, false)
	if err != nil {
		t.Fatal(err)
	}
	check("Merge", merged.Records)
	f, err = ReadFile(filepath.Join(dir, "m.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	check("ReadFile of the merged file", f.Records)
}

// FuzzReadRecords (issue 29, item 11): whatever a coverage file holds,
// reading it does not panic, and what it accepts is what the file format
// promises: a header of this version, records whose covered functions are
// in range, sorted and each once, with one count each or none. Written
// again, the records read back the same, names included.
func FuzzReadRecords(f *testing.F) {
	const header = `{"arbor":"coverage","version":1,"subject":"s","functions":["f","g","h"]}` + "\n"
	f.Add(header + `{"input":"a","sha256":"aa","covered":[0,2],"counts":[1,3],"outcome":"ok","ms":0.5}` + "\n")
	f.Add(header + `{"input":"b\u001b","sha256":"bb","covered":[1],"outcome":"error","ms":1,"error":"x"}` + "\n" +
		`{"input":"\ufffd","sha256":"cc","covered":[],"outcome":"ok","ms":0,"input_bytes":"/w=="}` + "\n")
	f.Add(header + `{"input":"a","sha256":"aa","covered":[2,2],"counts":[1],"outcome":"ok","ms":0}` + "\n")
	f.Add(`{"arbor":"coverage","version":99,"subject":"s","functions":[]}` + "\n")
	f.Fuzz(func(t *testing.T, data string) {
		h, recs, err := readRecords(strings.NewReader(data), "c", len(data), 64)
		if err != nil {
			return
		}
		if h.Version != FileVersion {
			t.Fatalf("read a file of version %d", h.Version)
		}
		var b strings.Builder
		line, _ := json.Marshal(h)
		b.Write(append(line, '\n'))
		for _, r := range recs {
			if err := r.check(len(h.Functions)); err != nil {
				t.Fatalf("accepted a record that fails its check: %v", err)
			}
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(append(line, '\n'))
		}
		_, again, err := readRecords(strings.NewReader(b.String()), "c", b.Len(), 64)
		if err != nil {
			t.Fatalf("records written again do not read: %v\n%s", err, b.String())
		}
		if len(again) != len(recs) {
			t.Fatalf("%d records written again, %d read", len(recs), len(again))
		}
		for i := range recs {
			if again[i].Input != recs[i].Input || again[i].SHA256 != recs[i].SHA256 || !slices.Equal(again[i].Covered, recs[i].Covered) {
				t.Fatalf("record %d written again: %+v, read back %+v", i, recs[i], again[i])
			}
		}
	})
}
