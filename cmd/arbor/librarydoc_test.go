package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The line before a code block of docs/library.md that names its source:
// "From `A` and `B` in [f](../f) and [g](../g):" for the declarations A
// and B (of an Example function, its body) of the Go files f and g, or
// "From [f](../f):" for the whole file f.
var (
	sourceLine = regexp.MustCompile(`^From (.*?) ?((?:\[[^\]]*\]\([^)]*\)(?: and )?)+):$`)
	linkTarget = regexp.MustCompile(`\]\(([^)]*)\)`)
	quotedName = regexp.MustCompile("`([A-Za-z_][A-Za-z_0-9]*)`")
)

// TestLibraryDoc checks that every code block of docs/library.md that
// names its source is that source, byte for byte, and that every Go
// block names one: the page's examples are the Example functions that go
// test runs, so they cannot drift from the API.
func TestLibraryDoc(t *testing.T) {
	docDir := filepath.Join("..", "..", "docs")
	doc, err := os.ReadFile(filepath.Join(docDir, "library.md"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, b := range codeBlocks(doc) {
		m := sourceLine.FindStringSubmatch(b.before)
		if m == nil {
			if b.lang == "go" {
				t.Errorf("line %d: a Go block without a line naming its source before it", b.line)
			}
			continue
		}
		var names []string
		for _, n := range quotedName.FindAllStringSubmatch(m[1], -1) {
			names = append(names, n[1])
		}
		for _, l := range linkTarget.FindAllStringSubmatch(m[2], -1) {
			want, err := source(filepath.Join(docDir, filepath.FromSlash(l[1])), names)
			if err != nil {
				t.Errorf("line %d: %v", b.line, err)
				continue
			}
			if b.text != want {
				t.Errorf("line %d: the block is not what %s holds; it holds:\n%s", b.line, l[1], want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no block checked")
	}
}

type codeBlock struct {
	lang   string
	before string // the last non-empty line before the block
	text   string // without the fences and the final newline
	line   int    // of the opening fence
}

func codeBlocks(doc []byte) []codeBlock {
	var blocks []codeBlock
	var cur *codeBlock
	var body []string
	before := ""
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur, body = &codeBlock{lang: strings.TrimPrefix(line, "```"), before: before, line: n}, nil
		case cur != nil && line == "```":
			cur.text = strings.Join(body, "\n")
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body = append(body, line)
		case strings.TrimSpace(line) != "":
			before = line
		}
	}
	return blocks
}

// source returns the file, or with names the text of its declarations of
// those names (the methods of a named type with it) in the file's order,
// and of an Example function its body, one tab less indented.
func source(path string, names []string) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if len(names) == 0 {
		return strings.TrimSuffix(string(src), "\n"), nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	text := func(from, to token.Pos) string {
		return string(src[fset.Position(from).Offset:fset.Position(to).Offset])
	}
	var parts []string
	found := map[string]bool{}
	for _, d := range f.Decls {
		var name string
		var doc *ast.CommentGroup
		switch d := d.(type) {
		case *ast.FuncDecl:
			name, doc = d.Name.Name, d.Doc
			if d.Recv != nil {
				name = receiverType(d.Recv.List[0].Type)
			} else if want[name] && strings.HasPrefix(name, "Example") {
				body := strings.TrimSuffix(strings.TrimPrefix(text(d.Body.Lbrace+1, d.Body.Rbrace), "\n"), "\n")
				parts = append(parts, strings.ReplaceAll(strings.TrimPrefix(body, "\t"), "\n\t", "\n"))
				found[name] = true
				continue
			}
		case *ast.GenDecl:
			doc = d.Doc
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if want[s.Name.Name] {
						name = s.Name.Name
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if want[n.Name] {
							name = n.Name
						}
					}
				}
			}
		}
		if !want[name] {
			continue
		}
		from := d.Pos()
		if doc != nil {
			from = doc.Pos()
		}
		parts = append(parts, text(from, d.End()))
		found[name] = true
	}
	for _, n := range names {
		if !found[n] {
			return "", fmt.Errorf("%s declares no %s", path, n)
		}
	}
	return strings.Join(parts, "\n\n"), nil
}

func receiverType(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
