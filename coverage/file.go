package coverage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/internal/filelock"
	"github.com/arbor-fuzz/arbor/internal/parallel"
)

// Header is the first line of a coverage file (docs/formats.md).
type Header struct {
	Arbor     string   `json:"arbor"`   // always "coverage"
	Version   int      `json:"version"` // FileVersion
	Subject   string   `json:"subject"`
	Functions []string `json:"functions"`
	// How the subject was reached (a Go function with its module
	// directory and recorded packages, a harness of another language, or
	// a command), so that a model trained on the file can run it again;
	// absent in files of older versions.
	Target *Target `json:"target,omitempty"`
	// Command is where files of one earlier version kept a command's
	// target; ReadFile moves it into Target.
	Command *CommandTarget `json:"command,omitempty"`
}

// FileVersion is the version of the coverage files arbor writes, and the
// only one it reads: a file of another version may mean other things by
// the same fields.
const FileVersion = 1

// Record is one input's line in a coverage file.
type Record struct {
	// Input is the input's file name, byte for byte. A name that is not
	// valid UTF-8 cannot be a JSON string: the line then also holds its
	// bytes, input_bytes, which are read back into Input (MarshalJSON).
	Input   string   `json:"input"`
	SHA256  string   `json:"sha256"`
	Covered []int    `json:"covered"`
	Counts  []uint32 `json:"counts,omitempty"`
	Outcome Outcome  `json:"outcome"`
	MS      float64  `json:"ms"`
	Error   string   `json:"error,omitempty"` // error or panic text
	Stack   string   `json:"stack,omitempty"` // panics: hash of the innermost frames
}

// recordFields is a Record without its JSON methods.
type recordFields Record

// MarshalJSON writes the record as its fields say, adding input_bytes,
// the name's bytes in base64, when the name is not valid UTF-8: a JSON
// string would hold U+FFFD in place of each invalid byte, and the record
// would no longer name its file. Readers that do not know input_bytes
// still read the rest.
func (r Record) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(r.Input) {
		return json.Marshal(recordFields(r))
	}
	return json.Marshal(struct {
		recordFields
		InputBytes []byte `json:"input_bytes"`
	}{recordFields(r), []byte(r.Input)})
}

// UnmarshalJSON reads a record written by MarshalJSON: input_bytes, if
// present, is the name.
func (r *Record) UnmarshalJSON(b []byte) error {
	aux := struct {
		*recordFields
		InputBytes []byte `json:"input_bytes"`
	}{recordFields: (*recordFields)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	if aux.InputBytes != nil {
		r.Input = string(aux.InputBytes)
	}
	return nil
}

// NewHeader returns the header of a coverage file.
func NewHeader(subject string, functions []string) Header {
	return Header{Arbor: "coverage", Version: FileVersion, Subject: subject, Functions: functions}
}

// checkVersion refuses a header of a version this arbor does not read.
func (h Header) checkVersion() error {
	if h.Version != FileVersion {
		return fmt.Errorf("coverage file version %d; this arbor reads version %d only (record it again with this arbor, or use the arbor that wrote it)", h.Version, FileVersion)
	}
	return nil
}

// compatible explains why records of h cannot be appended to a file with header old.
func (h Header) compatible(old Header) error {
	switch {
	case old.Arbor != "coverage":
		return errors.New("it is not an arbor coverage file")
	case old.Version != h.Version:
		return old.checkVersion()
	case old.Subject != h.Subject:
		return fmt.Errorf("it records subject %q, not %q", old.Subject, h.Subject)
	case !slices.Equal(old.Functions, h.Functions):
		return fmt.Errorf("it was recorded from another version of %s (%d functions, now %d)", h.Subject, len(old.Functions), len(h.Functions))
	}
	return nil
}

// Writer appends records to a coverage file. Each record is written with
// one write call, so a process killed mid-run loses at most the line being
// written; reopening the file drops such a partial line.
type Writer struct {
	f    *os.File
	path string
	done map[string]bool // sha256 of inputs already recorded
}

// OpenWriter opens path for appending records of header h, creating it
// (with the header line) if it does not exist. An existing file must have
// a compatible header; its records are kept and reported by Done. The
// writer holds an exclusive lock on the file until it is closed: if
// another writer holds it, OpenWriter fails, naming the holder, or, with
// wait, waits for it until ctx is done. Records are appended (O_APPEND),
// so nothing written by another program in between is overwritten.
func OpenWriter(ctx context.Context, path string, h Header, wait bool) (*Writer, error) {
	w := &Writer{path: path, done: map[string]bool{}}
	f, err := lockCoverageFile(ctx, path, os.O_RDWR|os.O_CREATE|os.O_APPEND, wait,
		"record each shard to a file of its own and join them with 'arbor record merge', or wait for it with --wait")
	if err != nil {
		return nil, err
	}
	w.f = f
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("coverage file %s: %w", ShowName(path), err)
	}
	if len(data) == 0 {
		line, _ := json.Marshal(h)
		if _, err := f.Write(append(line, '\n')); err != nil {
			f.Close()
			return nil, fmt.Errorf("coverage file %s: %w", ShowName(path), err)
		}
		return w, nil
	}
	complete := bytes.LastIndexByte(data, '\n') + 1
	old, recs, err := parse(data[:complete], path)
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := h.compatible(old); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot add to %s: %w", ShowName(path), err)
	}
	if complete < len(data) { // a line cut off by a killed run
		if err := f.Truncate(int64(complete)); err != nil {
			f.Close()
			return nil, err
		}
	}
	for _, r := range recs {
		w.done[r.SHA256] = true
	}
	return w, nil
}

