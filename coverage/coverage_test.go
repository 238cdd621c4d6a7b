package coverage

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

func testBinaryB(b *testing.B) *Binary {
	dir, _ := filepath.Abs("testdata/mod")
	bin, err := Build(context.Background(), Target{ImportPath: "example.com/covtest/lib", Func: "Parse", Dir: dir}, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return bin
}

// testBinary builds the harness for a function of testdata/mod/lib once per test binary.
func testBinary(t *testing.T, fn string) *Binary {
	t.Helper()
	testenv.NeedTool(t, "go", "Go 1.24 or newer, https://go.dev/doc/install")
	dir, _ := filepath.Abs("testdata/mod")
	bin, err := Build(context.Background(), Target{ImportPath: "example.com/covtest/lib", Func: fn, Dir: dir}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestSession(t *testing.T) {
	bin := testBinary(t, "Parse")
	s, err := Start(bin, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := []string{"example.com/covtest/lib.NoError", "example.com/covtest/lib.Parse", "example.com/covtest/lib.Wrong",
		"example.com/covtest/lib.accept", "example.com/covtest/lib.fill", "example.com/covtest/lib.reject", "example.com/covtest/lib.sortBytes"}
	if !slices.Equal(s.Funcs.Names, want) {
		t.Fatalf("functions %v, want %v (closures folded, harness excluded)", s.Funcs.Names, want)
	}
	names := func(r *Result) string {
		var n []string
		for _, id := range r.Covered {
			n = append(n, strings.TrimPrefix(s.Funcs.Names[id], "example.com/covtest/lib."))
		}
		return strings.Join(n, ",")
	}
	tests := []struct {
		input   string
		outcome Outcome
		covered string
		message string
	}{
		{"abc", OK, "Parse,accept,fill", ""}, // first run in the process fills the cache
		{"abd", OK, "Parse,accept", ""},
		{"xyz", Error, "Parse,reject", "rejected xyz"},
		{"", Error, "Parse", "empty input"},
		{"sdcba", OK, "Parse,sortBytes", ""}, // the sort.Slice closure folds into sortBytes
		{"p", Panic, "Parse", "assignment to entry in nil map"},
		{"h", Timeout, "", "no result after"},
		{"abe", OK, "Parse,accept,fill", ""}, // a new process after the timeout: cold cache again
		{"c", Panic, "", "exit"},
		{"abf", OK, "Parse,accept,fill", ""},
	}
	for _, tt := range tests {
		r, err := s.Record([]byte(tt.input), 300*time.Millisecond)
		if err != nil {
			t.Fatalf("%q: %v", tt.input, err)
		}
		if r.Outcome != tt.outcome || names(r) != tt.covered || !strings.Contains(r.Message, tt.message) {
			t.Errorf("%q: %s [%s] %q, want %s [%s] %q", tt.input, r.Outcome, names(r), r.Message, tt.outcome, tt.covered, tt.message)
		}
		if tt.input == "p" && (r.Stack == "" || !strings.Contains(r.Frames, "lib.Parse")) {
			t.Errorf("panic frames %q, hash %q", r.Frames, r.Stack)
		}
	}
	// Blocks: ids are distinct and within the total.
	s.Blocks = true
	r, _ := s.Record([]byte("sdcba"), time.Second)
	seenBlocks := map[int]bool{}
	for _, b := range r.Blocks {
		if b < 0 || b >= s.Funcs.Blocks || seenBlocks[b] {
			t.Fatalf("block %d of %d", b, s.Funcs.Blocks)
		}
		seenBlocks[b] = true
	}
	if len(r.Blocks) < len(r.Covered) {
		t.Errorf("%d blocks for %d functions", len(r.Blocks), len(r.Covered))
	}
	s.Blocks = false
	// Warm-up removes the once-per-process function from later records.
	if _, err := s.WarmUp([]byte("zz"), time.Second); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Record([]byte("zz"), time.Second); names(r) != "Parse,accept" {
		t.Errorf("after warm-up: %s", names(r))
	}
}

func TestSignatures(t *testing.T) {
	if _, err := Start(testBinary(t, "Wrong"), RunOptions{}); err == nil || !strings.Contains(err.Error(), "has type func(string) bool; arbor needs func([]byte) error or func([]byte)") {
		t.Errorf("wrong signature: %v", err)
	}
	s, err := Start(testBinary(t, "NoError"), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, err := s.Record([]byte("x"), time.Second); err != nil || r.Outcome != OK || len(r.Covered) != 1 {
		t.Errorf("func([]byte) subject: %+v %v", r, err)
	}
	dir, _ := filepath.Abs("testdata/mod")
	_, err = Build(context.Background(), Target{ImportPath: "example.com/covtest/nosuch", Func: "F", Dir: dir}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "example.com/covtest/nosuch") {
		t.Errorf("unknown package: %v", err)
	}
	_, err = Build(context.Background(), Target{ImportPath: "example.com/covtest/lib", Func: "Missing", Dir: dir}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "has no exported function Missing; of type func([]byte) error or func([]byte) it has: NoError, Parse") {
		t.Errorf("unknown function: %v", err)
	}
}

func TestBuildCache(t *testing.T) {
	dir, _ := filepath.Abs("testdata/mod")
	cache := t.TempDir()
	target := Target{ImportPath: "example.com/covtest/lib", Func: "Parse", Dir: dir}
	a, err := Build(context.Background(), target, cache)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(context.Background(), target, cache)
	if err != nil {
		t.Fatal(err)
	}
	if a.Cached || !b.Cached || a.Path != b.Path {
		t.Errorf("second build not taken from the cache: %+v %+v", a, b)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "_arbor_harness") {
			t.Errorf("harness directory %s left in the module", e.Name())
		}
	}
}

// TestDecoderAgainstCovdata runs the harness with GOCOVERDIR set, so the
// runtime also writes its own meta-data and counter files, and compares
// our decoding of exactly those files with 'go tool covdata func'.
func TestDecoderAgainstCovdata(t *testing.T) {
	bin := testBinary(t, "Parse")
	covdir := t.TempDir()
	cmd := exec.Command(bin.Path)
	cmd.Env = append(os.Environ(), "GOCOVERDIR="+covdir)
	// The harness speaks on fds 3 (requests), 4 (replies) and 5 (the
	// parent, whose closing ends it), as a Session gives them. Without
	// them it found fds 3 to 5 closed: it ran no input, and exited with
	// status 3 whenever its watch of fd 5 won the race with main.
	reqR, reqW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	parR, parW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer parW.Close()
	cmd.ExtraFiles = []*os.File{reqR, repW, parR}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reqR.Close()
	repW.Close()
	parR.Close()
	rd := bufio.NewReader(repR)
	if line, _ := rd.ReadString('\n'); line != "ARBOR1\n" {
		t.Fatalf("the harness says %q", line)
	}
	rd.ReadString('\n')
	for _, in := range []string{"abc", "xq", "sba"} {
		var hdr [requestHeader]byte // kind, token (any here), length
		hdr[0] = 'W'                // counters accumulate: the exit-time file holds all three runs
		binary.LittleEndian.PutUint32(hdr[1+tokenSize:], uint32(len(in)))
		reqW.Write(append(hdr[:], in...))
	}
	reqW.Write(append([]byte{'Q'}, make([]byte, requestHeader-1)...))
	reqW.Close()
	go func() { _, _ = rd.WriteTo(discard{}) }()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	metaFiles, _ := filepath.Glob(filepath.Join(covdir, "covmeta.*"))
	ctrFiles, _ := filepath.Glob(filepath.Join(covdir, "covcounters.*"))
	if len(metaFiles) != 1 || len(ctrFiles) != 1 {
		t.Fatalf("coverage files: %v %v", metaFiles, ctrFiles)
	}
	metaBlob, _ := os.ReadFile(metaFiles[0])
	ctrBlob, _ := os.ReadFile(ctrFiles[0])
	meta, err := DecodeMeta(metaBlob)
	if err != nil {
		t.Fatal(err)
	}
	// Statement coverage per function, as covdata computes it.
	type key struct{ pkg, fn uint32 }
	hit := map[key][]uint32{}
	err = DecodeCounters(ctrBlob, &meta.Hash, func(pkg, fn uint32, c []uint32) {
		hit[key{pkg, fn}] = append([]uint32(nil), c...)
	})
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]string{}
	for pi, p := range meta.Packages {
		for fi, f := range p.Funcs {
			var total, covered uint32
			c := hit[key{uint32(pi), uint32(fi)}]
			for u, unit := range f.Units {
				total += unit.NxStmts
				if u < len(c) && c[u] != 0 {
					covered += unit.NxStmts
				}
			}
			pct := 0.0
			if total > 0 {
				pct = 100 * float64(covered) / float64(total)
			}
			ours[f.Name] = strconv.FormatFloat(pct, 'f', 1, 64)
		}
	}
	out, err := exec.Command("go", "tool", "covdata", "func", "-i="+covdir).CombinedOutput()
	if err != nil {
		t.Fatalf("covdata: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`^\S+:\d+:\s+(\S+)\s+([\d.]+)%$`)
	compared := 0
	for _, l := range strings.Split(string(out), "\n") {
		m := line.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		compared++
		if ours[m[1]] != m[2] {
			t.Errorf("%s: covdata %s%%, decoder %s%%", m[1], m[2], ours[m[1]])
		}
	}
	if compared < 6 {
		t.Fatalf("compared only %d functions:\n%s", compared, out)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestDecodeRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("x"), make([]byte, 200), append(append([]byte{}, counterMagic[:]...), make([]byte, 60)...)} {
		if _, err := DecodeMeta(b); err == nil {
			t.Errorf("DecodeMeta accepted %q", b)
		}
		if err := DecodeCounters(b, nil, func(uint32, uint32, []uint32) {}); err == nil {
			t.Errorf("DecodeCounters accepted %q", b)
		}
	}
}

func writeInputs(t *testing.T, inputs map[string]string) (dir string, files []string) {
	dir = t.TempDir()
	for name, data := range inputs {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	slices.Sort(files)
	return dir, files
}

func TestRecordResumeShardsMerge(t *testing.T) {
	bin := testBinary(t, "Parse")
	_, files := writeInputs(t, map[string]string{"1": "abc", "2": "xyz", "3": "", "4": "sba", "5": "p", "6": "abd", "7": "abc"})
	files = append(files, filepath.Join(t.TempDir(), "missing"))
	out := filepath.Join(t.TempDir(), "cov.jsonl")
	var warnings []string
	opts := Options{Subject: "covtest", Timeout: time.Second, Warn: func(err error) { warnings = append(warnings, err.Error()) }}
	sum, err := RecordInputs(context.Background(), bin, files, out, opts)
	if err != nil {
		t.Fatal(err)
	}
	// 7 files, one a duplicate of another, one missing.
	if sum.Recorded != 6 || sum.Duplicates != 1 || sum.Unreadable != 1 || len(warnings) != 1 || sum.Outcomes[OK] != 3 || sum.Outcomes[Error] != 2 || sum.Outcomes[Panic] != 1 {
		t.Fatalf("summary %+v, warnings %v", sum, warnings)
	}
	if sum.AlwaysCovered != 1 || sum.NeverCovered != 3 || sum.EverCovered != 4 { // Parse always; NoError, Wrong, fill never after warm-up
		t.Errorf("function summary: ever %d always %d never %d", sum.EverCovered, sum.AlwaysCovered, sum.NeverCovered)
	}
	// A second run records nothing new.
	if sum, err = RecordInputs(context.Background(), bin, files, out, opts); err != nil || sum.Recorded != 0 || sum.Skipped != 7 {
		t.Fatalf("rerun: %+v %v", sum, err)
	}
	// A line cut off by a killed run is dropped and its input recorded again.
	data, _ := os.ReadFile(out)
	os.WriteFile(out, data[:len(data)-10], 0o644)
	if sum, err = RecordInputs(context.Background(), bin, files, out, opts); err != nil || sum.Recorded != 1 {
		t.Fatalf("resume after a cut line: %+v %v", sum, err)
	}
	f, err := ReadFile(out)
	if err != nil || len(f.Records) != 6 {
		t.Fatalf("file after resume: %v, %d records", err, len(f.Records))
	}
	// The matrix agrees with the records.
	m := f.Matrix()
	for r, rec := range f.Records {
		for id := range f.Functions {
			if m[id].Has(r) != slices.Contains(rec.Covered, id) {
				t.Fatalf("matrix disagrees with record %d", r)
			}
		}
	}
	// Another subject's file is refused, and left as it was.
	before, _ := os.ReadFile(out)
	if _, err := RecordInputs(context.Background(), bin, files, out, Options{Subject: "other"}); err == nil || !strings.Contains(err.Error(), `records subject "covtest", not "other"`) {
		t.Errorf("other subject: %v", err)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Errorf("a refused run changed the file")
	}
	// Shards split the inputs and merge back to the same set.
	var shards []string
	total := 0
	for i := 1; i <= 3; i++ {
		p := filepath.Join(t.TempDir(), "shard.jsonl")
		o := opts
		o.Shard, o.Shards = i, 3
		sum, err := RecordInputs(context.Background(), bin, files, p, o)
		if err != nil {
			t.Fatal(err)
		}
		total += sum.Recorded
		shards = append(shards, p)
	}
	merged, err := Merge(context.Background(), filepath.Join(t.TempDir(), "merged.jsonl"), shards, false)
	if err != nil || total != 6 || len(merged.Records) != 6 {
		t.Fatalf("shards recorded %d, merged %d: %v", total, len(merged.Records), err)
	}
	for i, r := range merged.Records {
		if r.SHA256 != f.Records[indexBySHA(f, r.SHA256)].SHA256 || i > 0 && merged.Records[i-1].Input > r.Input {
			t.Fatalf("merged records differ or are unsorted")
		}
	}
}

func indexBySHA(f *File, sha string) int {
	for i, r := range f.Records {
		if r.SHA256 == sha {
			return i
		}
	}
	return -1
}

func TestIsolateAgrees(t *testing.T) {
	bin := testBinary(t, "Parse")
	_, files := writeInputs(t, map[string]string{"1": "abc", "2": "xyz", "3": "", "4": "sba", "5": "abd", "6": "c", "7": "q"})
	in := filepath.Join(t.TempDir(), "in.jsonl")
	iso := filepath.Join(t.TempDir(), "iso.jsonl")
	if _, err := RecordInputs(context.Background(), bin, files, in, Options{Subject: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := RecordInputs(context.Background(), bin, files, iso, Options{Subject: "t", Isolate: true}); err != nil {
		t.Fatal(err)
	}
	a, _ := ReadFile(in)
	b, _ := ReadFile(iso)
	for i := range a.Records {
		if !slices.Equal(a.Records[i].Covered, b.Records[i].Covered) || a.Records[i].Outcome != b.Records[i].Outcome {
			t.Errorf("%s: in-process %v %s (%s), isolated %v %s (%s)", a.Records[i].Input, a.Records[i].Covered, a.Records[i].Outcome, a.Records[i].Error, b.Records[i].Covered, b.Records[i].Outcome, b.Records[i].Error)
		}
	}
}

// TestRepliesBeforeACrash: replies the harness wrote before it crashed are
// read, even when the recorder reads them only after the process has
// exited. (Waiting on the process used to close the reply pipe at exit,
// so the unread replies of innocent inputs turned into panics: the rare
// failure of TestIsolateAgrees.)
func TestRepliesBeforeACrash(t *testing.T) {
	s, err := Start(testBinary(t, "Parse"), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inputs := []string{"abc", "xyz", "abd", "c"} // "c" exits the process
	for _, in := range inputs {
		if err := s.send('R', []byte(in)); err != nil {
			t.Fatal(err)
		}
	}
	select { // let the harness run all four and exit before reading any reply
	case <-s.done:
		s.done <- nil // leave the exit for kill to collect
	case <-time.After(10 * time.Second):
		t.Fatal("the harness did not exit")
	}
	want := []Outcome{OK, Error, OK, Panic}
	for i, in := range inputs {
		r, err := s.receive('R', time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != want[i] || want[i] != Panic && len(r.Covered) == 0 {
			t.Errorf("%s: %s %v (%s), want %s with coverage", in, r.Outcome, r.Covered, r.Message, want[i])
		}
	}
}

// TestWarmStarts: with WarmStarts, a process the session starts after a
// crash runs the warm-up input before the next recorded one, so that
// input is not credited with the work a process does once; without it,
// it is (what a fuzzing campaign's restarts credited to the input after
// each crash). A warm-up that crashes its process leaves the request to
// a cold one rather than warming up without end.
func TestWarmStarts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	mod := writeModule(t, map[string]string{
		"go.mod": "module example.com/warmtest\n\ngo 1.24\n",
		"lib/lib.go": `package lib

import "os"

var ready bool

// Run sets up on its first call in a process, as a type cache does;
// "exit" ends the process.
func Run(in []byte) error {
	if string(in) == "exit" {
		os.Exit(3)
	}
	if !ready {
		ready = true
		setUp()
	}
	return nil
}

func setUp() {
	for i := 0; i < 3; i++ {
		_ = i
	}
}
`,
	})
	bin, err := Build(context.Background(), Target{ImportPath: "example.com/warmtest/lib", Func: "Run", Dir: mod}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		warm      []byte
		wantSetUp bool // in the coverage of the first input after the crash
	}{
		{"no warm-ups", nil, true},
		{"warm-ups", []byte("a"), false},
		{"a warm-up that crashes", []byte("exit"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Start(bin, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			setUp := slices.Index(s.Funcs.Names, "example.com/warmtest/lib.setUp")
			if setUp < 0 {
				t.Fatalf("functions %v", s.Funcs.Names)
			}
			s.WarmStarts(tt.warm, 5*time.Second)
			if _, err := s.WarmUp([]byte("a"), 5*time.Second); err != nil {
				t.Fatal(err)
			}
			for i, step := range []struct {
				in        string
				want      Outcome
				wantSetUp bool
			}{
				{"b", OK, false},        // the first process, warmed by WarmUp
				{"exit", Panic, false},  // ends it
				{"c", OK, tt.wantSetUp}, // in the process started after the crash
				{"d", OK, false},        // set up already
			} {
				r, err := s.Record([]byte(step.in), 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if r.Outcome != step.want || slices.Contains(r.Covered, setUp) != step.wantSetUp {
					t.Errorf("input %d (%q): %s (%s), set-up covered %t; want %s, %t", i, step.in, r.Outcome, r.Message, slices.Contains(r.Covered, setUp), step.want, step.wantSetUp)
				}
			}
		})
	}
}

// TestRecordChunks: a recording read and recorded a few inputs at a time
// (Options.Chunk, what bounds its memory) gives every input the record a
// recording of all at once gives it, with the same summary, whatever
// the chunk size.
func TestRecordChunks(t *testing.T) {
	bin := testBinary(t, "Parse")
	inputs := map[string]string{}
	for i, s := range []string{"abc", "xyz", "", "sba", "p", "abd", "abc", "ab", "ba", "zz", "a", "b", "s"} {
		inputs[fmt.Sprintf("%02d", i)] = s
	}
	_, files := writeInputs(t, inputs)
	var want *File
	var wantSum *Summary
	for _, chunk := range []int{0, 1, 2, 5} {
		out := filepath.Join(t.TempDir(), "cov.jsonl")
		sum, err := RecordInputs(context.Background(), bin, files, out, Options{Subject: "covtest", Timeout: 5 * time.Second, Chunk: chunk})
		if err != nil {
			t.Fatal(err)
		}
		if sum.RecordTime <= 0 || sum.SubjectTime <= 0 {
			t.Errorf("chunk %d: record time %v, subject time %v; want both measured", chunk, sum.RecordTime, sum.SubjectTime)
		}
		f, err := ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want, wantSum = f, sum
			if sum.Recorded != 12 || sum.Duplicates != 1 {
				t.Fatalf("summary %+v", sum)
			}
			continue
		}
		if len(f.Records) != len(want.Records) {
			t.Fatalf("chunk %d: %d records, want %d", chunk, len(f.Records), len(want.Records))
		}
		for i, r := range f.Records {
			w := want.Records[i]
			if r.Input != w.Input || r.Outcome != w.Outcome || !slices.Equal(r.Covered, w.Covered) {
				t.Errorf("chunk %d: %s %s %v, want %s %s %v", chunk, r.Input, r.Outcome, r.Covered, w.Input, w.Outcome, w.Covered)
			}
		}
		if sum.Recorded != wantSum.Recorded || sum.Duplicates != wantSum.Duplicates || sum.EverCovered != wantSum.EverCovered ||
			sum.AlwaysCovered != wantSum.AlwaysCovered || sum.NeverCovered != wantSum.NeverCovered || sum.Inputs != wantSum.Inputs {
			t.Errorf("chunk %d: summary %+v, want %+v", chunk, sum, wantSum)
		}
	}
}
