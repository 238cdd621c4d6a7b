//go:build unix

package coverage

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseCommand(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
		err  string
	}{
		{"prog --flag {}", []string{"prog", "--flag", "{}"}, ""},
		{`  a   'b c'  "d \"e\" \\ f" g\ h  `, []string{"a", "b c", `d "e" \ f`, "g h"}, ""},
		{`x '' ""`, []string{"x", "", ""}, ""},
		{`p --glob=*.c [a] ~`, []string{"p", "--glob=*.c", "[a]", "~"}, ""},
		{`p 'a|b' "c;d"`, []string{"p", "a|b", "c;d"}, ""},
		{"p | q", nil, "shell syntax"},
		{"p > out", nil, "shell syntax"},
		{"p $HOME", nil, "shell syntax"},
		{"p `id`", nil, "shell syntax"},
		{"p 'open", nil, "unterminated '"},
		{`p "open`, nil, `unterminated "`},
		{`p \`, nil, "at the end"},
		{"   ", nil, "empty"},
	} {
		got, err := ParseCommand(tt.line)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseCommand(%q) = %q, %v; want an error with %q", tt.line, got, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseCommand(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}

// TestCommandOutcomes: a command's outcome comes from how it ended: its
// status (with the statuses declared as rejections), a signal, a crash
// pattern on stderr, or the time limit. Inputs reach it as a file ({})
// or on stdin, never through a shell, and each run has its own folder.
func TestCommandOutcomes(t *testing.T) {
	script := filepath.Join(t.TempDir(), "subject.sh")
	// The script reads its input from the file named by $1 or from stdin,
	// and behaves as the input's first word says.
	os.WriteFile(script, []byte(`#!/bin/sh
if [ -n "$1" ]; then word=$(cat "$1"); else word=$(cat); fi
case "$word" in
ok) exit 0 ;;
reject) echo "bad input" >&2; exit 2 ;;
crash) echo "Traceback: boom" >&2; exit 1 ;;
segv) kill -SEGV $$ ;;
hang) sleep 30 ;;
pattern) echo "ERROR: AddressSanitizer: heap-buffer-overflow" >&2; exit 0 ;;
dir) touch "$ARBOR_RUN_DIR/left-behind"; exit 0 ;;
'$(touch pwned)') exit 0 ;;
*) echo "unknown: $word" >&2; exit 3 ;;
esac
`), 0o755)
	tests := []struct {
		input   string
		reject  []int
		outcome Outcome
		message string
	}{
		{"ok", nil, OK, ""},
		{"reject", nil, Error, "bad input (exit status 2)"},
		{"crash", nil, Error, "exit status 1"},
		{"reject", []int{2}, Error, "exit status 2"},
		{"crash", []int{2}, Panic, "Traceback: boom (exit status 1)"},
		{"segv", nil, Panic, "killed by signal: segmentation fault"},
		{"hang", nil, Timeout, "no result after"},
		{"pattern", nil, Panic, "AddressSanitizer: heap-buffer-overflow"},
		{"$(touch pwned)", nil, OK, ""},
	}
	work := t.TempDir()
	for _, viaFile := range []bool{true, false} {
		argv := []string{script}
		if viaFile {
			argv = append(argv, "{}")
		}
		c := &Command{Argv: argv, Dir: work, Crash: regexp.MustCompile(`ERROR: AddressSanitizer: [a-z-]+`)}
		for _, tt := range tests {
			c.Reject = tt.reject
			// Only the hanging input meets the time limit: on a loaded
			// machine a shell can take a while to start.
			c.Timeout = 20 * time.Second
			if tt.outcome == Timeout {
				c.Timeout = 300 * time.Millisecond
			}
			start := time.Now()
			r, err := c.Run(context.Background(), []byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != tt.outcome || !strings.Contains(r.Message, tt.message) {
				t.Errorf("file %v, %q (reject %v): %s %q, want %s with %q", viaFile, tt.input, tt.reject, r.Outcome, r.Message, tt.outcome, tt.message)
			}
			if tt.outcome == Timeout && time.Since(start) > 5*time.Second {
				t.Errorf("a hanging run took %v to end", time.Since(start).Round(time.Second))
			}
			r.Close()
		}
		if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
			t.Error("an input's bytes were run by a shell")
		}
	}
	// The run's folder holds what the program left there, until Close.
	c := &Command{Argv: []string{script, "{}"}}
	r, err := c.Run(context.Background(), []byte("dir"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "left-behind")); err != nil {
		t.Errorf("the run's folder: %v", err)
	}
	r.Close()
	if _, err := os.Stat(r.Dir); !os.IsNotExist(err) {
		t.Errorf("Close left the run's folder: %v", err)
	}
}

func TestCommandCannotStart(t *testing.T) {
	c := &Command{Argv: []string{filepath.Join(t.TempDir(), "no-such-program"), "{}"}}
	if r, err := c.Run(context.Background(), []byte("x")); err == nil || !strings.Contains(err.Error(), "no-such-program") {
		t.Errorf("a missing program: %+v, %v", r, err)
	}
	if _, err := (&Command{}).Run(context.Background(), nil); err == nil {
		t.Error("no program: no error")
	}
}

// FuzzParseCommand: any command line either splits or is refused with an
// error, never a panic; and words quoted back as a shell would quote them
// split into the same words.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"prog --flag {}", `a 'b c' "d \"e\"" f\ g`, "p | q", `x "`, "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := ParseCommand(line)
		if err != nil {
			return
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		again, err := ParseCommand(strings.Join(quoted, " "))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("%q split into %q; quoted back and split again: %q, %v", line, words, again, err)
		}
	})
}
