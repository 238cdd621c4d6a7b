package datasets_test

import "testing"

// TestExprlangConstraints checks the exprlang grammar's where clauses on
// expressions after the examples of expr-lang's language definition,
// over the subject's environment, and on near misses that break one
// clause each.
func TestExprlangConstraints(t *testing.T) {
	const (
		number   = "where Number"
		accessor = "all(Accessor"
		types    = "where Unary"
		call     = "where BuiltinCall"
		pipe     = "where PipeCall"
		pointer  = "where Pointer"
		relation = "all(RelationOperator"
		and      = "all(AndOperator"
		or       = "all(OrOperator"
		not      = "all(UnaryOperator"
	)
	checkConstraints(t, "exprlang", []constraintCase{
		{"42 + 0x2A * 0.5 - 1e10", nil},
		{"user.Name", nil},
		{`user.Tags[0] + m.b + words[-1]`, nil},
		{"nums[1:4] == nums[:3]", nil},
		{"s[1:] + upper(s)[:2]", nil},
		{"m.Name?.Age == nil", nil},
		{`{a: 1, b: 2}.a + (user).Age`, nil},
		{"split(s, \"r\")[0][1:]", nil},
		{"user.Greet(s)", nil},
		{`trim(s) + trim(s, "a") + join(words) + join(words, ",")`, nil},
		{`split(s, "r", 1)[0] + string(max(1, 2, x)) + string(min(1, x))`, nil},
		{`len(split(s, "r")) + sum([1, max(x, 2)]) + len(upper(s))`, nil},
		{`user.Name | lower() | split(" ")`, nil},
		{`words | join(",")`, nil},
		{`nums | all(# > 1)`, nil},
		{`all(nums, # > 1) and ok or not ok`, nil},
		{`"a" in words && !(x in nums) || s matches "^a" and s contains "b"`, nil},
		{`x in[1]`, nil},
		// Literals out of range.
		{"1e999", []string{number}},
		{"9223372036854775808", []string{number}},
		{"0xFFFFFFFFFFFFFFFFF", []string{number}},
		// Accessors on what has none.
		{"x.Age", []string{accessor}},
		{"4.Age", []string{accessor}},
		{"true?.a", []string{accessor}},
		{"nil?.Name", []string{accessor}},
		{`"abc"[0]`, []string{accessor}},
		{"y[:]", []string{accessor}},
		{"user.a", []string{accessor}},
		{"user.Name.Age", []string{accessor}},
		{"m.a.b", []string{accessor}},
		{"m.Name.Age", []string{accessor}},
		{"user.Greet.Name", []string{accessor}},
		{"len(s).Name[0]", []string{accessor, accessor}},
		// Operand types.
		{"-x + y * 2 ** 3 - x % 2", nil},
		{`1..x == nums and s + s < s || x <= y`, nil},
		{`not ok and ok || !ok ? -len(s) : user.Age + m.a`, nil},
		{`"a" in words && x in nums && s matches "a" and x == y`, nil},
		{"all(nums, # > 1) != none(words, # startsWith s)", nil},
		{"-ok", []string{types}},
		{"not x", []string{types}},
		{"x ** s", []string{types}},
		{"s * 2", []string{types}},
		{"y % 2", []string{types}},
		{"1..y", []string{types}},
		{"x and ok", []string{types}},
		{"x ? 1 : 2", []string{types}},
		{"x in s", []string{types}},
		{"x matches s", []string{types}},
		{"s + ok", []string{types}},
		{"!nums", []string{types}},
		{"user.Name ** 2", []string{types}},
		{"x - - ok", []string{types}},
		{"-(not ok)", nil},
		{"- not ok", []string{types}},
		{"(not ok) ** 2", nil},
		{"not ok ** 2", []string{types}},
		// Arguments.
		{"sum()", []string{call}},
		{"len(s, s)", []string{call}},
		{"split(s)", []string{call}},
		{`trim(s, "a", "b")`, []string{call}},
		{`max()`, []string{call}},
		{`len([1, 2], s)`, []string{call}},
		{`len(len(s, s))`, []string{call}},
		{`s | split()`, []string{pipe}},
		{`s | len(s)`, []string{pipe}},
		{`nums | map(# + len(s, s))`, []string{call}},
		// Pointers.
		{"all(nums, #Name)", []string{pointer}},
		// Word operators glued to names and numbers.
		{"x inwords", []string{relation}},
		{"1in nums", []string{relation}},
		{`s matches"a"`, nil},
		{"ok andok", []string{and}},
		{"okor ok", []string{or}},
		{"ok ||not ok", nil},
		{"x ==x", nil},
		{"okand not ok", []string{and}},
		{"[x]!= [not ok]", nil},
		{"[x,not ok]", nil},
		{"ok in[not ok]", nil},
		{"ok innot ok", []string{types, relation, not}},
	})
}
