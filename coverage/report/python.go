package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
)

// Range is where a function's code is in its source file: the function is
// Symbol ("Class.method", "outer.inner"), its def statement starts at
// Line (its first decorator's line, if it has decorators) and its body runs
// from BodyLine to EndLine.
type Range struct {
	Symbol   string
	Line     int
	BodyLine int
	EndLine  int
}

// pythonRanges prints, for each file named on the command line, its
// functions' ranges as JSON: {"file": [[symbol, line, body, end], ...]}.
// Nested functions and methods are named through their enclosing classes
// and functions, joined with dots ("Parser.parse", "parse.helper"), as
// coverage.py 7.5 names its function regions.
const pythonRanges = `
import ast, json, sys
out = {}
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), path)
    found = []
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                found.append([name, start, child.body[0].lineno, child.end_lineno])
                walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)
    walk(tree, "")
    out[path] = found
json.dump(out, sys.stdout)
`

// PythonFunctions runs python (a Python 3.8 or later interpreter, such as
// "python3") to read the function ranges of the source files with Python's
// own parser, the ast module. The files are read in dir ("" for the
// current directory) and keyed in the result as given. It is for
// coverage.py reports before 7.5, which have lines but no functions:
// AssignLines turns their lines into functions.
func PythonFunctions(ctx context.Context, python, dir string, files []string) (map[string][]Range, error) {
	if len(files) == 0 {
		return map[string][]Range{}, nil
	}
	cmd := exec.CommandContext(ctx, python, append([]string{"-c", pythonRanges}, files...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := bytes.TrimSpace(stderr.Bytes())
		if i := bytes.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:] // the exception, not the traceback
		}
		return nil, fmt.Errorf("reading Python function ranges: %w: %s", err, msg)
	}
	return parsePythonRanges(out)
}

// parsePythonRanges reads the output of the pythonRanges script.
func parsePythonRanges(data []byte) (map[string][]Range, error) {
	var raw map[string][][]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("reading Python function ranges: %w", err)
	}
	out := make(map[string][]Range, len(raw))
	for file, fns := range raw {
		rs := make([]Range, 0, len(fns))
		for _, f := range fns {
			var r Range
			if len(f) != 4 || json.Unmarshal(f[0], &r.Symbol) != nil || json.Unmarshal(f[1], &r.Line) != nil ||
				json.Unmarshal(f[2], &r.BodyLine) != nil || json.Unmarshal(f[3], &r.EndLine) != nil {
				return nil, fmt.Errorf("reading Python function ranges: %s: malformed entry", file)
			}
			rs = append(rs, r)
		}
		out[file] = rs
	}
	return out, nil
}

// AssignLines adds a function for each range of each file in ranges
// (keyed by the file's path as in c.Files) and sets its Hits to the
// largest count of its lines: the lines of its body, BodyLine to EndLine,
// but for those of functions nested in it. A def statement's own line
// belongs to the code around it, which runs it when it defines the
// function, so a function counts as covered only when its body ran.
// Functions c already has (by file and symbol) are not added again.
func (c *Coverage) AssignLines(ranges map[string][]Range) {
	have := map[[2]string]bool{}
	for _, f := range c.Functions {
		have[[2]string{f.File, f.Symbol}] = true
	}
	for _, file := range c.Files {
		rs := ranges[file.Path]
		if len(rs) == 0 {
			continue
		}
		// Sort by body start; for a line, the innermost range holding it
		// is the one with the latest body start among those holding it.
		idx := make([]int, len(rs))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return rs[idx[a]].BodyLine < rs[idx[b]].BodyLine })
		hits := make([]uint64, len(rs))
		for _, l := range file.Lines {
			if l.Hits == 0 {
				continue
			}
			// The ranges starting at or before the line, innermost last.
			k := sort.Search(len(idx), func(i int) bool { return rs[idx[i]].BodyLine > l.Number })
			for j := k - 1; j >= 0; j-- {
				r := rs[idx[j]]
				if l.Number <= r.EndLine {
					if l.Hits > hits[idx[j]] {
						hits[idx[j]] = l.Hits
					}
					break
				}
			}
		}
		for i, r := range rs {
			if have[[2]string{file.Path, r.Symbol}] {
				continue
			}
			have[[2]string{file.Path, r.Symbol}] = true
			c.Functions = append(c.Functions, Function{
				Name: QualifiedName(file.Path, r.Symbol), Symbol: r.Symbol, File: file.Path,
				Line: r.Line, EndLine: r.EndLine, Hits: hits[i],
			})
		}
	}
}