// Done reports whether an input with this sha256 is already recorded.
func (w *Writer) Done(sha string) bool { return w.done[sha] }

// Write appends a record.
func (w *Writer) Write(r Record) error {
	if r.Covered == nil {
		r.Covered = []int{}
	}
	// MarshalJSON itself, not json.Marshal, which would check and
	// compact what it returns a second time.
	line, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	if _, err := w.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("coverage file %s: %w", ShowName(w.path), err)
	}
	w.done[r.SHA256] = true
	return nil
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// File is a coverage file read into memory.
type File struct {
	Header
	Records []Record
}

// ReadFile reads a coverage file. A last line without a newline (left by
// a killed run) is ignored. The file is read a segment at a time, and
// each segment's records are decoded on every core, so that memory holds
// the records but never the whole file's text beside them (a million
// records are about 400 MB of text).
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("coverage file: %w", shownPath(err))
	}
	defer f.Close()
	hint := 0
	if info, err := f.Stat(); err == nil {
		hint = int(min(info.Size(), math.MaxInt32))
	}
	h, recs, err := readRecords(f, path, hint, segmentSize)
	if err != nil {
		return nil, err
	}
	return &File{Header: h, Records: recs}, nil
}

// parse reads a coverage file's complete lines held in memory.
func parse(data []byte, path string) (Header, []Record, error) {
	return readRecords(bytes.NewReader(data), path, len(data), segmentSize)
}

// segmentSize is how much of a coverage file is read and decoded at a
// time: large enough that every core has many batches of lines to decode.
const segmentSize = 8 << 20

// readRecords reads a coverage file's header and records from r, which
// holds size bytes if size > 0 (a hint, to size the records' slice),
// segment bytes at a time. Only lines that end in a newline are read.
func readRecords(r io.Reader, path string, size, segment int) (Header, []Record, error) {
	rd := &recordReader{path: path, first: map[string]seen{}, size: size}
	seg := make([]byte, max(segment, 1))
	have := 0 // seg[:have] is read and not yet used: the start of a line
	for {
		n, err := io.ReadFull(r, seg[have:])
		have += n
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return rd.h, nil, fmt.Errorf("coverage file %s: %w", ShowName(path), err)
		}
		end := bytes.LastIndexByte(seg[:have], '\n') + 1
		if end == 0 && !eof {
			// A line longer than the segment: read on into a larger one.
			seg = append(seg, make([]byte, len(seg))...)
			continue
		}
		if err := rd.add(seg[:end]); err != nil {
			return rd.h, nil, err
		}
		have = copy(seg, seg[end:have])
		if eof {
			break // what is left is a last line without a newline
		}
	}
	if rd.lines == 0 {
		return rd.h, nil, fmt.Errorf("%s: empty coverage file", ShowName(path))
	}
	return rd.h, rd.recs, nil
}

