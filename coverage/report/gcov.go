package report

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
)

// gcovReport is one object of gcov's JSON intermediate format.
type gcovReport struct {
	FormatVersion *json.RawMessage `json:"format_version"`
	CWD           string           `json:"current_working_directory"`
	Files         []struct {
		File      string `json:"file"`
		Functions []struct {
			Name           string    `json:"name"`
			DemangledName  string    `json:"demangled_name"`
			StartLine      int       `json:"start_line"`
			EndLine        int       `json:"end_line"`
			ExecutionCount gcovCount `json:"execution_count"`
		} `json:"functions"`
		Lines []struct {
			LineNumber int       `json:"line_number"`
			Count      gcovCount `json:"count"`
		} `json:"lines"`
	} `json:"files"`
}

// gcovCount is an execution count; negative counts (overflowed or raced
// counters) read as 0.
type gcovCount uint64

func (c *gcovCount) UnmarshalJSON(b []byte) error {
	v, err := lcovCount(string(b))
	if err != nil {
		return fmt.Errorf("execution count %.20s", b)
	}
	*c = gcovCount(v)
	return nil
}

// ParseGcovJSON reads gcov's JSON format (gcov --json-format, gcc 9 and
// later): a .gcov.json.gz file (gzip is recognised by its magic bytes),
// its uncompressed text, or the output of gcov --json-format --stdout,
// which is one JSON object per data file. Functions are named by
// QualifiedName from the file and the demangled name ("src/lib.c:parse",
// "src/x.cc:ns::Parser::parse(char const*)"); lines of several instances
// of one line (templates, inlined functions) are added up. Every
// format_version seen so far ("1" in gcc 9 to 13, "2" in gcc 14) has these
// fields; a report without format_version is refused. name names the
// report in errors.
func ParseGcovJSON(r io.Reader, name string) (*Coverage, error) {
	return parseGcov(r, name, false)
}

// ParseGcovJSONLcov reads gcov's JSON format as lcov's geninfo reads it
// (lcov 1.14 and later run gcov --json-format too): a relative source
// path is made absolute against the report's current_working_directory,
// where gcc compiled it, and functions keep their linker names (mangled,
// in C++, as geninfo writes them without --demangle-cpp). Written out
// with WriteLcov, the coverage names its files and functions as lcov's
// tracefile of the same run does.
func ParseGcovJSONLcov(r io.Reader, name string) (*Coverage, error) {
	return parseGcov(r, name, true)
}

func parseGcov(r io.Reader, name string, lcov bool) (*Coverage, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		defer zr.Close()
		r = zr
	} else {
		r = br
	}
	b := newBuilder("gcov-json")
	cr := &countingReader{r: r}
	dec := json.NewDecoder(cr)
	objects := 0
	for {
		var g gcovReport
		err := dec.Decode(&g)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, gcovError(name, cr, dec, err)
		}
		objects++
		if g.FormatVersion == nil {
			return nil, fmt.Errorf("%s: object %d: no format_version: not gcov's JSON format", name, objects)
		}
		for _, f := range g.Files {
			if f.File == "" {
				return nil, fmt.Errorf("%s: object %d: a file without a name", name, objects)
			}
			if lcov && !filepath.IsAbs(f.File) && g.CWD != "" {
				f.File = filepath.Join(g.CWD, f.File)
			}
			b.file(f.File)
			for _, fn := range f.Functions {
				sym := fn.DemangledName
				if sym == "" || lcov && fn.Name != "" {
					sym = fn.Name
				}
				if sym == "" {
					return nil, fmt.Errorf("%s: object %d: %s: a function without a name", name, objects, f.File)
				}
				if fn.StartLine < 0 || fn.EndLine < 0 {
					return nil, fmt.Errorf("%s: object %d: %s: %s: negative line", name, objects, f.File, sym)
				}
				x := b.function(f.File, sym)
				x.Line, x.EndLine = fn.StartLine, fn.EndLine
				x.Hits = addSat(x.Hits, uint64(fn.ExecutionCount))
			}
			for _, l := range f.Lines {
				if l.LineNumber < 0 {
					return nil, fmt.Errorf("%s: object %d: %s: negative line number", name, objects, f.File)
				}
				b.line(f.File, l.LineNumber, uint64(l.Count))
			}
		}
	}
	if objects == 0 {
		return nil, fmt.Errorf("%s: empty: no gcov JSON object", name)
	}
	return b.done(), nil
}

// gcovError places a JSON error at a line of the (uncompressed) text.
func gcovError(name string, cr *countingReader, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		off = te.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: unexpected end of input", name)
	}
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
		return fmt.Errorf("%s: gzip: %w", name, err)
	}
	return fmt.Errorf("%s:%s: %w", name, cr.position(off), err)
}

// countingReader remembers where lines start, to turn a byte offset into
// a line and column.
type countingReader struct {
	r      io.Reader
	n      int64
	starts []int64 // offsets of line starts after the first
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, x := range p[:n] {
		if x == '\n' {
			c.starts = append(c.starts, c.n+int64(i)+1)
		}
	}
	c.n += int64(n)
	return n, err
}

func (c *countingReader) position(off int64) string {
	line, start := 1, int64(0)
	for _, s := range c.starts {
		if s > off {
			break
		}
		line, start = line+1, s
	}
	return strconv.Itoa(line) + ":" + strconv.FormatInt(off-start+1, 10)
}
