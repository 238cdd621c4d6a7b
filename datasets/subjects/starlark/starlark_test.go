package starlark

import (
	"strings"
	"testing"
)

// TestRun checks what Run accepts and how it stops what it must not run
// to the end.
func TestRun(t *testing.T) {
	tests := []struct {
		name  string
		input string
		err   string // a part of the error, "" for none
	}{
		{"closure", "def f():\n  x = 0\n  g = lambda n: n + x\n  return g(1)\nf()\n", ""},
		{"set and while", "def f(n):\n  i = 0\n  while i < 10:\n    i += 1\n  return len(set([1, 1, n]))\nf(2)\n", ""},
		{"print goes nowhere", "print(\"hello\")\n", ""},
		{"syntax", "def f(:\n", "want ')'"},
		{"undefined", "def f():\n  return n\n", "undefined: n"},
		{"top-level if", "if True:\n  x = 1\n", "if statement not within a function"},
		{"global reassigned", "x = 1\nx = 2\n", "cannot reassign global x"},
		{"recursion", "def f(n):\n  return f(n)\nf(1)\n", "called recursively"},
		{"load", "load(\"m.star\", \"x\")\n", "no modules"},
		{"dynamic error", "x = [][0]\n", "out of range"},
		{"budget", "def f():\n  i = 0\n  while i < 10:\n    i -= 1\n  return i\nf()\n", "too many steps"},
		{"too large", strings.Repeat("#", maxInput+1), "exceeds"},
	}
	for _, tc := range tests {
		err := Run([]byte(tc.input))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: got error %v, want one with %q", tc.name, err, tc.err)
		}
	}
}