// minRecordLine is the length of the shortest record line Writer writes:
// {"input":"","sha256":"","covered":[],"outcome":"","ms":0}.
const minRecordLine = 57

// seen is where an input's first record is: its index and line.
type seen struct{ rec, line int }

// recordReader checks and collects the records of a coverage file's
// lines, segment after segment.
type recordReader struct {
	path  string
	size  int // the file's size, if known
	h     Header
	lines int // lines read so far
	recs  []Record
	first map[string]seen // sha256 -> where its record is
}

// add reads the complete lines of data, which follow those read before.
func (rd *recordReader) add(data []byte) error {
	lines := splitLines(data)
	if len(lines) == 0 {
		return nil
	}
	if rd.lines == 0 {
		if err := json.Unmarshal(lines[0], &rd.h); err != nil || rd.h.Arbor != "coverage" {
			return fmt.Errorf("%s:1: not an arbor coverage file (its first line must be the header)", ShowName(rd.path))
		}
		if err := rd.h.checkVersion(); err != nil {
			return fmt.Errorf("%s:1: %w", ShowName(rd.path), err)
		}
		if rd.h.Command != nil && rd.h.Target == nil {
			rd.h.Target, rd.h.Command = &Target{Command: rd.h.Command}, nil
		}
		rd.lines = 1
		lines = lines[1:]
		if rd.size > len(data) && len(lines) > 0 {
			// As many records as the file has lines of this segment's
			// mean length, so that the slice is not grown by copying;
			// never more than the file could hold.
			est := float64(rd.size) / float64(len(data)) * float64(len(lines)) * 1.05
			rd.recs = make([]Record, 0, int(min(est, float64(rd.size/minRecordLine)))+16)
		}
	}
	decoded, errs := decodeRecords(lines)
	for i := range decoded {
		rd.lines++
		line := rd.lines
		if len(bytes.TrimSpace(lines[i])) == 0 {
			continue // a blank line, from an editor or a concatenation
		}
		if errs[i] != nil {
			return fmt.Errorf("%s:%d: %w", ShowName(rd.path), line, errs[i])
		}
		r := &decoded[i]
		if err := r.check(len(rd.h.Functions)); err != nil {
			return fmt.Errorf("%s:%d: %w", ShowName(rd.path), line, err)
		}
		// An input recorded twice: once is enough if the records agree;
		// if they do not, training on both would teach a contradiction.
		if f, dup := rd.first[r.SHA256]; dup && r.SHA256 != "" {
			if !slices.Equal(rd.recs[f.rec].Covered, r.Covered) || rd.recs[f.rec].Outcome != r.Outcome {
				return fmt.Errorf("%s:%d: input %s was recorded at line %d with other coverage or outcome; record it once (a subject whose coverage depends on earlier inputs gives such records)",
					ShowName(rd.path), line, ShowName(shortSHA(r.SHA256)), f.line)
			}
			continue
		}
		rd.first[r.SHA256] = seen{len(rd.recs), line}
		rd.recs = append(rd.recs, *r)
	}
	return nil
}

// check refuses a record that does not fit a header of n functions: a
// covered function out of range, listed twice or out of order (Writer
// writes them sorted, each once), or counts that are not one per covered
// function. Any of these would make a model learn from what no recording
// measured.
func (r *Record) check(n int) error {
	prev := -1
	for _, id := range r.Covered {
		switch {
		case id < 0 || id >= n:
			return fmt.Errorf("function %d out of range (the header has %d)", id, n)
		case id == prev:
			return fmt.Errorf("function %d is listed twice", id)
		case id < prev:
			return fmt.Errorf("functions out of order (%d after %d); covered lists them sorted", id, prev)
		}
		prev = id
	}
	if r.Counts != nil && len(r.Counts) != len(r.Covered) {
		return fmt.Errorf("%d counts for %d covered functions; counts has one for each, or is left out", len(r.Counts), len(r.Covered))
	}
	return nil
}

