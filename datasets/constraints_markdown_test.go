package datasets_test

import "testing"

// TestMarkdownConstraints checks the markdown grammar's footnote clause
// on documents after the footnote syntax's examples, and on references
// without a definition.
func TestMarkdownConstraints(t *testing.T) {
	const broken = `all(ReferencedLabel`
	checkConstraints(t, "markdown", []constraintCase{
		{"Here is a simple footnote[^1].\n\n[^1]: My reference.", nil},
		{"[^2]: Defined first.\nUsed later[^2] and again[^2].", nil},
		{"No footnotes at all.", nil},
		{"[^3]: A definition nobody refers to.", nil},
		{"Missing[^1].", []string{broken}},
		{"Wrong label[^12].\n\n[^1]: One.\n[^2]: Two.", []string{broken}},
		{"Two[^4] missing[^5].\n[^4]: Four.", []string{broken}},
		// A reference inside a definition needs a definition too.
		{"[^1]: See[^9].\nText[^1].", []string{broken}},
	})
}
