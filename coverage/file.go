package coverage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/internal/parallel"
)

// Header is the first line of a coverage file (docs/formats.md).
type Header struct {
	Arbor     string   `json:"arbor"`   // always "coverage"
	Version   int      `json:"version"` // 1
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

// Record is one input's line in a coverage file.
type Record struct {
	Input   string   `json:"input"`
	SHA256  string   `json:"sha256"`
	Covered []int    `json:"covered"`
	Counts  []uint32 `json:"counts,omitempty"`
	Outcome Outcome  `json:"outcome"`
	MS      float64  `json:"ms"`
	Error   string   `json:"error,omitempty"` // error or panic text
	Stack   string   `json:"stack,omitempty"` // panics: hash of the innermost frames
}

// NewHeader returns the header of a coverage file.
func NewHeader(subject string, functions []string) Header {
	return Header{Arbor: "coverage", Version: 1, Subject: subject, Functions: functions}
}

// compatible explains why records of h cannot be appended to a file with header old.
func (h Header) compatible(old Header) error {
	switch {
	case old.Arbor != "coverage" || old.Version != 1:
		return errors.New("it is not an arbor coverage file (version 1)")
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
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("coverage file: %w", err)
	}
	if err := lock(ctx, f, path, wait); err != nil {
		f.Close()
		return nil, err
	}
	w.f = f
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("coverage file %s: %w", path, err)
	}
	if len(data) == 0 {
		line, _ := json.Marshal(h)
		if _, err := f.Write(append(line, '\n')); err != nil {
			f.Close()
			return nil, fmt.Errorf("coverage file %s: %w", path, err)
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
		return nil, fmt.Errorf("cannot add to %s: %w", path, err)
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
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := w.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("coverage file %s: %w", w.path, err)
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
// a killed run) is ignored.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("coverage file: %w", err)
	}
	h, recs, err := parse(data[:bytes.LastIndexByte(data, '\n')+1], path)
	if err != nil {
		return nil, err
	}
	return &File{Header: h, Records: recs}, nil
}

func parse(data []byte, path string) (Header, []Record, error) {
	var h Header
	lines := splitLines(data)
	if len(lines) == 0 {
		return h, nil, fmt.Errorf("%s: empty coverage file", path)
	}
	if err := json.Unmarshal(lines[0], &h); err != nil || h.Arbor != "coverage" {
		return h, nil, fmt.Errorf("%s:1: not an arbor coverage file (its first line must be the header)", path)
	}
	if h.Command != nil && h.Target == nil {
		h.Target, h.Command = &Target{Command: h.Command}, nil
	}
	decoded, errs := decodeRecords(lines[1:])
	var recs []Record
	type seen struct{ rec, line int }
	first := map[string]seen{} // sha256 -> where its record is
	for i := range decoded {
		line := i + 2
		if len(bytes.TrimSpace(lines[i+1])) == 0 {
			continue // a blank line, from an editor or a concatenation
		}
		if errs[i] != nil {
			return h, nil, fmt.Errorf("%s:%d: %w", path, line, errs[i])
		}
		r := decoded[i]
		for _, id := range r.Covered {
			if id < 0 || id >= len(h.Functions) {
				return h, nil, fmt.Errorf("%s:%d: function %d out of range (the header has %d)", path, line, id, len(h.Functions))
			}
		}
		// An input recorded twice: once is enough if the records agree;
		// if they do not, training on both would teach a contradiction.
		if f, dup := first[r.SHA256]; dup && r.SHA256 != "" {
			if !slices.Equal(recs[f.rec].Covered, r.Covered) || recs[f.rec].Outcome != r.Outcome {
				return h, nil, fmt.Errorf("%s:%d: input %.12s was recorded at line %d with other coverage or outcome; record it once (a subject whose coverage depends on earlier inputs gives such records)", path, line, r.SHA256, f.line)
			}
			continue
		}
		first[r.SHA256] = seen{len(recs), line}
		recs = append(recs, r)
	}
	return h, recs, nil
}

// splitLines splits data at newlines; a last line without one is kept.
func splitLines(data []byte) [][]byte {
	var lines [][]byte
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
// left zero.
func decodeRecords(lines [][]byte) ([]Record, []error) {
	recs := make([]Record, len(lines))
	errs := make([]error, len(lines))
	const batch = 256
	parallel.ForEach(context.Background(), (len(lines)+batch-1)/batch, runtime.GOMAXPROCS(0), func(b int) {
		for i := b * batch; i < min((b+1)*batch, len(lines)); i++ {
			if len(bytes.TrimSpace(lines[i])) > 0 {
				errs[i] = json.Unmarshal(lines[i], &recs[i])
			}
		}
	})
	return recs, errs
}

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

// Merge combines coverage files of the same subject and build (such as
// the shards of one corpus) into out: each input once (by sha256), sorted
// by input name.
func Merge(out string, paths []string) (*File, error) {
	if len(paths) == 0 {
		return nil, errors.New("no coverage files to merge")
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
			return nil, fmt.Errorf("cannot merge %s with %s: %w", p, paths[0], err)
		}
		for _, r := range f.Records {
			if !seen[r.SHA256] {
				seen[r.SHA256] = true
				merged.Records = append(merged.Records, r)
			}
		}
	}
	sort.SliceStable(merged.Records, func(i, j int) bool { return merged.Records[i].Input < merged.Records[j].Input })
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	enc.Encode(merged.Header)
	for _, r := range merged.Records {
		enc.Encode(r)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return merged, os.Rename(tmp, out)
}
