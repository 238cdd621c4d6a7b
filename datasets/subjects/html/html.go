// Package html is the "html" subject: golang.org/x/net/html.
package html

import (
	"bytes"
	"io"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Run tokenizes the document to the end, parses it into a tree and walks
// the tree, parses it again as a fragment in a body context, and renders
// both back to HTML.
func Run(data []byte) error {
	if err := tokenize(data); err != nil {
		return err
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return err
	}
	walk(doc)
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(bytes.NewReader(data), body)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		walk(n)
	}
	var out bytes.Buffer
	if err := html.Render(&out, doc); err != nil {
		return err
	}
	for _, n := range nodes {
		if err := html.Render(&out, n); err != nil {
			return err
		}
	}
	return nil
}

// tokenize reads the token stream with the low-level tokenizer API.
func tokenize(data []byte) error {
	z := html.NewTokenizer(bytes.NewReader(data))
	for {
		tt := z.Next()
		_ = len(z.Raw())
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return err
			}
			return nil
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, more := z.TagName()
			_ = atom.Lookup(name)
			for more {
				var key []byte
				key, _, more = z.TagAttr()
				_ = atom.Lookup(key)
			}
		case html.TextToken, html.CommentToken, html.DoctypeToken:
			_ = len(z.Text())
		}
		_ = tt.String()
	}
}

// walk visits every node below n: its type, atom, namespace and attributes.
func walk(n *html.Node) {
	for c := range n.Descendants() {
		switch c.Type {
		case html.ElementNode:
			_ = c.DataAtom.String()
			_ = c.Namespace
			for _, a := range c.Attr {
				_ = a.Namespace
				_ = a.Key
				_ = a.Val
			}
		case html.TextNode, html.CommentNode, html.DoctypeNode:
			_ = len(c.Data)
		}
	}
}
