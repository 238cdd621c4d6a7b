package datasets_test

import (
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
)

// The clauses on operands' and arguments' kinds, by how their text
// starts.
const (
	accessor = "where Postfix: all(Accessor"
	power    = "where Power"
	mul      = "where Multiplicative"
	add      = "where Additive"
	rng      = "where Range"
	rel      = "where Relation"
	eq       = "where Equality"
	andKind  = "where And:"
	orKind   = "where Or:"
	cond     = "where Expr"
	unary    = "where Unary"
	args     = "let own = reduce(Expr"
	upper    = "where FunctionCall"
	method   = "where MethodCall"
	pred     = "where PredicateCall"
	stage    = "where Pipeline"
	group    = "where Postfix: Primary == nil || Primary.text not startsWith"
	emptyMap = "where Postfix: Primary == nil || Primary.text not matches"
	index    = "where Postfix: all(Index"
	slice    = "where Postfix: all(Slice"
)

// TestExprlangConstraints checks the exprlang grammar's where clauses on
// expressions after the examples of expr-lang's language definition,
// over the subject's environment, and on near misses that break one
// clause each.
func TestExprlangConstraints(t *testing.T) {
	const number = "where Number"
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
		{`split(s, "r", 1)[0] + string(max(1, x)) + string(min(1, x))`, nil},
		{`len(split(s, "r")) + sum([1, max(x, 2)]) + len(upper(s))`, nil},
		{`user.Name | lower() | split(" ")`, nil},
		{`words | join(",")`, nil},
		{`nums | all(# > 1)`, nil},
		{`all(nums, # > 1) and ok or not ok`, nil},
		{`"a" in words && !(x in nums) || s matches "^a" and s contains "b"`, nil},
		// Literals out of range.
		{"9223372036854775808", []string{number}},
		{"0xFFFFFFFFFFFFFFFFF", []string{number}},
		// Accessors on what has none.
		{"x.Age", []string{accessor}},
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
		{`"a" in words && x in nums && s matches "a" && x == y`, nil},
		{"all(nums, # > 1) != none(words, # startsWith s)", nil},
		{"-ok", []string{unary}},
		{"not x", []string{unary}},
		{"x ** s", []string{power}},
		{"s * 2", []string{mul}},
		{"y % 2", []string{mul}},
		{"1..y", []string{rng}},
		{"x and ok", []string{andKind}},
		{"x ? 1 : 2", []string{cond}},
		{"x in s", []string{rel}},
		{"x matches s", []string{rel}},
		{"s + ok", []string{add}},
		{"!nums", []string{unary}},
		{"user.Name ** 2", []string{power}},
		{"x - - ok", []string{unary}},
		{"-(not ok)", []string{unary}},
		{"- not ok", []string{unary}},
		{"(not ok) ** 2", []string{power}},
		{"not ok ** 2", []string{power}},
		// Arguments of the kind their signature gives.
		{"len(x) + 1", []string{args}},
		{`s | split(1)`, []string{stage}},
		// Word operators with their spaces, symbols without.
		{"ok ||not ok", nil},
		{"x ==x", nil},
		{"[x]!= [not ok]", nil},
		{"[x,not ok]", nil},
		{"ok in [not ok]", nil},
		{"ok in not ok", []string{rel}},
	})
}

