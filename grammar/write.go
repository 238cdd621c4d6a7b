package grammar

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"
)

// MaxIndent is the deepest level the text outline indents to. A deeper
// line starts with its depth instead ("·[5123] Value_2"): indenting every
// line by its depth would make the outline of a deeply nested input
// quadratic in its size (a 12,000-deep JSON array, 24 KB, has outline
// lines 60,000 levels deep).
const MaxIndent = 64

// writeBuffer is the size of the buffer a TreeWriter writes through.
const writeBuffer = 64 << 10

type treeFormat uint8

const (
	formatText treeFormat = iota
	formatJSON
	formatDOT
)

// A TreeWriter is a Visitor that writes the trees it is told, as they
// are told, in one of the formats of Tree.WriteText, Tree.WriteJSON and
// Tree.WriteDOT. It holds no more than the path from the root to the
// node being written, so the trees need not be built (Parsed.Visit).
//
// It writes through a buffer: a *bufio.Writer of at least 64 KB is used
// as it is, so a caller can write its own text between trees; anything
// else is wrapped. Flush writes out the buffer and returns the first
// write error.
type TreeWriter struct {
	w            *bufio.Writer
	format       treeFormat
	symbolicOnly bool
	depth        int      // text: depth of the next line shown
	open         []int32  // per open node: DOT its id; JSON 1 once its children array is open
	next         int      // DOT: the next node id
	labels       []string // per node id: its String, made once
	buf          []byte
}

func newTreeWriter(w io.Writer, f treeFormat) *TreeWriter {
	return &TreeWriter{w: bufio.NewWriterSize(w, writeBuffer), format: f}
}

// NewTextWriter returns a writer of indented outlines (Tree.WriteText).
func NewTextWriter(w io.Writer, symbolicOnly bool) *TreeWriter {
	tw := newTreeWriter(w, formatText)
	tw.symbolicOnly = symbolicOnly
	return tw
}

// NewJSONWriter returns a writer of trees as JSON values (Tree.WriteJSON),
// one after another; separating them is the caller's business.
func NewJSONWriter(w io.Writer) *TreeWriter { return newTreeWriter(w, formatJSON) }

// NewDOTWriter returns a writer of trees as Graphviz digraphs
// (Tree.WriteDOT), one per tree.
func NewDOTWriter(w io.Writer) *TreeWriter { return newTreeWriter(w, formatDOT) }

// Flush writes out what is buffered and returns the first error met.
func (tw *TreeWriter) Flush() error { return tw.w.Flush() }

// label returns what the format writes of every instance of n alike:
// n.String(), or in JSON its id, kind and label. It is made once per
// node: making it allocates, and a large tree repeats few nodes.
func (tw *TreeWriter) label(n *Node) string {
	if n.ID < 0 || n.ID > 1<<24 {
		return tw.makeLabel(n) // not a node of a graph
	}
	if n.ID >= len(tw.labels) {
		tw.labels = append(tw.labels, make([]string, n.ID+1-len(tw.labels))...)
	}
	if tw.labels[n.ID] == "" {
		tw.labels[n.ID] = tw.makeLabel(n)
	}
	return tw.labels[n.ID]
}

func (tw *TreeWriter) makeLabel(n *Node) string {
	if tw.format != formatJSON {
		return n.String()
	}
	b := append([]byte(`{"id":`), strconv.Itoa(n.ID)...)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, n.Kind.String())
	b = append(b, `,"label":`...)
	return string(appendJSONString(b, n.Label()))
}

// Enter writes what a node's line or object starts with.
func (tw *TreeWriter) Enter(n *Node, text string) {
	switch tw.format {
	case formatText:
		tw.enterText(n, text)
	case formatJSON:
		tw.enterJSON(n, text)
	case formatDOT:
		tw.enterDOT(n, text)
	}
}

