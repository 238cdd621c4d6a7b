package datasets_test

import (
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
)

// starlarkPrograms lists modules after the examples of the Starlark
// specification (go.starlark.net doc/spec.md), moved onto the grammar's
// vocabulary, and whether the grammar takes them.
var starlarkPrograms = []struct {
	name  string
	input string
	ok    bool
}{
	// Functions: positional and named arguments, an optional parameter.
	{"call", "def f(x, i=3):\n  pass\n  return x // 2\nf(6, i=3)\n", true},
	// Name binding and variables: a function refers to a variable of
	// the enclosing function (a lambda here).
	{"closure", "def f():\n  x = 0\n  g = lambda n: n + x\n  return g(1)\nf()\n", true},
	// Break and Continue.
	{"continue", "def f():\n  l = []\n  for x in range(10):\n    if x & 1 == 1:\n      continue\n    l.append(x)\n  return len(l)\nf()\n", true},
	// While loops.
	{"while", "def f(n):\n  i = 0\n  while i < 10:\n    i += 1\n    n += i\n  return n\nf(3)\n", true},
	// Comprehensions.
	{"comprehension", "def f():\n  l = [x + x for x in range(5) if x & 1 == 0]\n  return len(l)\nf()\n", true},
	// Dictionary expressions, and an index assignment.
	{"dict", "d = {\"one\": 1, \"two\": 2}\ndef f():\n  d[\"three\"] = 3\n  return len(d)\nf()\n", true},
	// String interpolation and methods.
	{"format", "s = \"hello\"\ndef f(n):\n  print(\"%d\" % n, s.upper())\n  return n\nf(1)\n", true},
	// Assignments: a compound target.
	{"tuple", "def f():\n  i, j = 1, 2\n  i, j = j, i\n  return i - j\nf()\n", true},
	// Literals of each base, escapes, raw and triple-quoted strings.
	{"literals", "t = \"a\\tb\\101\" + r\"\\d\"\ndef f():\n  s = \"\"\"x\ny\"\"\"\n  i = int(1.5) | 0o755\n  return 0x7f + 0b1011\nf()\n", true},
	// If statements with elif and else.
	{"if", "def f(n):\n  if n > 0:\n    n = 1\n  elif n < 0:\n    n = -1\n  else:\n    n = 0\n  return n\nf(2)\n", true},

	// Near misses. If statements: not at top level.
	{"top-level if", "def f():\n  pass\n  return 1\nif True:\n  f()\nf()\n", false},
	// Name binding and variables: no augmented assignment at top level.
	{"top-level augmented", "i = 1\ndef f():\n  pass\n  return 1\ni += 1\nf()\n", false},
	// Break and Continue: only in a loop.
	{"break outside loop", "def f():\n  break\n  return 1\nf()\n", false},
	// Return statements: only in a function.
	{"top-level return", "def f():\n  pass\n  return 1\nreturn 1\nf()\n", false},
	// Indentation: a block's statements line up.
	{"indentation", "def f():\n pass\n  return 1\nf()\n", false},
	// Lexical elements: a decimal literal has no leading zero.
	{"leading zero", "def f():\n  pass\n  return 012\nf()\n", false},
	// A string repeated by a computed count (Starlark allows it; the
	// grammar does not, to bound memory).
	{"computed repeat", "def f(n):\n  s = \"a\" * n\n  return len(s)\nf(1)\n", false},
	// Comprehensions: the operand of a for clause is no bare tuple.
	{"tuple operand", "def f():\n  l = [x for x in 1, 2]\n  return 1\nf()\n", false},
}

// TestStarlarkGrammar checks that the starlark grammar takes the
// specification's examples, each as a tree that prints it back, and not
// the near misses.
func TestStarlarkGrammar(t *testing.T) {
	g, err := datasets.Grammar("starlark")
	if err != nil {
		t.Fatal(err)
	}
	var accept, reject []string
	for _, tc := range starlarkPrograms {
		if tc.ok {
			accept = append(accept, tc.input)
		} else {
			reject = append(reject, tc.input)
		}
	}
	checkSamples(t, g, accept, reject)
}

