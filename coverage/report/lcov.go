package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseLcov reads an lcov tracefile: the records SF, FN, FNDA, DA and
// end_of_record, and lcov 2's FNL and FNA; TN, VER, FNF, FNH, LF, LH,
// BRDA, BRF and BRH are checked for form and otherwise ignored (branches
// are not kept), as are records of unknown kinds. A file or function
// listed twice (a tracefile of several test names) is merged, its counts
// added. Names are formed by QualifiedName from SF and the function name,
// so a coverage.py tracefile (SF ending in .py) gets Python names. name
// names the report in errors.
//
// It is one switch over the record kinds, a few lines each, because the
// records share the reader's state (the current SF, lcov 2's FNL index):
// kept together, the format reads as the tracefile does.
func ParseLcov(r io.Reader, name string) (*Coverage, error) {
	b := newBuilder("lcov")
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var (
		sf     string
		inFile bool
		fnl    map[string][2]int // lcov 2: FNL index -> start, end
		n      int
	)
	for sc.Scan() {
		n++
		line := bytes.TrimRight(sc.Bytes(), "\r \t")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		text := string(line)
		if text == "end_of_record" {
			inFile, sf, fnl = false, "", nil
			continue
		}
		key, val, ok := strings.Cut(text, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: not an lcov record: %.40q", name, n, text)
		}
		bad := func(why string) error {
			return fmt.Errorf("%s:%d: %s record: %s: %.60q", name, n, key, why, val)
		}
		if key == "SF" {
			if val == "" {
				return nil, bad("empty path")
			}
			sf, inFile, fnl = val, true, nil
			b.file(sf)
			continue
		}
		switch key {
		case "FN", "FNDA", "FNL", "FNA", "DA", "BRDA", "FNF", "FNH", "LF", "LH", "BRF", "BRH":
			if !inFile {
				return nil, fmt.Errorf("%s:%d: %s record outside a file (no SF record before it)", name, n, key)
			}
		}
		switch key {
		case "FN":
			// FN:line,name (lcov 1) or FN:line,end,name (lcov 2).
			first, rest, ok := strings.Cut(val, ",")
			if !ok {
				return nil, bad("want line,name")
			}
			start, err := lineNumber(first)
			if err != nil {
				return nil, bad(err.Error())
			}
			end := 0
			if e, r, ok := strings.Cut(rest, ","); ok {
				if v, err := lineNumber(e); err == nil {
					end, rest = v, r
				}
			}
			if rest == "" {
				return nil, bad("empty function name")
			}
			f := b.function(sf, rest)
			f.Line, f.EndLine = start, end
		case "FNDA":
			c, fn, ok := strings.Cut(val, ",")
			if !ok || fn == "" {
				return nil, bad("want count,name")
			}
			hits, err := lcovCount(c)
			if err != nil {
				return nil, bad(err.Error())
			}
			f := b.function(sf, fn)
			f.Hits = addSat(f.Hits, hits)
		case "FNL":
			// FNL:index,start[,end]
			parts := strings.Split(val, ",")
			if len(parts) < 2 || len(parts) > 3 {
				return nil, bad("want index,line[,end]")
			}
			var se [2]int
			for i, p := range parts[1:] {
				v, err := lineNumber(p)
				if err != nil {
					return nil, bad(err.Error())
				}
				se[i] = v
			}
			if fnl == nil {
				fnl = map[string][2]int{}
			}
			fnl[parts[0]] = se
		case "FNA":
			// FNA:index,count,name (a name per alias of the index).
			parts := strings.SplitN(val, ",", 3)
			if len(parts) != 3 || parts[2] == "" {
				return nil, bad("want index,count,name")
			}
			hits, err := lcovCount(parts[1])
			if err != nil {
				return nil, bad(err.Error())
			}
			se, ok := fnl[parts[0]]
			if !ok {
				return nil, bad("no FNL record with index " + strconv.Quote(parts[0]))
			}
			f := b.function(sf, parts[2])
			f.Line, f.EndLine = se[0], se[1]
			f.Hits = addSat(f.Hits, hits)
		case "DA":
			// DA:line,count[,checksum]
			parts := strings.SplitN(val, ",", 3)
			if len(parts) < 2 {
				return nil, bad("want line,count")
			}
			ln, err := lineNumber(parts[0])
			if err != nil {
				return nil, bad(err.Error())
			}
			hits, err := lcovCount(parts[1])
			if err != nil {
				return nil, bad(err.Error())
			}
			b.line(sf, ln, hits)
		case "BRDA":
			// BRDA:line,block,branch,taken ("-" for never reached); lcov 2
			// may add an expression to the branch field.
			if strings.Count(val, ",") < 3 {
				return nil, bad("want line,block,branch,taken")
			}
			if _, err := lineNumber(val[:strings.IndexByte(val, ',')]); err != nil {
				return nil, bad(err.Error())
			}
		case "FNF", "FNH", "LF", "LH", "BRF", "BRH":
			if _, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64); err != nil {
				return nil, bad("not a count")
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, n+1, err)
	}
	return b.done(), nil
}

// lineNumber parses a line number (lcov writes 0 for unknown lines).
func lineNumber(s string) (int, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 31)
	if err != nil {
		return 0, fmt.Errorf("line number %.20q", s)
	}
	return int(v), nil
}

// lcovCount parses an execution count. Negative counts (written by gcov
// for counters that overflowed or raced) read as 0, counts too large for
// uint64 as its maximum, and counts with a fraction (some converters
// write them) are truncated.
func lcovCount(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseUint(s, 10, 64); err == nil {
		return v, nil
	} else if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && s != "" && s[0] != '-' {
		return ^uint64(0), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f {
		return 0, fmt.Errorf("count %.20q", s)
	}
	switch {
	case f <= 0:
		return 0, nil
	case f >= 1<<64:
		return ^uint64(0), nil
	}
	return uint64(f), nil
}

// WriteLcov writes c as an lcov tracefile that ParseLcov reads back to
// the same functions, hits and lines: per file, SF, then FN and FNDA of
// each function (by its Symbol), DA of each line, and end_of_record.
// Functions without a file are left out: lcov has no place for them.
func WriteLcov(w io.Writer, c *Coverage) error {
	bw := bufio.NewWriter(w)
	lines := map[string][]Line{}
	var files []string
	for _, f := range c.Files {
		if _, ok := lines[f.Path]; !ok {
			files = append(files, f.Path)
		}
		lines[f.Path] = append(lines[f.Path], f.Lines...)
	}
	funcs := map[string][]Function{}
	for _, fn := range c.Functions {
		if fn.File == "" {
			continue
		}
		if _, ok := lines[fn.File]; !ok {
			lines[fn.File] = nil
			files = append(files, fn.File)
		}
		funcs[fn.File] = append(funcs[fn.File], fn)
	}
	for _, file := range files {
		fmt.Fprintf(bw, "SF:%s\n", file)
		for _, fn := range funcs[file] {
			fmt.Fprintf(bw, "FN:%d,%s\n", fn.Line, fn.Symbol)
		}
		for _, fn := range funcs[file] {
			fmt.Fprintf(bw, "FNDA:%d,%s\n", fn.Hits, fn.Symbol)
		}
		for _, l := range lines[file] {
			fmt.Fprintf(bw, "DA:%d,%d\n", l.Number, l.Hits)
		}
		bw.WriteString("end_of_record\n")
	}
	return bw.Flush()
}
