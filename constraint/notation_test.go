package constraint_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
)

// TestNotationExamples: every example of docs/notation.md's table of
// constructs compiles against the grammar shown above it, and checks an
// input of it.
func TestNotationExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/notation.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	at := strings.Index(text, "**One example per construct**")
	if at < 0 {
		t.Fatal("notation.md has no table of constructs")
	}
	text = text[at:]
	block := regexp.MustCompile("(?s)```\n(.*?)```").FindStringSubmatch(text)
	if block == nil {
		t.Fatal("no grammar before the table")
	}
	examples := regexp.MustCompile("`(where [^`]*;)`").FindAllStringSubmatch(text[:strings.Index(text, "**Instances.**")], -1)
	if len(examples) < 12 {
		t.Fatalf("%d examples, want one per construct (12)", len(examples))
	}
	for _, ex := range examples {
		clause := strings.ReplaceAll(ex[1], `\|`, "|")
		ast, err := grammar.Parse("notation.grammar", []byte(block[1]+clause+"\n"))
		if err != nil {
			t.Fatalf("%s: %v", clause, err)
		}
		g, err := grammar.Build(ast)
		if err != nil {
			t.Fatalf("%s: %v", clause, err)
		}
		set, err := constraint.Compile(g)
		if err != nil {
			t.Errorf("%s: %v", clause, err)
			continue
		}
		tree, err := g.Parse([]byte("let x;print x;{let y;print y};3-5;[a,b]"))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range constraint.NewChecker(set).Check(tree) {
			if v.Err != nil {
				t.Errorf("%s: %v", clause, v.Err)
			}
		}
	}
}
