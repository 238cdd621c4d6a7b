package antlr_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/antlr"
)

// FuzzParseG4 checks that no bytes make Parse or Convert panic, that
// every error is an ErrorList with valid positions, and that a converted
// grammar is one the notation reads back, that builds or fails with a
// positioned error, and that Format writes as .g4 text that parses.
func FuzzParseG4(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.g4"))
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := antlr.Parse("fuzz.g4", src)
		if err != nil {
			checkErrors(t, err, len(src))
			return
		}
		ast, _, err := antlr.Convert(file)
		if err != nil {
			checkErrors(t, err, len(src))
			return
		}
		text := grammar.Format(ast)
		if _, err := grammar.Parse("fuzz.grammar", []byte(text)); err != nil {
			t.Fatalf("converted grammar does not parse: %v\n%s", err, text)
		}
		g, err := grammar.Build(ast)
		if err != nil {
			return
		}
		g4, _ := antlr.Format(ast)
		if _, err := antlr.Parse("fuzz2.g4", g4); err != nil {
			t.Fatalf("formatted .g4 does not parse: %v\n%s", err, g4)
		}
		_ = g.Stats()
	})
}

func checkErrors(t *testing.T, err error, n int) {
	t.Helper()
	var list grammar.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error is not a non-empty ErrorList: %v", err)
	}
	for _, e := range list {
		if !e.Pos.IsValid() || e.Pos.Offset > n {
			t.Fatalf("error without a valid position: %v", e)
		}
	}
}
