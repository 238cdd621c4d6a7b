// Package goldmark is the "goldmark" subject: github.com/yuin/goldmark.
package goldmark

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

var md = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote, extension.DefinitionList))

// Run parses the markdown, walks its syntax tree, and renders HTML.
func Run(data []byte) error {
	doc := md.Parser().Parse(text.NewReader(data))
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_ = n.Kind().String()
			if n.Type() == ast.TypeBlock {
				_ = n.Lines().Len()
			}
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return err
	}
	var out bytes.Buffer
	return md.Renderer().Render(&out, data, doc)
}
