package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

type pyRegion struct {
	ExecutedLines []int `json:"executed_lines"`
	MissingLines  []int `json:"missing_lines"`
}

type pyReport struct {
	Meta *struct {
		Version string `json:"version"`
	} `json:"meta"`
	Files map[string]struct {
		pyRegion
		Functions map[string]pyRegion `json:"functions"`
	} `json:"files"`
}

// ParseCoveragePy reads coverage.py's JSON report (coverage json). Lines
// are kept: executed lines with Hits 1, missing lines with Hits 0.
// coverage.py 7.5 and later add a "functions" region per file, named
// "Class.method" within the file; each becomes a Function named by
// QualifiedName ("pkg.mod.Class.method"), covered (Hits 1) when one of its
// lines ran; the region of module-level code (named "") is left out.
// Older reports have no functions: use PythonFunctions and AssignLines.
// name names the report in errors.
func ParseCoveragePy(r io.Reader, name string) (*Coverage, error) {
	var rep pyReport
	cr := &countingReader{r: r}
	dec := json.NewDecoder(cr)
	if err := dec.Decode(&rep); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty", name)
		}
		return nil, gcovError(name, cr, dec, err)
	}
	if rep.Meta == nil || rep.Files == nil {
		return nil, fmt.Errorf("%s: no meta or files: not a coverage.py JSON report", name)
	}
	paths := make([]string, 0, len(rep.Files))
	for p := range rep.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	b := newBuilder("coverage.py")
	for _, p := range paths {
		f := rep.Files[p]
		if p == "" {
			return nil, fmt.Errorf("%s: a file without a name", name)
		}
		b.file(p)
		for _, l := range f.MissingLines {
			if l < 0 {
				return nil, fmt.Errorf("%s: %s: negative line number %d", name, p, l)
			}
			b.line(p, l, 0)
		}
		for _, l := range f.ExecutedLines {
			if l < 0 {
				return nil, fmt.Errorf("%s: %s: negative line number %d", name, p, l)
			}
			b.lines[b.file(p)][l] = 1
		}
		syms := make([]string, 0, len(f.Functions))
		for s := range f.Functions {
			if s != "" {
				syms = append(syms, s)
			}
		}
		sort.Strings(syms)
		for _, s := range syms {
			reg := f.Functions[s]
			fn := b.function(p, s)
			first := 0
			for _, ls := range [][]int{reg.ExecutedLines, reg.MissingLines} {
				for _, l := range ls {
					if l > 0 && (first == 0 || l < first) {
						first = l
					}
				}
			}
			fn.Line = first
			if len(reg.ExecutedLines) > 0 {
				fn.Hits = 1
			}
		}
	}
	return b.done(), nil
}
