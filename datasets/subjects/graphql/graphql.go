// Package graphql is the "graphql" subject: github.com/vektah/gqlparser/v2.
package graphql

import (
	"bytes"
	"errors"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// schemaSource is the schema queries are validated against: an
// interface, a union, an enum, an input type, lists and non-null types.
const schemaSource = `
schema { query: Query, mutation: Mutation }
interface Node { id: ID! }
enum Color { RED GREEN BLUE }
type User implements Node {
  id: ID!
  name: String
  age: Int
  color: Color
  friends(first: Int = 10): [User!]!
  posts: [Post]
}
type Post implements Node {
  id: ID!
  title: String!
  author: User
  score: Float
}
union SearchResult = User | Post
input PostInput { title: String!, score: Float, tags: [String!] }
type Query {
  user(id: ID!): User
  users(first: Int, color: Color): [User]
  search(text: String!): [SearchResult]
  node(id: ID!): Node
  version: String
}
type Mutation {
  addPost(input: PostInput!): Post
  like(id: ID!, times: Int = 1): Int
}
`

// schema is built once and only read afterwards.
var schema = gqlparser.MustLoadSchema(&ast.Source{Name: "schema.graphql", Input: schemaSource})

// Run parses the query, validates it against the schema, walks its
// operations, selections and argument values, and formats it back.
func Run(data []byte) error {
	doc, err := parser.ParseQuery(&ast.Source{Name: "query.graphql", Input: string(data)})
	if err != nil {
		return err
	}
	if errs := validator.Validate(schema, doc); len(errs) > 0 {
		list := make([]error, len(errs))
		for i, e := range errs {
			list[i] = e
		}
		return errors.Join(list...)
	}
	for _, op := range doc.Operations {
		_ = op.Operation
		for _, v := range op.VariableDefinitions {
			_ = v.Type.String()
		}
		walk(op.SelectionSet, 0)
	}
	for _, f := range doc.Fragments {
		walk(f.SelectionSet, 0)
	}
	var out bytes.Buffer
	formatter.NewFormatter(&out).FormatQueryDocument(doc)
	return nil
}

// walk visits selections; depth bounds it against fragment cycles, which
// validation reports but a walk must not follow forever.
func walk(set ast.SelectionSet, depth int) {
	if depth > 32 {
		return
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			for _, a := range s.Arguments {
				if a.Value != nil {
					_, _ = a.Value.Value(nil)
					_ = a.Value.String()
				}
			}
			walk(s.SelectionSet, depth+1)
		case *ast.InlineFragment:
			walk(s.SelectionSet, depth+1)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				walk(s.Definition.SelectionSet, depth+1)
			}
		}
	}
}