// shownPath is err with the path of an *fs.PathError shown by ShowName,
// so that the message is safe to print; errors.As and errors.Is see
// through it as before.
func shownPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: ShowName(pe.Path), Err: pe.Err}
	}
	return err
}

// shortSHA is the first 12 characters of a sha256 as a record gives it,
// enough to find the input.
func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// splitLines splits data at newlines; a last line without one is kept.
func splitLines(data []byte) [][]byte {
	lines := make([][]byte, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, data)
			break
		}
		lines = append(lines, data[:i])
		data = data[i+1:]
	}
	return lines
}

// decodeRecords decodes record lines on every core: decoding JSON is most
// of the time it takes to read a large coverage file. Blank lines are
// left zero. Lines as Writer writes them take decodeRecord's way, without
// reflection; their covered functions and counts are cut from blocks
// shared by many records, so that each record costs its bytes and not an
// allocation (and a grown slice's spare room) per field.
func decodeRecords(lines [][]byte) ([]Record, []error) {
	recs := make([]Record, len(lines))
	errs := make([]error, len(lines))
	const batch = 256
	parallel.ForEach(context.Background(), (len(lines)+batch-1)/batch, runtime.GOMAXPROCS(0), func(b int) {
		var a recordAlloc
		for i := b * batch; i < min((b+1)*batch, len(lines)); i++ {
			if len(bytes.TrimSpace(lines[i])) == 0 {
				continue
			}
			if !a.decode(lines[i], &recs[i]) {
				recs[i] = Record{}
				errs[i] = json.Unmarshal(lines[i], &recs[i])
			}
		}
		a.finish()
	})
	return recs, errs
}

// recordAlloc decodes records written by Writer and holds the memory
// their fields are cut from. Its records' names and hashes point into
// one string per batch, set by finish.
type recordAlloc struct {
	ints   []int
	counts []uint32
	text   []byte      // the names and hashes of the batch's records
	fields []textField // where each goes
}

// textField is a string field to be set to text[start:end] by finish.
type textField struct {
	dst        *string
	start, end int
}

// finish sets the batch's names and hashes.
func (a *recordAlloc) finish() {
	s := string(a.text)
	for _, f := range a.fields {
		*f.dst = s[f.start:f.end]
	}
}

// decode decodes line into r, if it is a record as Writer writes it
// (the fields in Record's order, no spaces, numbers that fit), as
// encoding/json would, and reports whether it did. Any other line, valid
// or not, is left to encoding/json.
func (a *recordAlloc) decode(line []byte, r *Record) bool {
	fields, text := len(a.fields), len(a.text)
	if a.decodeFields(&lineParser{b: line}, r) {
		return true
	}
	a.fields, a.text = a.fields[:fields], a.text[:text]
	return false
}

func (a *recordAlloc) decodeFields(p *lineParser, r *Record) bool {
	if !p.lit(`{"input":`) || !a.text1(p, &r.Input) || !p.lit(`,"sha256":`) || !a.text1(p, &r.SHA256) ||
		!p.lit(`,"covered":`) {
		return false
	}
	if r.Covered = a.intList(p); r.Covered == nil {
		return false
	}
	if p.lit(`,"counts":`) {
		if r.Counts = a.countList(p); r.Counts == nil {
			return false
		}
	}
	if !p.lit(`,"outcome":`) {
		return false
	}
	if raw, ok := p.rawString(); ok {
		r.Outcome = outcome(raw)
	} else if !p.str((*string)(&r.Outcome)) {
		return false
	}
	if !p.lit(`,"ms":`) || !p.float(&r.MS) {
		return false
	}
	if p.lit(`,"error":`) && !p.str(&r.Error) {
		return false
	}
	if p.lit(`,"stack":`) && !p.str(&r.Stack) {
		return false
	}
	return p.lit("}") && p.i == len(p.b)
}

// outcome is the outcome named raw, without a string of its own for the
// usual ones.
func outcome(raw []byte) Outcome {
	switch string(raw) {
	case string(OK):
		return OK
	case string(Error):
		return Error
	case string(Panic):
		return Panic
	case string(Timeout):
		return Timeout
	}
	return Outcome(raw)
}

