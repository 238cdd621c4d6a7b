// Package template is the "template" subject: text/template and
// text/template/parse.
package template

import (
	"bytes"
	"text/template"
	"text/template/parse"
)

// data builds the value templates are executed against: fresh for every
// run, so that nothing a template does can leak into the next.
func data() map[string]any {
	return map[string]any{
		"Name":    "arbor",
		"Count":   3,
		"Price":   9.5,
		"Enabled": true,
		"Items":   []any{1, "two", 3.0},
		"Tags":    []string{"x", "y"},
		"User":    map[string]any{"Name": "ann", "Tags": []string{"a", "b"}, "Enabled": false},
		"Nested":  map[string]any{"Items": []int{4, 5}, "Count": 0, "Name": ""},
		"Empty":   "",
	}
}

// Run parses the template, walks its parse tree, and executes it into a
// buffer (missing keys give the zero value).
func Run(src []byte) error {
	t, err := template.New("t").Option("missingkey=zero").Parse(string(src))
	if err != nil {
		return err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil && tt.Tree.Root != nil {
			walk(tt.Tree.Root)
			_ = tt.Tree.Root.String()
		}
	}
	var out bytes.Buffer
	return t.Execute(&out, data())
}

// walk visits every node of a parse tree, by type.
func walk(n parse.Node) int {
	if n == nil {
		return 0
	}
	count := 1
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return 0
		}
		for _, c := range x.Nodes {
			count += walk(c)
		}
	case *parse.ActionNode:
		count += walk(x.Pipe)
	case *parse.PipeNode:
		if x == nil {
			return 0
		}
		for _, v := range x.Decl {
			count += walk(v)
		}
		for _, c := range x.Cmds {
			count += walk(c)
		}
	case *parse.CommandNode:
		for _, a := range x.Args {
			count += walk(a)
		}
	case *parse.IfNode:
		count += walk(x.Pipe) + walk(x.List) + walk(x.ElseList)
	case *parse.RangeNode:
		count += walk(x.Pipe) + walk(x.List) + walk(x.ElseList)
	case *parse.WithNode:
		count += walk(x.Pipe) + walk(x.List) + walk(x.ElseList)
	case *parse.TemplateNode:
		count += walk(x.Pipe)
	case *parse.ChainNode:
		count += walk(x.Node)
	case *parse.NumberNode:
		_ = x.IsInt || x.IsFloat || x.IsUint
	case *parse.FieldNode, *parse.VariableNode, *parse.IdentifierNode, *parse.StringNode,
		*parse.BoolNode, *parse.NilNode, *parse.DotNode, *parse.TextNode, *parse.CommentNode,
		*parse.BreakNode, *parse.ContinueNode:
		_ = x.Type()
	}
	return count
}
