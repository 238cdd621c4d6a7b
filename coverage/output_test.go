package coverage

import (
	"bytes"
	"strings"
	"testing"
)

func TestOutputCapture(t *testing.T) {
	long := strings.Repeat("y", maxOutputLine+10)
	tests := []struct {
		name   string
		writes []string // to stdout
		shown  string
		count  int64
	}{
		{"lines", []string{"a\nb\n"}, "stdout| a\nstdout| b\n", 4},
		{"split writes", []string{"he", "llo\nwor", "ld\n"}, "stdout| hello\nstdout| world\n", 12},
		{"unfinished last line", []string{"x"}, "stdout| x\n", 1},
		{"long line cut", []string{long + "\nz\n"}, "stdout| " + long[:maxOutputLine] + " [cut]\nstdout| z\n", int64(len(long)) + 3},
		{"runtime's own note", []string{"warning: GOCOVERDIR not set, no coverage data emitted\nq\n"}, "stdout| q\n", 2},
		{"nothing", nil, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var shown bytes.Buffer
			c := newOutputCapture(&shown)
			w := c.writer("stdout", nil)
			for _, s := range tt.writes {
				w.Write([]byte(s))
			}
			c.flush()
			if shown.String() != tt.shown {
				t.Errorf("shown %q, want %q", shown.String(), tt.shown)
			}
			if c.total() != tt.count {
				t.Errorf("counted %d bytes, want %d", c.total(), tt.count)
			}
		})
	}
}

// TestOutputTail: stderr's tail, which crash reports are read from, is
// kept whether or not the output is shown, and bounded.
func TestOutputTail(t *testing.T) {
	for _, show := range []bool{false, true} {
		var shown bytes.Buffer
		c := newOutputCapture(nil)
		if show {
			c = newOutputCapture(&shown)
		}
		tail := &tailBuffer{max: 16}
		w := c.writer("stderr", tail)
		w.Write([]byte(strings.Repeat("-", 100) + "panic: boom\n"))
		if got := tail.String(); got != "----panic: boom\n" {
			t.Errorf("show %v: tail %q", show, got)
		}
	}
}

// FuzzOutputCapture: whatever a program writes, in whatever pieces, the
// capture counts every byte but the runtime's notes, shows every line
// with its prefix and no longer than the limit, and holds at most one
// line's worth.
func FuzzOutputCapture(f *testing.F) {
	f.Add([]byte("a\nb"), uint8(1))
	f.Add([]byte(strings.Repeat("x", 5000)+"\n\n"), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		var shown bytes.Buffer
		c := newOutputCapture(&shown)
		w := c.writer("stdout", nil).(*streamWriter)
		step := int(cut)%64 + 1
		for i := 0; i < len(data); i += step {
			w.Write(data[i:min(i+step, len(data))])
			if len(w.line) > maxOutputLine {
				t.Fatalf("holds %d bytes of a line", len(w.line))
			}
		}
		c.flush()
		var want int64
		for i, line := range bytes.Split(data, []byte("\n")) {
			if !bytes.HasPrefix(line, []byte("warning: GOCOVERDIR")) {
				want += int64(len(line))
				if i < bytes.Count(data, []byte("\n")) {
					want++
				}
			}
		}
		if c.total() != want {
			t.Errorf("counted %d, want %d", c.total(), want)
		}
		for _, line := range strings.SplitAfter(shown.String(), "\n") {
			if line == "" {
				continue
			}
			if !strings.HasPrefix(line, "stdout| ") || !strings.HasSuffix(line, "\n") || len(line) > len("stdout| ")+maxOutputLine+len(" [cut]\n") {
				t.Fatalf("shown line %q", line)
			}
		}
	})
}
