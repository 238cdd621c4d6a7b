package cel

import (
	"strings"
	"testing"
)

// TestRun checks what Run accepts and how it fails: expressions after
// the CEL language definition's examples run to completion; type
// errors fail to compile; runtime errors and the cost limit fail
// evaluation.
func TestRun(t *testing.T) {
	tests := []struct {
		expr string
		err  string // a part of the error, "" for none
	}{
		{"[1, 2, 3].map(x, x % 2 == 0, x * 2) == [4]", ""},
		{"m.all(k, k.startsWith('a')) || has(m.id)", ""},
		{"(2 > 10) ? 1 / 0 : 42", ""},
		{"timestamp('2023-01-01T00:00:00Z') + duration('24h') > t", ""},
		{"t.getDayOfWeek('+05:30') + dur.getMinutes()", ""},
		{"dyn(3.0) == 3 && type(1) == int", ""},
		{"names.sortBy(w, w.size()).distinct().join(',')", ""},
		{"math.greatest(xs) + math.bitShiftLeft(1, 2)", ""},
		{"base64.decode(base64.encode(b)) == b", ""},
		{"sets.intersects(lists.range(5), xs)", ""},
		{"strings.quote(s) + s.upperAscii().reverse()", ""},
		{"{'a': 10, 'c': 20}.filter(k, m[k] > 1)", ""},
		{"cel.bind(x, i + 1, x > 2) && cel.bind(w, s, w.size() == 5)", ""},

		{"1 + 1u", "compile"},
		{"xs.all(x, y > 0)", "undeclared reference"},
		{"1 / 0", "division by zero"},
		{"9223372036854775807 + 1", "overflow"},
		{"xs[5]", "eval"},
		{"m.z", "no such key"},
		{"lists.range(2000)", "eval"},
		{"lists.range(999).map(x, lists.range(999).map(y, x + y)).size()", "cost limit"},
	}
	for _, tc := range tests {
		err := Run([]byte(tc.expr))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.expr, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one with %q", tc.expr, err, tc.err)
		}
	}
}

// TestRunDeterministic runs expressions twice: the activation holds no
// clock and no state carries over from one evaluation to the next.
func TestRunDeterministic(t *testing.T) {
	for _, expr := range []string{"string(t) + string(dur)", "names.map(w, w + s)", "[1 / 0].sort()"} {
		a, b := Run([]byte(expr)), Run([]byte(expr))
		if (a == nil) != (b == nil) || a != nil && a.Error() != b.Error() {
			t.Errorf("%s: %v, then %v", expr, a, b)
		}
	}
}