// starlarkChecks lists modules and the clauses each breaks, a clause
// known by the part of the specification its comment names: nil for
// one that breaks none.
var starlarkChecks = []clauseCase{
	{"def f(x, i=3):\n  pass\n  return x // 2\nf(6, i=3)\n", nil},
	{"def f():\n  x = 0\n  g = lambda n: n + x\n  return g(1)\nf()\n", nil},
	{"def f():\n  l = []\n  for x in range(10):\n    if x & 1 == 1:\n      continue\n    l.append(x)\n  return len(l)\nf()\n", nil},
	{"def f(n):\n  i = 0\n  while i < 10:\n    i += 1\n    n += i\n  return n\nf(3)\n", nil},
	{"def f():\n  l = [x + x for x in range(5) if x & 1 == 0]\n  return len(l)\nf()\n", nil},
	{"d = {\"one\": 1, \"two\": 2}\ndef f():\n  d[\"three\"] = 3\n  return len(d)\nf()\n", nil},
	{"s = \"hello\"\ndef f(n):\n  print(\"%d\" % n, s.upper())\n  return n\nf(1)\n", nil},
	{"def f():\n  i, j = 1, 2\n  i, j = j, i\n  return i - j\nf()\n", nil},
	// A global used in a function defined after it; a comprehension's
	// variable in its head; a global shadowed by a parameter.
	{"n = 1\ndef f(x):\n  l = [x + n for x in range(3)]\n  return x\nf(n)\n", nil},
	// A lambda bound in a function, called there.
	{"def f():\n  g = lambda n, i=2: n - i\n  return g(4, i=1)\nf()\n", nil},

	// Uses: no binding at all (an int, a string, a function).
	{"def f():\n  pass\n  return n\nf()\n", []string{"Name binding and variables (uses)"}},
	{"def f():\n  pass\n  return len(s)\nf()\n", []string{"Name binding and variables (uses)"}},
	{"def f():\n  pass\n  return 1\ng()\n", []string{"Name binding and variables (uses)"}},
	// Uses: the function binds the name, but after the use, hiding the
	// global.
	{"n = 1\ndef f():\n  i = n\n  n = 2\n  return i\nf()\n", []string{"Name binding and variables (uses)"}},
	// Uses: the right-hand side runs before the binding.
	{"def f():\n  n = n + 1\n  return n\nf()\n", []string{"Name binding and variables (uses)"}},
	// Uses: a loop variable after the loop, a binding in a branch after it.
	{"def f():\n  for i in range(3):\n    pass\n  return i\nf()\n", []string{"Name binding and variables (uses)"}},
	{"def f():\n  if True:\n    n = 1\n  return n\nf()\n", []string{"Name binding and variables (uses)"}},
	// Uses: a comprehension's first operand does not see its variable.
	{"def f():\n  l = [x for x in [x]]\n  return 1\nf()\n", []string{"Name binding and variables (uses)"}},
	// Uses: a list and a dict bound only in another function.
	{"def f():\n  l = []\n  d = {}\n  return 1\ndef g():\n  pass\n  return len(l) + len(d)\ng()\n",
		[]string{"Name binding and variables (uses)", "Name binding and variables (uses)"}},
	// Augmented assignments: the name bound before.
	{"def f():\n  n += 1\n  return 1\nf()\n", []string{"Name binding and variables (augmented assignments)"}},
	{"def f():\n  s += \"a\"\n  l += [1]\n  return 1\nf()\n",
		[]string{"Name binding and variables (augmented assignments)", "Name binding and variables (augmented assignments)"}},
	// Globals: bound once.
	{"n = 1\nn = 2\ndef f():\n  pass\n  return n\nf()\n", []string{"Name binding and variables (globals)"}},
	{"s = \"a\"\nd = {}\ndef f():\n  pass\n  return 1\ns = \"b\"\nd = {}\nf()\n",
		[]string{"Name binding and variables (globals)", "Name binding and variables (globals)"}},
	{"def f():\n  pass\n  return 1\nf = lambda n: n\nf(1)\n", []string{"Name binding and variables (globals)"}},
	// Functions: parameters.
	{"def f(n, n):\n  pass\n  return n\nf(1, 2)\n", []string{"Functions (parameters)"}},
	{"def f():\n  g = lambda n, n: n\n  return 1\nf()\n", []string{"Functions (parameters)"}},
	{"def f(n=1, i):\n  pass\n  return n\nf(1, 2)\n", []string{"Functions (optional parameters)"}},
	{"def f():\n  g = lambda n=1, i: n\n  return 1\nf()\n", []string{"Functions (optional parameters)"}},
	// Functions: calls.
	{"def f(n):\n  pass\n  return n\nf(1, 2)\n", []string{"Functions (calls)"}},
	{"def f(n):\n  pass\n  return n\nf()\n", []string{"Functions (calls)"}},
	{"def f(n):\n  pass\n  return n\nf(i=1)\n", []string{"Functions (calls)"}},
	{"def f(n):\n  pass\n  return n\nf(1, n=1)\n", []string{"Functions (calls)"}},
	{"def f(n, i=1):\n  pass\n  return n\nf(i=1, i=2)\n", []string{"Functions (calls)"}},
	// sorted: a key of one argument.
	{"l = [1]\ndef f():\n  m = sorted(l, key=lambda x, n: x)\n  return 1\nf()\n", []string{"sorted (key)"}},
	// Functions: no recursion.
	{"def f():\n  pass\n  return f()\nf()\n", []string{"Functions (recursion)"}},
	// While loops: the loop steps its own counter.
	{"def f(n):\n  i = 0\n  while i < 3:\n    n += 1\n  return n\nf(1)\n", []string{"While loops"}},
	// Dictionary expressions: keys once.
	{"d = {\"a\": 1, \"a\": 2}\ndef f():\n  pass\n  return 1\nf()\n", []string{"Dictionary expressions"}},
	// Sequence types: no mutation while iterating.
	{"l = [1]\ndef f():\n  for i in l:\n    l.append(i)\n  return 1\nf()\n", []string{"Sequence types"}},
	{"d = {}\ndef f():\n  for s in d:\n    d[\"a\"] = 1\n  return 1\nf()\n", []string{"Sequence types"}},
}

// TestStarlarkConstraints checks that the starlark grammar's where
// clauses tell modules that pass Starlark's static checks (and run) from
// ones that break a rule, and which rule.
func TestStarlarkConstraints(t *testing.T) {
	checkClauses(t, "starlark", starlarkChecks, starlarkRule)
}

// starlarkRule returns what the comment above the clause at line
// (1-based) names: the first line of the nearest comment block above
// it, up to its first period or colon.
func starlarkRule(lines []string, line int) string {
	i := line - 2
	for i >= 0 && !strings.HasPrefix(lines[i], "//") {
		i--
	}
	for i > 0 && strings.HasPrefix(lines[i-1], "//") {
		i--
	}
	if i < 0 {
		return "?"
	}
	text := strings.TrimPrefix(lines[i], "// ")
	if j := strings.IndexAny(text, ".:,"); j >= 0 {
		text = text[:j]
	}
	return text
}
