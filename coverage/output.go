package coverage

import (
	"bytes"
	"io"
	"sync"
)

// maxOutputLine is the longest line of the subject's output that is shown
// whole; the rest of a longer line is cut, so that a subject printing
// megabytes without a newline cannot make arbor hold them.
const maxOutputLine = 4096

// outputCapture takes what the subject writes to stdout and stderr, for
// every harness process of a session: it counts the bytes, keeps the tail
// of stderr (crash reports are read from it) and, if asked, copies the
// output line by line to one writer, each line prefixed with its stream.
// Memory stays bounded whatever the subject writes.
type outputCapture struct {
	mu    sync.Mutex
	show  io.Writer
	bytes int64
	open  []*streamWriter // of the current process, for flushing
}

func newOutputCapture(show io.Writer) *outputCapture {
	return &outputCapture{show: show}
}

// writer returns the writer for one stream of a new process; tail, if
// set, also gets every byte.
func (c *outputCapture) writer(stream string, tail *tailBuffer) io.Writer {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &streamWriter{c: c, prefix: stream + "| ", tail: tail}
	c.open = append(c.open, w)
	if len(c.open) > 2 {
		c.open = c.open[len(c.open)-2:]
	}
	return w
}

func (c *outputCapture) total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// flush shows the unfinished last lines of a process that is gone.
func (c *outputCapture) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.open {
		if len(w.line) > 0 || w.cut {
			w.emit()
		}
	}
	c.open = nil
}

type streamWriter struct {
	c      *outputCapture
	prefix string
	tail   *tailBuffer
	line   []byte // the unfinished line, at most maxOutputLine bytes
	cut    bool   // the line was longer and is cut
	n      int    // the line's whole length, with its newline
}

func (w *streamWriter) Write(p []byte) (int, error) {
	if w.tail != nil {
		w.tail.Write(p)
	}
	c := w.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		chunk := rest
		if i >= 0 {
			chunk = rest[:i]
		}
		w.n += len(chunk)
		room := maxOutputLine - len(w.line)
		if len(chunk) > room {
			chunk, w.cut = chunk[:room], true
		}
		w.line = append(w.line, chunk...)
		if i < 0 {
			break
		}
		w.n++
		w.emit()
		rest = rest[i+1:]
	}
	return len(p), nil
}

// emit counts and shows the line; c.mu is held. The runtime's note that
// GOCOVERDIR is not set, written when a harness exits, is arbor's doing,
// not the subject's: it is neither counted nor shown.
func (w *streamWriter) emit() {
	if !bytes.HasPrefix(w.line, []byte("warning: GOCOVERDIR")) {
		w.c.bytes += int64(w.n)
		if w.c.show != nil {
			var b bytes.Buffer
			b.WriteString(w.prefix)
			b.Write(w.line)
			if w.cut {
				b.WriteString(" [cut]")
			}
			b.WriteByte('\n')
			w.c.show.Write(b.Bytes())
		}
	}
	w.line, w.cut, w.n = w.line[:0], false, 0
}
