package datasets_test

import "testing"

// TestGoTemplateConstraints checks the gotemplate grammar's where clauses
// on templates after the text/template documentation's examples, and on
// near misses that break one clause each.
func TestGoTemplateConstraints(t *testing.T) {
	const (
		vars      = "u.text =="
		rangeDecl = "Declaration == nil"
		defined   = "enclosing(n, \"TemplateCall\") == nil\n"
		redefined = "let empty"
		arity     = "let n = count(Argument"
		callFunc  = `self.text != "call"`
		nilCmd    = `self.text != "nil"`
		dataPath  = "let path"
		chainKey  = "a.end == self.end + 1"
		rangeable = `enclosing(self, "RangeClause") == nil`
		argKinds  = "let kinds"
		octal     = "where Number"
	)
	checkConstraints(t, "gotemplate", []constraintCase{
		// The documentation's examples, with the data's keys and the
		// grammar's template names.
		{`Hello, {{.Name}}!`, nil},
		{`{{"output"}}`, nil},
		{"{{`output`}}", nil},
		{`{{printf "%q" "output"}}`, nil},
		{`{{"output" | printf "%q"}}`, nil},
		{`{{printf "%q" (print "out" "put")}}`, nil},
		{`{{"put" | printf "%s%s" "out" | printf "%q"}}`, nil},
		{`{{"output" | printf "%s" | printf "%q"}}`, nil},
		{`{{with "output"}}{{printf "%q" .}}{{end}}`, nil},
		{`{{with $x := "output" | printf "%q"}}{{$x}}{{end}}`, nil},
		{`{{with $x := "output"}}{{printf "%q" $x}}{{end}}`, nil},
		{`{{with $x := "output"}}{{$x | printf "%q"}}{{end}}`, nil},
		{"{{define \"row\"}}ONE{{end}}{{define \"item\"}}TWO{{end}}{{define `list`}}{{template \"row\"}} {{template \"item\"}}{{end}}{{template `list`}}", nil},
		{`{{block "row" .}}b{{end}}{{template "row" .User}}`, nil},
		// Variables in scope: the structure's branches, a range's else,
		// redeclaration from the old value, assignment, $ everywhere.
		{`{{range $i, $v := .Items}}{{$i}}={{$v}} {{else}}{{$v}}{{end}}`, nil},
		{`{{if $x := .Enabled}}a{{else}}{{$x}}{{end}}`, nil},
		{`{{with .User}}{{$x := .Name}}{{if $x}}{{$x}}{{end}}{{end}}`, nil},
		{`{{$x := 3}}{{$x = 4}}{{$x := $x}}{{$x}}`, nil},
		{`{{define "row"}}{{$v := .}}{{$v}}{{end}}{{$}}`, nil},
		{`{{$x := 1}}{{block "row" $x}}{{.}}{{end}}`, nil},
		// Undeclared, assigned before declared, used in its own pipeline,
		// out of scope, across branches, inside a named template.
		{`{{$x}}`, []string{vars}},
		{`{{$x = 1}}`, []string{vars}},
		{`{{$x := len $x}}`, []string{vars}},
		{`{{range $x := $x}}{{end}}`, []string{vars}},
		{`{{if .Enabled}}{{$x := 1}}{{end}}{{$x}}`, []string{vars}},
		{`{{range $i, $v := .Items}}{{end}}{{$v}}`, []string{vars}},
		{`{{if .Enabled}}{{$x := 1}}{{else}}{{$x}}{{end}}`, []string{vars}},
		{`{{$x := 1}}{{define "row"}}{{$x}}{{end}}`, []string{vars}},
		{`{{$x := 1}}{{block "row" $x}}{{$x}}{{end}}`, []string{vars}},
		// A range declares its variables once.
		{`{{range $x := $i := .Items}}{{end}}`, []string{rangeDecl}},
		// Templates invoked are defined, once.
		{`{{template "row"}}`, []string{defined}},
		{`{{define "item"}}i{{end}}{{template "row" .}}`, []string{defined}},
		{`{{define "row"}}a{{end}}{{define "row"}}b{{end}}`, []string{redefined}},
		{`{{define "row"}}a{{end}}{{block "row" .}}b{{end}}`, []string{redefined}},
		{`{{define "row"}} {{/* none */}} {{end}}{{define "row"}}b{{end}}{{define "row"}}{{- /* */ -}}{{end}}`, nil},
		// Functions' arities, a chained command's last argument.
		{`{{len}}`, []string{arity}},
		{`{{eq 1}}`, []string{arity}},
		{`{{1 | eq 1 2}}`, nil},
		{`{{lt 1 2 3}}`, []string{arity}},
		{`{{.Enabled | not .Enabled}}`, []string{arity}},
		{`{{slice .Name 1 2}}{{index .Items}}{{and 1}}{{print}}`, nil},
		{`{{3 | slice .Items 1 2}}`, nil},
		{`{{len (print 1 2)}}`, nil},
		// No function to call in the data.
		{`{{call .Name}}`, []string{callFunc}},
		// nil is no command.
		{`{{nil}}`, []string{nilCmd}},
		{`{{print (nil | print)}}`, []string{nilCmd}},
		{`{{print nil}}`, nil},
		// Keys of the data.
		{`{{.User.Name}}{{$.Nested.Items}}{{.Missing}}{{.User.Missing}}`, nil},
		{`{{.Name.Missing}}`, []string{dataPath}},
		{`{{$.User.Name.Count}}`, []string{dataPath}},
		{`{{with .User}}{{.Name.Tags}}{{end}}{{$ := .User}}{{$.Name.Tags}}`, nil},
		{`{{(.User).Name}}{{(index .Items 1).Count}}`, nil},
		{`{{(print 1).Name}}`, []string{chainKey}},
		{`{{("abc").Name}}`, []string{chainKey}},
		// Ranges over what can be ranged over.
		{`{{range .Items}}{{end}}{{range 3}}{{end}}{{range len .Tags}}{{end}}{{range .User.Tags}}{{end}}`, nil},
		{`{{range .}}{{end}}{{range .Nested.Count}}{{end}}{{range $i, $v := .User}}{{end}}`, nil},
		{`{{range .Name}}{{end}}`, []string{rangeable}},
		{`{{range "abc"}}{{end}}`, []string{rangeable}},
		{`{{range 1.5}}{{end}}`, []string{rangeable}},
		{`{{range print 1}}{{end}}`, []string{rangeable}},
		{`{{range $i, $v := .Enabled}}{{end}}`, []string{rangeable}},
		// Arguments of the kinds the functions take.
		{`{{len "abc"}}{{slice "abc" 1}}{{lt "a" "b"}}{{gt 'a' 1}}`, nil},
		{`{{printf "%d" 1}}{{index .Items 1}}{{len .}}`, nil},
		{`{{len 3}}`, []string{argKinds}},
		{`{{index "ab" 1}}`, []string{argKinds}},
		{`{{printf 1}}`, []string{argKinds}},
		{`{{lt nil 1}}`, []string{argKinds}},
		{`{{lt "a" 1}}`, []string{argKinds}},
		{`{{lt .Count 1.5}}`, []string{argKinds}},
		{`{{slice .}}`, []string{argKinds}},
		{`{{printf .Count}}`, []string{argKinds}},
		{`{{eq .Name .Count}}`, []string{argKinds}},
		{`{{eq .Items .Items}}`, []string{argKinds}},
		{`{{index .Name 1}}`, []string{argKinds}},
		{`{{ge .Enabled true}}`, []string{argKinds}},
		{`{{eq .Missing 1}}{{eq .Name "x" "y"}}{{lt .Count 3}}{{lt .Price 1.5}}`, nil},
		{`{{with .Name}}{{printf .}}{{end}}{{range .Items}}{{slice .}}{{end}}`, nil},
		// Numbers in Go syntax.
		{`{{07}}{{09.5}}{{0x1f}}{{5e3}}`, nil},
		{`{{089}}`, []string{octal}},
	})
}
