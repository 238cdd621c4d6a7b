package goja

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// TestRun checks what Run accepts and rejects, and that its guards stop
// programs that would run or grow without end.
func TestRun(t *testing.T) {
	tests := []struct {
		name, src string
		want      error  // a guard's error, or nil
		rejects   string // a substring of the error, or "" for none
	}{
		{"ok", "const xs = [3, 1, 2];\nxs.sort((a, b) => a - b).join(\"-\");\n", nil, ""},
		{"class", "class P {\narea() {\nlet n = 2;\nreturn n * n;\n}\n}\nnew P().area();\n", nil, ""},
		{"syntax", "var x = 1\nx x;\n", nil, "SyntaxError"},
		{"strict", "x = 1;\n", nil, "ReferenceError"},
		{"octal", "var x = 010;\n", nil, "SyntaxError"},
		{"thrown", "throw new RangeError(\"r\");\n", nil, "RangeError"},
		{"tdz", "let x = x;\n", nil, "ReferenceError"},
		{"const", "const x = 1;\nx = 2;\n", nil, "TypeError"},
		{"random", "Math.random() === Math.random();\n", nil, ""},
		{"loop", "for (;;) {}\n", errBudget, ""},
		{"memory", "let s = \"ab\";\nfor (;;) s += s;\n", nil, "budget exceeded"},
	}
	var overflow *goja.StackOverflowError
	if err := Run([]byte("function f() {\nreturn f();\n}\nf();\n")); !errors.As(err, &overflow) {
		t.Errorf("unbounded recursion: %v, want a stack overflow", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := Run([]byte(tt.src))
			if d := time.Since(start); d > 10*budget {
				t.Errorf("ran %v", d)
			}
			switch {
			case tt.want != nil:
				if !errors.Is(err, tt.want) && (err == nil || !strings.Contains(err.Error(), tt.want.Error())) {
					t.Errorf("Run: %v, want %v", err, tt.want)
				}
			case tt.rejects == "":
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case err == nil || !strings.Contains(err.Error(), tt.rejects):
				t.Errorf("Run: %v, want an error with %q", err, tt.rejects)
			}
		})
	}
}