// text1 reads a string into the batch's text, to be set into dst by
// finish.
func (a *recordAlloc) text1(p *lineParser, dst *string) bool {
	raw, ok := p.rawString()
	if !ok {
		var s string
		if !p.str(&s) {
			return false
		}
		raw = []byte(s)
	}
	a.fields = append(a.fields, textField{dst, len(a.text), len(a.text) + len(raw)})
	a.text = append(a.text, raw...)
	return true
}

// blockSize is how many numbers a block of covered ids or counts holds.
const blockSize = 16 << 10

// intList reads a list of ints into a block: nil if it is not one.
func (a *recordAlloc) intList(p *lineParser) []int {
	if !p.lit("[") {
		return nil
	}
	if cap(a.ints)-len(a.ints) < 1024 {
		a.ints = make([]int, 0, blockSize)
	}
	start := len(a.ints)
	for !p.lit("]") {
		if len(a.ints) > start && !p.lit(",") {
			return nil
		}
		v, neg, ok := p.int()
		if !ok {
			return nil
		}
		if neg {
			v = -v
		}
		// A long list may move the block: the list is still at start.
		a.ints = append(a.ints, v)
	}
	return a.ints[start:len(a.ints):len(a.ints)]
}

// countList reads a list of uint32s into a block: nil if it is not one.
func (a *recordAlloc) countList(p *lineParser) []uint32 {
	if !p.lit("[") {
		return nil
	}
	if cap(a.counts)-len(a.counts) < 1024 {
		a.counts = make([]uint32, 0, blockSize)
	}
	start := len(a.counts)
	for !p.lit("]") {
		if len(a.counts) > start && !p.lit(",") {
			return nil
		}
		v, neg, ok := p.int()
		if !ok || neg || v > math.MaxUint32 {
			return nil
		}
		a.counts = append(a.counts, uint32(v))
	}
	return a.counts[start:len(a.counts):len(a.counts)]
}

// lineParser reads the JSON of a record line.
type lineParser struct {
	b []byte
	i int
}