// Leave ends what Enter started.
func (tw *TreeWriter) Leave(n *Node) {
	switch tw.format {
	case formatText:
		if n != nil && tw.shown(n) {
			tw.depth--
		}
	case formatJSON:
		if len(tw.open) == 0 {
			return
		}
		top := tw.open[len(tw.open)-1]
		tw.open = tw.open[:len(tw.open)-1]
		switch {
		case n == nil: // null was written whole
		case top == 1:
			tw.w.WriteString("]}")
		default:
			tw.w.WriteByte('}')
		}
	case formatDOT:
		if len(tw.open) == 0 {
			return
		}
		id := tw.open[len(tw.open)-1]
		tw.open = tw.open[:len(tw.open)-1]
		if len(tw.open) == 0 {
			tw.w.WriteString("}\n")
			return
		}
		b := append(tw.buf[:0], "  n"...)
		b = strconv.AppendInt(b, int64(tw.open[len(tw.open)-1]), 10)
		b = append(b, " -> n"...)
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, ";\n"...)
		tw.w.Write(b)
		tw.buf = b
	}
}

func (tw *TreeWriter) shown(n *Node) bool { return !tw.symbolicOnly || n.Kind.Symbolic() }

func (tw *TreeWriter) enterText(n *Node, text string) {
	if n != nil && !tw.shown(n) {
		return
	}
	b := tw.buf[:0]
	if tw.depth < MaxIndent {
		for range tw.depth {
			b = append(b, "  "...)
		}
	} else {
		b = append(b, "·["...)
		b = strconv.AppendInt(b, int64(tw.depth), 10)
		b = append(b, "] "...)
	}
	if n == nil {
		b = append(b, "<open slot>\n"...)
	} else {
		b = append(b, tw.label(n)...)
		if n.Kind == KindRegex {
			b = append(b, ' ')
			b = strconv.AppendQuote(b, text)
		}
		b = append(b, '\n')
		tw.depth++
	}
	tw.w.Write(b)
	tw.buf = b
}

func (tw *TreeWriter) enterJSON(n *Node, text string) {
	b := tw.buf[:0]
	if len(tw.open) > 0 {
		if top := &tw.open[len(tw.open)-1]; *top == 0 {
			b = append(b, `,"children":[`...)
			*top = 1
		} else {
			b = append(b, ',')
		}
	}
	tw.open = append(tw.open, 0)
	if n == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, tw.label(n)...)
		if n.Kind == KindLit || n.Kind == KindRegex {
			b = append(b, `,"text":`...)
			b = appendJSONString(b, text)
		}
	}
	tw.w.Write(b)
	tw.buf = b
}

func (tw *TreeWriter) enterDOT(n *Node, text string) {
	b := tw.buf[:0]
	if len(tw.open) == 0 {
		b = append(b, "digraph tree {\n  node [fontname=\"Helvetica\"];\n"...)
		tw.next = 0
	}
	id := tw.next
	tw.next++
	tw.open = append(tw.open, int32(id))
	b = append(b, "  n"...)
	b = strconv.AppendInt(b, int64(id), 10)
	if n == nil {
		b = append(b, " [label=\"\" shape=box style=dashed];\n"...)
	} else {
		name := tw.label(n)
		label, attrs := name, ""
		switch n.Kind {
		case KindLit, KindRegex:
			label, attrs = strconv.Quote(text), " shape=box"
		case KindAlt, KindCat, KindQuant:
			attrs = " shape=point"
		}
		b = append(b, " [label="...)
		b = appendDOTQuote(b, label)
		b = append(b, attrs...)
		b = append(b, " tooltip="...)
		b = appendDOTQuote(b, name)
		b = append(b, "];\n"...)
	}
	tw.w.Write(b)
	tw.buf = b
}

// appendJSONString appends s as encoding/json writes it (with HTML
// characters escaped), which it is left to do for any string that needs
// escaping.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendDOTQuote appends s as a DOT quoted string.
func appendDOTQuote(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b = append(b, '\\', byte(r))
		case '\n':
			b = append(b, `\n`...)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
