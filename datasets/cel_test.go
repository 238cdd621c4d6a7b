package datasets_test

import (
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
)

// celPrograms are expressions after the examples of the CEL language
// definition (cel-spec doc/langdef.md) and of cel-go's extension
// libraries (ext/README.md), moved onto the subject's environment and
// the grammar's names (loop variables x, y and w, k; map keys from a
// small vocabulary).
var celPrograms = []string{
	// Syntax, Numeric Values, String and Bytes Values.
	"1 + 2", "3.14 + 1.59", "7.0 == double(7)", ".70e1 > 7e0", "13u * 3u", "0x1F + -5",
	`"Hello" + ", all"`, `"\"" + ("\\" + r"\\")`, `'''x''' + "\303\277"`, `"\xFF" + "\u00e9\U0001F600"`,
	`b"abc" + b"\303\277"`, `b'' + B"\xff"`, "// a comment\nok",
	// Macros and Presence.
	"[1, 2, 3].all(x, x > 0)", "[1, 2, 3].exists(x, x % 2 != 0)", "[1, 2, 2].exists_one(x, x < 2)",
	"[1, 2, 3].map(x, x * 2)", "[1, 2, 3].map(x, x % 2 == 0, x * 2)", "[1, 2, 3].filter(x, x > 1)",
	"names.all(w, w.size() > 3)", "{'a': 1, 'b': 2}.map(k, k)", "{'a': 10, 'c': 20}.filter(k, m[k] > 10)",
	"has(m.a)", "m.all(k, k.startsWith('a'))", "xs.all(x, xs.exists(y, x > y))",
	// Logical, Arithmetic, Comparison, List and Map Operators.
	"(!true || false) && ok", "(2 > 10) ? 1 / 0 : 42", "ok ? 'a' : 'b'", "-(5) - -(3)", "[1] + [2, 3]",
	"duration('1m') + duration('1s')", "timestamp('2023-01-01T00:00:00Z') + duration('24h')",
	"timestamp('2023-01-10T12:00:00Z') - timestamp('2023-01-10T00:00:00Z')", "'b' >= 'a'",
	"dyn(3.0) == 3", "2 in [1, 2, 3]", "'a' in {'a': 1, 'b': 2}", "{'b': 2}['b'] + m.c", "size(b'world')",
	"b'hello'.size()", "type(1) == int", "type(1) != type('a')", "dyn(names) != null",
	// String and Date/Time Functions, Types and Conversions.
	`"hello".contains("ell")`, `matches("foobar", 'f.*')`, `"foobar".matches('^f(a|b)?\\d*')`,
	"timestamp('2023-12-25T00:00:00Z').getDate('UTC')", "t.getDayOfWeek('+05:30')", "duration('1h30m').getMinutes()",
	"bool('true')", "bytes('hello') == b'hello'", "int('123') + int(3.14)", "uint(3.14) + uint(123)",
	"string(123u) + string(duration('1m1ms'))", "string(t)", "double('3.14')",
	// Extensions: strings, math, lists, sets, encoders.
	"'hello'.charAt(4) + 'taco'.substring(0, 4)", "'hello'.replace('he', 'we', 1)",
	"'hello'.indexOf('ell', 2) + s.lastIndexOf('l')", "['hello', 'mellow'].join(' ')", "'a b c'.split(' ', 2)",
	"strings.quote(s) + 'gums'.reverse()", "' x '.trim().upperAscii()", "math.greatest(1, 2) + math.least(xs)",
	"math.bitShiftLeft(1, 2) + math.bitNot(-1)", "math.ceil(1.2) + math.sqrt(81)", "math.isNaN(0.0 / 0.0)",
	"[1, 2, 2].distinct().reverse()", "lists.range(5).slice(1, 3)", "[[1], [2, 3]].flatten().sort()",
	"names.sortBy(w, w.size())", "sets.contains([1, 2, 3], [2, 3])", "base64.encode(b'hello')",
	"base64.decode('aGVsbG9v')", "cel.bind(x, 1 + 2, x > 2)", "cel.bind(w, s + 'a', w.size() > 1) && ok",
	"cel.bind(x, i, x * 2) + 1",
}

// celNearMisses are outside the grammar: type errors the checker
// rejects, syntax the language definition forbids, and calls at an
// arity no overload has.
var celNearMisses = []string{
	"1 + 1u", "'a' + 1", "true + true", "1.0 % 2.0", "-u", "1 < 2 < 3", "ok ? 1 : 'a'", "xs[0].size()",
	"xs.all(x)", "s.size(1)", "has(m.if)", `"\s"`, `"\uD83D"`, "0x", "1.", "math.sqrt()", "[1, 2",
	"duration('1d')", "{'if': 1}.size() + 1 - 2 * 3", "1.e5",
}

// TestCELPrograms checks that the cel grammar derives the examples, each
// to a tree whose text is the example again, and none of the near
// misses.
func TestCELPrograms(t *testing.T) {
	g, err := datasets.Grammar("cel")
	if err != nil {
		t.Fatal(err)
	}
	checkSamples(t, g, celPrograms, celNearMisses)
}

// TestCELConstraints checks the cel grammar's where clauses: the scoping
// of loop variables (LD Macros) and map literals' unique keys (LD
// Aggregate Values).
func TestCELConstraints(t *testing.T) {
	const (
		intLoop    = "where IntLoopUse:"
		stringLoop = "where StringLoopUse:"
		mapKey     = "where MapKey:"
	)
	checkConstraints(t, "cel", []constraintCase{
		{"xs.all(x, x > 0)", nil},
		{"m.exists(k, k == 'a')", nil},
		{"[1, 2].map(x, x < 2, x * 2)", nil},
		{"names.map(w, w.size() > 1, m[w])", nil},
		// The inner loop variable shadows the outer one; the outer one is
		// in scope in the inner body.
		{"xs.all(x, [1].exists(x, x > 0))", nil},
		{"xs.all(x, xs.exists(y, x > y))", nil},
		{"{'a': 1, \"b\": 2}.size() > 1", nil},
		{"{'a': {'a': 1}.size()} == m", nil},
		// Undeclared: a name no comprehension declares.
		{"xs.all(x, y > 0)", []string{intLoop}},
		{"names.all(w, k == 'a')", []string{stringLoop}},
		// Out of scope: a variable of another comprehension, whose
		// body does not enclose the use.
		{"[1].map(x, x).all(y, x > 0)", []string{intLoop}},
		{"names.filter(w, w == s).exists(k, w > 'a')", []string{stringLoop}},
		// Out of scope: the loop variable of the comprehension whose
		// range holds the use.
		{"xs.map(y, y).map(x, x).exists(y, x > 1)", []string{intLoop}},
		// A bound variable is in scope in cel.bind's result only.
		{"cel.bind(x, 1, x > 0)", nil},
		{"cel.bind(x, 1, cel.bind(y, 2, x < 3))", nil},
		{"cel.bind(x, 1, y > 0)", []string{intLoop}},
		{"cel.bind(x, 1, x > 0) && xs.all(y, x > 1)", []string{intLoop}},
		{"cel.bind(k, s, k == 'a') || names.exists(w, k == 'b')", []string{stringLoop}},
		// Duplicate keys, in either quoting.
		{"{'a': 1, \"a\": 2}.size() > 1", []string{mapKey}},
		{"{'b': 1, 'c': 2, 'b': 3} == m", []string{mapKey}},
		// Both kinds at once.
		{"{'a': 1, 'a': 2}.exists(k, w == 'a')", []string{stringLoop, mapKey}},
	})
}
