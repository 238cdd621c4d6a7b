package datasets_test

import "testing"

// TestYAMLConstraints checks the yaml grammar's where clauses on
// documents after the YAML 1.2.2 specification's examples (with the
// grammar's anchor names and indentation), and on near misses that break
// one clause each.
func TestYAMLConstraints(t *testing.T) {
	const (
		alias  = `enclosing(n, "Alias") == nil`
		unique = "let owner"
		tag    = `t.text == "!local"`
		merge  = `k.text != "<<"`
		escape = `all(Escape`
	)
	checkConstraints(t, "yaml", []constraintCase{
		// Example 2.10, an anchor and its alias.
		{"---\nhr:\n  - Mark McGwir\n  - &x Sammy Sosa\nrbi:\n  - *x # subsequent\n  - Ken Griffe\n", nil},
		// Example 2.19, integers; 2.23, explicit tags.
		{"canon: 12345\ndecimal: +12345\noctal: 0o14\nhex: 0xC\n", nil},
		{"not_date: !!str 2002\nflag: !!bool true\nnone: !!null ~\nn: !!int '12'\nf: !!float 1.5e3\n", nil},
		{"inf: !!float -.inf\nnan: !!float .NaN\ne: !!null \"\"\n", nil},
		{"m: !!map {a: 1}\ns: !!seq [1]\nb: !!map\n  a: 1\nq: &a1 !!seq\n  - 1\nl: !local {a: 1}\n", nil},
		// Anchors redefined: an alias names the latest one before it.
		{"a: &x 1\nb: *x\nc: &x [2]\nd: [*x, *x]\n", nil},
		// 5.7 and 5.1: a \u escape of a character, not of a surrogate.
		{"a: \"\\u00e9\\ud7ff\\ue000\\x41\"\n", nil},
		{"a: \"\\uD800\"\n", []string{escape}},
		{"a: \"x\\udfff\"\n", []string{escape}},
		// 7.1: an alias whose anchor does not precede it.
		{"a: *x\nb: &x 1\n", []string{alias}},
		{"- *base\n", []string{alias}},
		{"a: &a1 1\nb: [*a1, *x]\n", []string{alias}},
		// 3.2.1.1: unique keys, also across quoting; not across mappings.
		{"a: 1\nb:\n  a: 2\n  b: {a: 3, b: 4}\nc: [{a: 1}, {a: 2}]\n", nil},
		{"true: 1\n'true': 2\nnull: 3\n\"null\": 4\n", nil},
		{"a: 1\nb: 2\na: 3\n", []string{unique}},
		{"a: 1\n'a': 2\n", []string{unique}},
		{"x:\n  b: 1\n  \"b\": 2\n", []string{unique}},
		{"x:\n  y:\n    k: 1\n    k: 2\n", []string{unique}},
		{"{a: 1, 'it''s': 2, \"it's\": 3}\n", []string{unique}},
		// 3.3.2: content valid for its tag.
		{"n: !!int twelve\n", []string{tag}},
		{"n: !!float 0x1F\n", []string{tag}},
		{"n: !!bool yes\n", []string{tag}},
		{"n: !!null 0\n", []string{tag}},
		{"n: !!str [a]\n", []string{tag}},
		{"n: !!map [a]\n", []string{tag}},
		{"n: !!seq\n  a: 1\n", []string{tag}},
		{"n: !!int\n  - 1\n", []string{tag}},
		// Merge keys: a mapping, directly, by alias, or a sequence of
		// them.
		{"center: &base {x: 1, y: 2}\nmerged:\n  <<: *base\n  r: 10\n", nil},
		{"base: &x\n  port: 80\nprod:\n  <<: *x\n  host: example.com\n", nil},
		{"a:\n  <<: {x: 1}\nc:\n  <<:\n    y: 2\nb: {<<: [{x: 1}, {r: 1}], c: 3}\n", nil},
		{"a:\n  <<: {x: 1}\n  <<: {y: 1}\n", []string{unique}},
		{"a:\n  <<:\n    - {x: 1}\n    - {r: 2}\n", nil},
		{"a: &a1 3\nb:\n  <<: *a1\n", []string{merge}},
		{"b:\n  <<: 3\n", []string{merge}},
		{"b: {<<: [1, 2]}\n", []string{merge}},
		{"a:\n  <<:\n    - x\n", []string{merge}},
	})
}