// lit reads s, if it comes next.
func (p *lineParser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// rawString reads a string that is its own text: no escapes or control
// characters, valid UTF-8 (encoding/json would replace invalid bytes). It
// reads nothing if the next value is not such a string.
func (p *lineParser) rawString() ([]byte, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false
	}
	ascii := true
	for j := p.i + 1; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			s := p.b[p.i+1 : j]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			p.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// str reads any string, decoding it as encoding/json does.
func (p *lineParser) str(dst *string) bool {
	if raw, ok := p.rawString(); ok {
		*dst = string(raw)
		return true
	}
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	for j := p.i + 1; j < len(p.b); j++ {
		switch p.b[j] {
		case '\\':
			j++
		case '"':
			if json.Unmarshal(p.b[p.i:j+1], dst) != nil {
				return false
			}
			p.i = j + 1
			return true
		}
	}
	return false
}

// int reads an integer of at most 18 digits, without its sign: -?(0|[1-9][0-9]*).
func (p *lineParser) int() (v int, neg, ok bool) {
	j := p.i
	if j < len(p.b) && p.b[j] == '-' {
		neg = true
		j++
	}
	start := j
	for j < len(p.b) && isDigit(p.b[j]) {
		v = v*10 + int(p.b[j]-'0')
		j++
	}
	if n := j - start; n == 0 || n > 18 || n > 1 && p.b[start] == '0' {
		return 0, false, false
	}
	if j < len(p.b) && (p.b[j] == '.' || p.b[j] == 'e' || p.b[j] == 'E') {
		return 0, false, false // a number, but not an integer's text
	}
	p.i = j
	return v, neg, true
}

// float reads a JSON number as a float64.
func (p *lineParser) float(dst *float64) bool {
	j := p.i
	digits := func() int {
		k := j
		for j < len(p.b) && isDigit(p.b[j]) {
			j++
		}
		return j - k
	}
	if j < len(p.b) && p.b[j] == '-' {
		j++
	}
	switch {
	case j < len(p.b) && p.b[j] == '0':
		j++
	case digits() == 0:
		return false
	}
	if j < len(p.b) && p.b[j] == '.' {
		j++
		if digits() == 0 {
			return false
		}
	}
	if j < len(p.b) && (p.b[j] == 'e' || p.b[j] == 'E') {
		j++
		if j < len(p.b) && (p.b[j] == '+' || p.b[j] == '-') {
			j++
		}
		if digits() == 0 {
			return false
		}
	}
	v, err := strconv.ParseFloat(string(p.b[p.i:j]), 64)
	if err != nil {
		return false
	}
	*dst, p.i = v, j
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Matrix returns, for every function, the set of records (inputs, by
// index) that covered it: a function × input bitset matrix.
func (f *File) Matrix() []features.Bitset {
	m := make([]features.Bitset, len(f.Functions))
	for i := range m {
		m[i] = features.NewBitset(len(f.Records))
	}
	for r, rec := range f.Records {
		for _, id := range rec.Covered {
			m[id].Set(r)
		}
	}
	return m
}

// lockCoverageFile opens path with flag and takes its lock, the one
// writer of a coverage file: a recording, or a merge into it. The lock
// is on the file, so a file that was replaced (a merge renames its result
// over path) while the lock was being taken is opened again: the lock of
// a file no longer at path would protect nothing.
func lockCoverageFile(ctx context.Context, path string, flag int, wait bool, hint string) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, flag, 0o644)
		if err != nil {
			return nil, fmt.Errorf("coverage file: %w", shownPath(err))
		}
		// Two recordings appending to one file at once interleave and
		// tear lines: one writer at a time.
		if err := filelock.LockFile(ctx, f, filelock.Options{What: "coverage file " + ShowName(path), Wait: wait, Hint: hint}); err != nil {
			f.Close()
			return nil, err
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
		if err1 != nil {
			return nil, fmt.Errorf("coverage file: %w", shownPath(err1))
		}
	}
}

// Merge combines coverage files of the same subject and build (such as
// the shards of one corpus) into out: each input once (by sha256), sorted
// by input name. It holds the lock a recording into out holds, so that it
// never replaces a file being recorded into (the recording would go on
// into the file replaced and its records be lost): it fails if one is,
// naming it, or with wait waits for it until ctx is done. out is replaced
// whole (written beside it and renamed), so a merge killed at any moment
// leaves the old file or the merged one.
func Merge(ctx context.Context, out string, paths []string, wait bool) (*File, error) {
	if len(paths) == 0 {
		return nil, errors.New("no coverage files to merge")
	}
	const hint = "merge into another file, or wait for it with --wait"
	// Locked before the inputs are read: out may be one of them.
	var held *os.File
	if _, err := os.Lstat(out); err == nil {
		if held, err = lockCoverageFile(ctx, out, os.O_RDONLY, wait, hint); err != nil {
			return nil, err
		}
		defer held.Close()
	}
	var merged *File
	seen := map[string]bool{}
	for _, p := range paths {
		f, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		if merged == nil {
			merged = &File{Header: f.Header}
		} else if err := merged.Header.compatible(f.Header); err != nil {
			return nil, fmt.Errorf("cannot merge %s with %s: %w", ShowName(p), ShowName(paths[0]), err)
		}
		for _, r := range f.Records {
			if !seen[r.SHA256] {
				seen[r.SHA256] = true
				merged.Records = append(merged.Records, r)
			}
		}
	}
	sort.SliceStable(merged.Records, func(i, j int) bool { return merged.Records[i].Input < merged.Records[j].Input })
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+"-*.tmp")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone once renamed; left only by a kill
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	enc.Encode(merged.Header)
	for _, r := range merged.Records {
		line, err := r.MarshalJSON()
		if err != nil {
			f.Close()
			return nil, err
		}
		bw.Write(append(line, '\n'))
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if held != nil {
		return merged, os.Rename(tmp, out)
	}
	// out did not exist: a link makes it whole at once, and fails if a
	// recording made it meanwhile, whose lock is then taken.
	err = os.Link(tmp, out)
	if errors.Is(err, fs.ErrExist) {
		if held, err = lockCoverageFile(ctx, out, os.O_RDONLY, wait, hint); err != nil {
			return nil, err
		}
		defer held.Close()
		err = os.Rename(tmp, out)
	}
	return merged, err
}
