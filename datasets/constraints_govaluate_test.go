package datasets_test

import "testing"

// TestGovaluateConstraints checks the govaluate grammar's type clauses
// on expressions after the examples of govaluate's README and MANUAL,
// over the subject's parameters, and on expressions that give an
// operator, a prefix, a ternary or a function an operand of the wrong
// type.
func TestGovaluateConstraints(t *testing.T) {
	const (
		operands = "all(Operator"
		context  = `enclosing(self, "Expression")`
	)
	checkConstraints(t, "govaluate", []constraintCase{
		{"x > 0", nil},
		{"(x * y / 100) >= 90", nil},
		{"name == 'service is ok'", nil},
		{"((-x + len(name) * 2 ** 3) >= z && !flag) || name > date", nil},
		{"name + 1", nil},
		{"x ?? flag", nil},
		{"flag ? name : x", nil},
		{"x IN list", nil},
		{"'a' IN (1, 'a')", nil},
		{"name =~ 'ar.' && date !~ '19'", nil},
		{"upper(name + 'x') == 'ARBORX'", nil},
		{"x == flag", nil},
		{"(x << 2 | n) & (1 ^ 3 >> 1)", nil},
		{"len(flag ? name : date) > 3", nil},
		{"x > 1 == flag", nil},
		// Operators.
		{"x && flag", []string{operands}},
		{"name - 1", []string{operands}},
		{"x + flag", []string{operands}},
		{"x > name", []string{operands}},
		{"x =~ 'a'", []string{operands}},
		{"x IN name", []string{operands}},
		{"(1, 2) + 1", []string{operands}},
		{"name + 1 - 2", []string{operands}},
		{"x + 1 || flag", []string{operands}},
		{"1 + 2 > 3 * 'a'", []string{operands}},
		{"flag && name ?? x", []string{operands}},
		// Prefixes.
		{"(-len(name) + -x + -(x) == -1) && (!flag && !(x > 1) && !true)", nil},
		// Where a chain stands: ternary condition, function argument,
		// group under a prefix.
		{"x ? 1 : 2", []string{context}},
		{"x ?? flag ? 1 : 2", []string{context}},
		{"upper(x)", []string{context}},
		{"len(list)", []string{context}},
		{"len(flag ? x : name)", []string{context}},
		{"-len(x)", []string{context}},
		{"upper(name + -len(x))", []string{context}},
		{"-len(upper(x))", []string{context}},
		{"!(x + 1)", []string{context}},
		{"-(x > 1)", []string{context}},
	})
}

// TestGovaluateSyntax checks what the govaluate grammar's rules, not its
// clauses, rule out after govaluate's MANUAL: a prefix on an operand of
// the wrong type, an array of one item; and the sizes the rules keep.
func TestGovaluateSyntax(t *testing.T) {
	checkSyntax(t, "govaluate", []string{
		"-x", "-1.5", "-len(name)", "-(x + 1)", "!flag", "!true", "!(x > 1)",
		"(1, 2)", "(1, 2, 3, 4)", "x + y * z - n", "x > 0 && y < 1", "flag ? x : y",
	}, []string{
		// Modifiers: Negation - takes a number, Inversion ! a bool.
		"!x", "!1", "!name", "!'a'", "!len(name)", "-flag", "-true", "-name", "-'a'", "-upper(name)", "-list",
		// Separator: an array has two items or more; ( 0) is a group.
		"(1,)", "(, 1)",
		// Outside the sizes the rules keep.
		"x + y + z + n + 1", "(1, 2, 3, 4, 5)",
	})
}
