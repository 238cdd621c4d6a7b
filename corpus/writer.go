package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// UnknownCount is the count of a Writer whose number of inputs is known
// only once they are all written (a k-path covering set).
const UnknownCount = -1

// bufferSize is a Writer's buffer: one write for every 64 KB of lines,
// instead of one per line.
const bufferSize = 64 << 10

// A Writer writes inputs as they are generated, so that no input need be
// kept once written: into an output folder, one file each (with
// choices, a line of the choices file each too), or as JSON Lines to a
// stream. A Writer into a folder makes nothing before its first input,
// so that a generator that refuses its grammar leaves no folder behind.
// Close it whatever happens.
type Writer struct {
	layout  Layout
	out     string    // the output folder, or "" for JSON Lines
	stream  io.Writer // JSON Lines go here
	count   int       // inputs in all, for the width of names, or UnknownCount
	choices bool      // write choice sequences too
	written int       // inputs written
	opened  bool
	dir     string        // layout.InputDir(out), once opened
	buf     *bufio.Writer // JSON Lines, or the choices file
	enc     *json.Encoder // on buf
	side    *os.File      // the choices file
	// width is the fewest digits of a file name: minNameWidth, or fewer
	// in a test of the renaming that a set of unknown size may need.
	width int
}

// NewWriter returns a Writer of inputs into the output folder out, laid
// out by l, made at the first input if need be. count is the number of
// inputs in all, which sets the width of their names, or UnknownCount:
// then each input gets the narrowest name for now, and Close renames
// those that a wider count needs, so that the folder ends as it would
// with the count known. With choices, each input's choice sequence is
// written to the choices file beside the inputs (l.SideFile(out,
// "choices.jsonl")) as a line {"file":name,"choices":[...]}.
func NewWriter(out string, l Layout, count int, choices bool) *Writer {
	return &Writer{layout: l, out: out, count: count, choices: choices, width: minNameWidth}
}

// NewLineWriter returns a Writer of JSON Lines to w, a line per input:
// {"input":"..."}, or {"bytes":"<base64>"} for an input that is not
// UTF-8, so that every byte comes through; with choices, the input's
// choice sequence too ("choices", left out when there are none).
func NewLineWriter(w io.Writer, choices bool) *Writer {
	return &Writer{stream: w, choices: choices, width: minNameWidth}
}

// open makes the output folder and opens the choices file, or the
// buffer of the stream.
func (w *Writer) open() error {
	if w.opened {
		return nil
	}
	w.opened = true
	if w.stream != nil {
		w.buf = bufio.NewWriterSize(w.stream, bufferSize)
		w.enc = json.NewEncoder(w.buf)
		w.enc.SetEscapeHTML(false)
		return nil
	}
	w.dir = w.layout.InputDir(w.out)
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	if w.choices {
		f, err := w.layout.CreateSide(w.layout.SideFile(w.out, "choices.jsonl"))
		if err != nil {
			return err
		}
		w.side, w.buf = f, bufio.NewWriterSize(f, bufferSize)
		w.enc = json.NewEncoder(w.buf)
	}
	return nil
}

// Write writes the next input: its text, and its choices if the Writer
// writes them. The choices are written before Write returns, so the
// caller may reuse their slice.
func (w *Writer) Write(text string, choices []int) error {
	if err := w.open(); err != nil {
		return err
	}
	i := w.written
	w.written++
	if len(choices) == 0 {
		// A generator that reuses its recorder's slice hands over an
		// empty one where a fresh recorder had none: both are written
		// as a fresh recorder's (null in the choices file).
		choices = nil
	}
	if w.stream != nil {
		return w.writeLine(text, choices)
	}
	n := w.count
	if n == UnknownCount {
		// The narrowest name for now; Close renames the file if the
		// count turns out to need a wider one.
		n = i + 1
	}
	name, err := w.layout.WriteInput(w.dir, paddedName(i, n, w.width, w.layout.Ext), []byte(text))
	if err != nil {
		return err
	}
	if w.enc != nil {
		return w.enc.Encode(choicesLine{name, choices})
	}
	return nil
}

