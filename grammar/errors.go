package grammar

import (
	"fmt"
	"sort"
	"strings"
)

// Position is a place in a grammar file or an input.
// Line and Col are 1-based; Col counts bytes. Offset is 0-based.
type Position struct {
	Filename string
	Offset   int
	Line     int
	Col      int
}

// IsValid reports whether the position has a line number.
func (p Position) IsValid() bool { return p.Line > 0 }

// String formats the position as file:line:col (parts that are unknown are left out).
func (p Position) String() string {
	s := p.Filename
	if p.IsValid() {
		if s != "" {
			s += ":"
		}
		s += fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	if s == "" {
		s = "-"
	}
	return s
}

// Error is a problem found in a grammar, with the position it was found at.
type Error struct {
	Pos Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Warning is a finding that does not stop a grammar from being used,
// such as a duplicate alternative or a left-recursive rule.
type Warning struct {
	Pos Position
	Msg string
}

func (w Warning) String() string { return w.Pos.String() + ": warning: " + w.Msg }

// ErrorList is a list of grammar errors, sorted by position. It implements error.
type ErrorList []*Error

func (l *ErrorList) add(pos Position, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns nil for an empty list and the list itself otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// LineIndex converts byte offsets of a source into positions (file,
// line, column), for the grammar parsers of every notation.
type LineIndex struct {
	filename string
	starts   []int // offset of the first byte of each line
}

// NewLineIndex indexes the lines of src, named filename in positions.
func NewLineIndex(filename string, src []byte) *LineIndex {
	ix := &LineIndex{filename: filename, starts: []int{0}}
	for i, c := range src {
		if c == '\n' {
			ix.starts = append(ix.starts, i+1)
		}
	}
	return ix
}

// Position is the position of a byte offset.
func (ix *LineIndex) Position(offset int) Position {
	line := sort.Search(len(ix.starts), func(i int) bool { return ix.starts[i] > offset }) - 1
	if line < 0 {
		line = 0
	}
	return Position{Filename: ix.filename, Offset: offset, Line: line + 1, Col: offset - ix.starts[line] + 1}
}
