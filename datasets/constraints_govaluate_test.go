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
		prefix   = "Prefix == nil"
		context  = `enclosing(self, "Expression")`
	)
	checkConstraints(t, "govaluate", []constraintCase{
		{"x > 0", nil},
		{"(x * y / 100) >= 90", nil},
		{"name == 'service is ok'", nil},
		{"-x + len(name) * 2 ** 3 >= z && !flag || name > date", nil},
		{"name + 1", nil},
		{"x ?? flag", nil},
		{"flag ? name : x", nil},
		{"x IN list", nil},
		{"'a' IN (1, 'a')", nil},
		{"name =~ 'ar.' && date !~ '19'", nil},
		{"upper(name + 'x') == 'ARBORX'", nil},
		{"x == flag", nil},
		{"x << 2 | n & 1 ^ 3 >> 1", nil},
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
		{"!x", []string{prefix}},
		{"-flag", []string{prefix}},
		{"-upper(name)", []string{prefix}},
		// Where a chain stands: ternary condition, function argument,
		// group under a prefix.
		{"x ? 1 : 2", []string{context}},
		{"x ?? flag ? 1 : 2", []string{context}},
		{"upper(x)", []string{context}},
		{"len(list)", []string{context}},
		{"len(flag ? x : name)", []string{context}},
		{"!(x + 1)", []string{context}},
		{"-(x > 1)", []string{context}},
	})
}