// choicesLine is a line of the choices file.
type choicesLine struct {
	File    string `json:"file"`
	Choices []int  `json:"choices"`
}

// writeLine writes an input as a JSON line. JSON strings hold UTF-8
// only: other bytes would come out as U+FFFD, so such an input goes as
// base64 under "bytes".
func (w *Writer) writeLine(text string, choices []int) error {
	rec := struct {
		Input   *string `json:"input,omitempty"`
		Bytes   []byte  `json:"bytes,omitempty"`
		Choices []int   `json:"choices,omitempty"`
	}{}
	if utf8.ValidString(text) {
		rec.Input = &text
	} else {
		rec.Bytes = []byte(text)
	}
	if w.choices {
		rec.Choices = choices
	}
	return w.enc.Encode(rec)
}

// Written is the number of inputs written.
func (w *Writer) Written() int { return w.written }

// Close flushes what was written, whatever err is (an interruption
// keeps the inputs finished), and returns err or else the first error
// of writing. A Writer into a folder that wrote nothing makes the
// folder now if err is nil, and else leaves nothing behind.
func (w *Writer) Close(err error) error {
	if !w.opened {
		if err != nil {
			return err
		}
		if err := w.open(); err != nil {
			return err
		}
	}
	if w.buf != nil {
		if ferr := w.buf.Flush(); ferr != nil && err == nil {
			err = ferr
		}
	}
	if w.side != nil {
		if cerr := w.side.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if w.count == UnknownCount && w.stream == nil && !w.layout.GoFuzz() {
		// Also after an error: the files written are then named as
		// those of a set of their number.
		if rerr := w.settleNames(); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// settleNames gives the files of a set whose size was unknown while it
// was written the names Name gives them for its final size, and
// rewrites the choices file to match. Names are at least 5 digits wide,
// so only a set of 100,000 inputs or more has files to rename: those
// written under a narrower name than the count needs. No new name is an
// old one (each new name that differs is wider than the minimum with a
// leading zero, which no old name has), so the renames cannot collide.
func (w *Writer) settleNames() error {
	first := func(i int) string { return paddedName(i, i+1, w.width, w.layout.Ext) }
	final := func(i int) string { return paddedName(i, w.written, w.width, w.layout.Ext) }
	if w.written == 0 || first(0) == final(0) {
		return nil
	}
	for i := 0; i < w.written && first(i) != final(i); i++ {
		if err := os.Rename(filepath.Join(w.dir, first(i)), filepath.Join(w.dir, final(i))); err != nil {
			return fmt.Errorf("rename input: %w", err)
		}
	}
	if w.side == nil {
		return nil
	}
	return rewriteChoices(w.side.Name(), final)
}

// rewriteChoices rewrites the choices file at path with line i's file
// named name(i), through a temporary file renamed over it.
func rewriteChoices(path string, name func(i int) string) (err error) {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".choices-*.jsonl")
	if err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, bufferSize)
	if err := renameLines(w, in, name); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("choices: %w", err)
	}
	return nil
}

// renameLines copies the lines of a choices file from r to w with line
// i's file named name(i), encoded as Writer encodes them, so that the
// lines stay byte for byte but for the name.
func renameLines(w io.Writer, r io.Reader, name func(i int) string) error {
	enc := json.NewEncoder(w)
	br := bufio.NewReaderSize(r, bufferSize)
	for i := 0; ; i++ {
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 {
			var rec choicesLine
			if err := json.Unmarshal(line, &rec); err != nil {
				return fmt.Errorf("choices line %d: %w", i+1, err)
			}
			rec.File = name(i)
			if err := enc.Encode(rec); err != nil {
				return fmt.Errorf("choices: %w", err)
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("choices: %w", rerr)
		}
	}
}
