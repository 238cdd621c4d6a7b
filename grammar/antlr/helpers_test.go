package antlr_test

import (
	"os"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// convertG4 parses and converts one ANTLR grammar, failing the test on
// any error.
func convertG4(t *testing.T, name, src string) *grammar.Grammar {
	t.Helper()
	f, err := antlr.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ast, _, err := antlr.Convert(f)
	if err != nil {
		t.Fatal(err)
	}
	return ast
}