// TestExprlangKindConstraints checks the clauses on the kinds of
// operands and arguments: the language definition's examples, over the
// subject's environment, satisfy them, and a near miss of each rule
// breaks the clause that states it.
func TestExprlangKindConstraints(t *testing.T) {
	checkConstraints(t, "exprlang", []constraintCase{
		// The language definition's examples.
		{`split(lower(user.Name), " ")`, nil},
		{`1..3 == [1, 2, 3]`, nil},
		{`trim("  Hello  ") == "Hello" && trim("__Hello__", "_") == "Hello"`, nil},
		{`upper("hello") == "HELLO" and lower("HELLO") == "hello"`, nil},
		{`split("apple,orange,grape", ",", 2)`, nil},
		{`max(5, 7) == 7 && min(5, 7) == 5 && abs(-5) == 5`, nil},
		{`all(nums, # < 280) or any(words, # matches "^g")`, nil},
		{`find([1, 2, 3, 4], # > 2) == 3 && findIndex([1, 2, 3, 4], # > 2) == 2`, nil},
		{`join(["apple", "orange", "grape"], ",") == "apple,orange,grape"`, nil},
		{`sum([1, 2, 3]) == 6 && mean([1, 2, 3]) == 2.0`, nil},
		{`first([1, 2, 3]) == 1 && last([1, 2, 3]) == 3`, nil},
		{`reverse([3, 1, 4]) == [4, 1, 3] && sort([3, 1, 4], "desc") == [4, 3, 1]`, nil},
		{`keys({"name": "John", "age": 30}) == ["name", "age"]`, nil},
		{`type(42) == "int" && int("123") == 123 && float("123.45") == 123.45 && string(123) == "123"`, nil},
		{`toJSON({"name": "John", "age": 30}) + toJSON(fromJSON('{"name": "John", "age": 30}'))`, nil},
		{`len([1, 2, 3]) == 3 && len({"name": "John", "age": 30}) == 2 && len("Hello") == 5`, nil},
		{`"John" in ["John", "Jane"] && "name" in {"name": "John", "age": 30}`, nil},
		{`user["Name"] + words[0] + string(nums[-1])`, nil},
		{`nums[1:4] == [2, 3, 4] && s[1:x] != ""`, nil},
		{`user.Greet(user.Name)`, nil},
		{`x % 2 == 0 ? "even" : "odd"`, nil},
		{`(x + 1) % 2 + len(s) % 2 - -(x + y)`, nil},
		{`!(x > 1) || not (ok and x > 1)`, nil},
		{`(user).Name + (s)[1:] + string((nums)[0])`, nil},
		{`nums | sum()`, nil},
		{`nums | map(# * 2) | sum()`, nil},
		{`words | map(# + "!") | join(",")`, nil},
		{`{}["a"]?.b == nil && m.Name?.Age == nil`, nil},
		// ^ and ** take numbers.
		{"s ** 2", []string{power}},
		{"2 ^ ok", []string{power}},
		// % takes integers; a quotient and a power are not known to be.
		{`"a" * 2`, []string{mul}},
		{"(y) % 2", []string{mul}},
		{"x ** 2 % 3", []string{mul}},
		{"x / 2 % 3", []string{mul, mul, mul}},
		{"(x / 2) % 3", []string{mul}},
		// + adds numbers or joins strings, - subtracts numbers.
		{"x + s", []string{add}},
		{"s - s", []string{add, add}},
		{"(x > 1) + 1", []string{add}},
		// .. takes integers.
		{"1..x + 0.5", []string{rng}},
		// Comparisons, regular expressions, membership.
		{"s < x", []string{rel}},
		{"(1 < 2) < 3", []string{rel}},
		{"x + 1 startsWith s", []string{rel}},
		{"x in m.a", []string{rel}},
		// == compares values of one kind; a comparison gives a boolean.
		{"x == s", []string{eq}},
		{"ok == 1", []string{eq}},
		{"nums == m", []string{eq}},
		{"(x == 1) == 2", []string{eq}},
		{"(x == 1) == ok", nil},
		// Logical operators and the ternary's condition take booleans.
		{"(x + 1) && ok", []string{andKind}},
		{"ok || s", []string{orKind}},
		{`s + s ? 1 : 2`, []string{cond}},
		// Unary operators on groups and chains.
		{"!(x + 1)", []string{unary}},
		{"-(s)", []string{unary}},
		{"- -s", []string{unary}},
		// Builtins' arguments.
		{"len(x)", []string{args}},
		{"lower(x)", []string{args}},
		{"trim(s, 1)", []string{args}},
		{`split(s, ",", "2")`, []string{args}},
		{"join(nums)", []string{args}},
		{"keys(user)", []string{args}},
		{"sum(words)", []string{args}},
		{"first(s)", []string{args}},
		{`sort(nums, "up")`, []string{args}},
		{"max(s, 1)", []string{args}},
		{`int("abc")`, []string{args}},
		{"float(s)", []string{args}},
		{"fromJSON(s)", []string{args}},
		{"upper(x)", []string{upper}},
		{"user.Greet(x)", []string{method}},
		// Predicates: an array, and a condition for all and its kin.
		{"all(x, # > 1)", []string{pred}},
		{"all(nums, #)", []string{pred}},
		{"all(nums, # + 1)", []string{pred}},
		{"filter(words, # > 1)", []string{pred}},
		{`none(nums, # contains "1")`, []string{pred}},
		{"map(nums, # + 1)", nil},
		// Pipes: each stage's input is its builtin's first argument.
		{"x | lower()", []string{stage}},
		{"nums | join()", []string{stage}},
		{"s | all(# > 1)", []string{stage}},
		{"nums | sum() | len()", []string{stage}},
		// Accessors on groups, on an empty map's items, indexes, slices.
		{"(x).Name", []string{group}},
		{"(ok)[0]", []string{group}},
		{`{}["a"].b`, []string{emptyMap}},
		{"{}.a.b", []string{accessor, emptyMap}},
		{`nums["a"]`, []string{index}},
		{"m[1]", []string{index}},
		{`user["Nom"]`, []string{index}},
		{"words[x / 2]", []string{index}},
		{"nums[1:y]", []string{slice}},
		{`s[:"a"]`, []string{slice}},
	})
}

