package datasets_test

import (
	"regexp"
	"testing"
)

// graphqlValidation lists GraphQL documents, after the examples of the
// specification's section 5 "Validation" (October 2021) moved onto the
// subject's schema, and the sections each breaks: nil for a valid one.
var graphqlValidation = []clauseCase{
	// Valid documents.
	{"query Q($id: ID!) { user(id: $id) { ...userFields } }\nfragment userFields on User { id name }", nil},
	{"{ users(color: RED) { a: age name } }", nil},
	{`mutation { addPost(input: {title: "a", tags: ["x", "y"]}) { id title } }`, nil},
	{`{ search(text: "a") { __typename ... on User { name } ... on Post { title } } }`, nil},
	{"{ node(id: 4) { id ... on User { friends { name } } } }", nil},
	{"query Q($first: Int = 10, $flag: Boolean!) { users(first: $first) { name @include(if: $flag) } }", nil},
	{"mutation M($id: ID!) { like(id: $id, times: 2) }", nil},
	{`mutation($input: PostInput! = {title: "t"}) { addPost(input: $input) { id } }`, nil},
	{`query($id: ID = "1") { user(id: $id) { name } }`, nil},
	{"query($flag: Boolean = true) { version @include(if: $flag) }", nil},
	{"{ version version }", nil},
	{"{ a: user(id: 1) { name } a: user(id: 1) { age } }", nil},
	{"{ users(first: 1 color: null) { id } }", nil},
	{"query($text: String!) { ...f }\nfragment f on Query { search(text: $text) { __typename } }", nil},
	{`{ user(id: "1") { ...f } }` + "\nfragment f on Node { id }", nil},
	{`mutation { addPost(input: {title: "t", tags: "x"}) { id } }`, nil},
	{`mutation($text: [String!] = ["a"]) { addPost(input: {title: "t", tags: $text}) { id } }`, nil},
	{"# c\n{ ... @skip(if: false) { version } }", nil},

	// Section 3.3.1: the schema has no subscription root type.
	{"subscription { version }", []string{"3.3.1", "5.3.1"}},
	// 5.2.1.1 Operation Name Uniqueness.
	{"query Q { version }\nquery Q { __typename }", []string{"5.2.1.1"}},
	// 5.2.2.1 Lone Anonymous Operation.
	{"{ version }\nquery Q { version }", []string{"5.2.2.1"}},
	// 5.3.1 Field Selections: on an object, an interface, a union.
	{"{ user(id: 1) { title } }", []string{"5.3.1"}},
	{"{ node(id: 1) { name } }", []string{"5.3.1"}},
	{`{ search(text: "a") { name } }`, []string{"5.3.1"}},
	{"mutation { version }", []string{"5.3.1"}},
	// 5.3.2 Field Selection Merging: one response name, two fields or two
	// argument lists.
	{"{ v: version v: __typename }", []string{"5.3.2"}},
	{"{ user(id: 1) { id } user(id: 2) { id } }", []string{"5.3.2"}},
	// 5.3.3 Leaf Field Selections.
	{"{ version { id } }", []string{"5.3.1", "5.3.3"}},
	{"{ user(id: 1) }", []string{"5.3.3"}},
	// 5.4.1 Argument Names.
	{"{ user(id: 1, first: 2) { id } }", []string{"5.4.1"}},
	// 5.4.2 Argument Uniqueness.
	{"{ user(id: 1, id: 2) { id } }", []string{"5.4.2"}},
	// 5.4.2.1 Required Arguments.
	{"{ user { id } }", []string{"5.4.2.1"}},
	// 5.5.1.1 Fragment Name Uniqueness (and the second spreads itself).
	{"fragment f on Query { version }\nfragment f on Query { ...f }", []string{"5.5.1.1", "5.5.2.2"}},
	// 5.5.1.4 Fragments Must Be Used.
	{"{ version }\nfragment f on Query { version }", []string{"5.5.1.4"}},
	// 5.5.2.1 Fragment Spread Target Defined.
	{"{ ...f }", []string{"5.5.2.1"}},
	// 5.5.2.2 Fragment Spreads Must Not Form Cycles: directly, and
	// through another fragment.
	{"{ ...f }\nfragment f on Query { ...f }", []string{"5.5.2.2"}},
	{"fragment f on Query { ...userFields }\nfragment userFields on Query { ...f }", []string{"5.5.2.2", "5.5.2.2"}},
	// 5.5.2.3 Fragment Spread Is Possible: a named spread, an inline one.
	{"{ ...f }\nfragment f on User { id }", []string{"5.5.2.3"}},
	{"{ user(id: 1) { ... on Post { id } } }", []string{"5.5.2.3"}},
	{"{ node(id: 1) { ... on SearchResult { __typename } } }", nil},
	// 5.6.1 Values of Correct Type: arguments, input object fields, list
	// items, default values; a list where none is expected is wrong, and
	// so are its items.
	{`{ users(first: "x") { id } }`, []string{"5.6.1"}},
	{"{ users(color: PURPLE) { id } }", []string{"5.6.1"}},
	{"{ user(id: 1.5) { id } }", []string{"5.6.1"}},
	{"{ node(id: null) { id } }", []string{"5.6.1"}},
	{"{ users(first: [1]) { id } }", []string{"5.6.1", "5.6.1"}},
	{`mutation { addPost(input: {title: "t", tags: [1]}) { id } }`, []string{"5.6.1"}},
	{`mutation { addPost(input: {title: null}) { id } }`, []string{"5.6.1"}},
	{`query($first: Int = "x") { users(first: $first) { id } }`, []string{"5.6.1"}},
	{"query($id: ID! = null) { user(id: $id) { id } }", []string{"5.6.1"}},
	{"query($first: [Int!] = [null]) { users { id } }", []string{"5.6.1", "5.8.4"}},
	{"query($first: [Int] = [[1]]) { users { id } }", []string{"5.6.1", "5.6.1", "5.8.4"}},
	// 5.6.2 Input Object Field Names.
	{`mutation { addPost(input: {title: "t", text: "x"}) { id } }`, []string{"5.6.2"}},
	{`mutation($input: PostInput = {title: "t", id: 1}) { addPost(input: $input) { id } }`, []string{"5.6.2"}},
	// 5.6.3 Input Object Field Uniqueness.
	{`mutation { addPost(input: {title: "t", title: "u"}) { id } }`, []string{"5.6.3"}},
	// 5.6.4 Input Object Required Fields.
	{"mutation { addPost(input: {score: 1}) { id } }", []string{"5.6.4"}},
	{"mutation($input: PostInput! = {score: 1}) { addPost(input: $input) { id } }", []string{"5.6.4"}},
	// 5.8.1 Variable Uniqueness.
	{"query($id: ID!, $id: ID!) { user(id: $id) { id } }", []string{"5.8.1"}},
	// 5.8.2 Variables Are Input Types.
	{"query($id: User) { user(id: $id) { id } }", []string{"5.8.2", "5.8.5"}},
	// 5.8.3 All Variable Uses Defined: in the operation, in a fragment it
	// spreads.
	{"query Q { user(id: $id) { id } }", []string{"5.8.3"}},
	{"query { ...f }\nfragment f on Query { user(id: $id) { id } }", []string{"5.8.3"}},
	// 5.8.4 All Variables Used.
	{"query($id: ID!) { version }", []string{"5.8.4"}},
	{"query($first: [[Int]] = [1, [2, null]]) { users(first: 1) { id } }", []string{"5.8.4"}},
	// 5.8.5 All Variable Usages Are Allowed.
	{"query($id: Int) { user(id: $id) { id } }", []string{"5.8.5"}},
	{"query($flag: Boolean) { version @include(if: $flag) }", []string{"5.8.5"}},
	{`mutation($text: [String!]!) { addPost(input: {title: "t", tags: [$text]}) { id } }`, []string{"5.8.5"}},
	{"query($text: String) { ...f }\nfragment f on Query { search(text: $text) { __typename } }", []string{"5.8.5"}},
}

// TestGraphQLConstraints checks that the graphql grammar's where clauses
// tell valid documents from ones that break a rule of section 5, and
// which rule: a clause is known by the section its comment cites.
func TestGraphQLConstraints(t *testing.T) {
	checkClauses(t, "graphql", graphqlValidation, citedSection)
}

var sectionRef = regexp.MustCompile(`^// (?:Section )?(\d+(?:\.\d+)+)\b`)

// citedSection returns the section cited by the comment above the clause
// at line (1-based): the nearest comment line above it that starts with
// a section number.
func citedSection(lines []string, line int) string {
	for i := line - 2; i >= 0; i-- {
		if m := sectionRef.FindStringSubmatch(lines[i]); m != nil {
			return m[1]
		}
	}
	return "?"
}