// TestExprlangSyntax checks what the exprlang grammar's rules, not its
// clauses, rule out after expr-lang's language definition: each
// rejected input is one the definition does not allow (or, for the
// last ones, outside the subset the grammar keeps to bound sizes), and
// each accepted one its nearest neighbour that it allows.
func TestExprlangSyntax(t *testing.T) {
	checkSyntax(t, "exprlang", []string{
		// Literals, Membership Operator: fields of structs and maps.
		"user.Age", "(4).Age", "nums[0]", "m?.a", "4 + 1e99", "0x2A", "0.5E-3",
		// Builtins and their arguments.
		"len(s)", "sum(nums)", `split(s, ",")`, `split(s, ",", 2)`,
		"max(1, x)", `trim(s, "a")`, `s | split(",")`, `s | trim()`, "nums | len()",
		// Predicates.
		"all(nums, # > 1)", "map(nums, # * 2)",
		// Word operators set apart; symbols glued.
		"x in nums", "not ok", "ok and not ok", "ok or ok", `s matches "a"`, "x==x", "ok||ok",
		// The sizes kept: four operands of and, +, -; three of or, *.
		"ok && ok && ok && ok", "x + x + x - x", "ok || ok || ok", "x * x / x",
		"[1, 2, 3, 4]", `{a: 1, b: 2, "c": 3, 'd': 4}`, `s | lower() | split(" ")`, "ok ? 1 : (ok ? 2 : 3)",
	}, []string{
		// Literals take no accessor: a number, a boolean and nil have no
		// fields or elements.
		"4.Age", "true?.a", "false.Name", "nil?.Name", "nil[0]", "1[0]",
		// Literals in range: a float64's exponent, no leading zeros.
		"1e999", "042",
		// Builtins' arity (the builtins' sections, max(n1, n2)).
		"sum()", "len(s, s)", "split(s)", `trim(s, "a", "b")`, "max()", "max(1, 2, x)", "min(1)",
		"len(len(s, s))", "s | split()", "s | len(s)", "nums | map(# + len(s, s))",
		// Predicate: # is the element, #Name is nothing.
		"all(nums, #Name)",
		// Word operators glued to a name or a number.
		"x inwords", "1in nums", "ok andok", "okor ok", "okand not ok", "ok innot ok",
		// Outside the subset the grammar keeps: a word operator glued to
		// punctuation, chains the sizes bound.
		`s matches"a"`, "x in[1]", "x == 1 == ok", "1 < 2 < 3",
		"ok && ok && ok && ok && ok", "x ** 2 ** 3", "ok ? 1 : ok ? 2 : 3", "[1, 2, 3, 4, 5]",
	})
}

// checkSyntax checks that the bundled grammar name derives each input of
// accept and none of reject.
func checkSyntax(t *testing.T, name string, accept, reject []string) {
	t.Helper()
	g, err := datasets.Grammar(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range accept {
		if _, err := g.Parse([]byte(in)); err != nil {
			t.Errorf("%s: %q does not parse: %v", name, in, err)
		}
	}
	for _, in := range reject {
		if _, err := g.Parse([]byte(in)); err == nil {
			t.Errorf("%s: %q parses", name, in)
		}
	}
}
