package mine_test

import (
	"context"
	"testing"

	"github.com/arbor-fuzz/arbor/mine"
)

// FuzzClauses mines from arbitrary recorded bytes and verdicts: inputs
// that do not parse, duplicates and odd verdicts must give a report or
// an error, never a panic.
func FuzzClauses(f *testing.F) {
	f.Add([]byte("let a;print a"), []byte("print b;1-0"), []byte("7-2"), uint8(1))
	f.Add([]byte(""), []byte(";;"), []byte("let a;let a"), uint8(6))
	g := build(f, progGrammar)
	f.Fuzz(func(t *testing.T, a, b, c []byte, verdicts uint8) {
		var inputs []mine.Input
		for i, d := range [][]byte{a, b, c, a, b, c} {
			inputs = append(inputs, mine.Input{Data: d, Accepted: verdicts&(1<<i) != 0})
		}
		rep, err := mine.Clauses(context.Background(), g, inputs, mine.Options{MinSupport: 1})
		if err == nil && rep.Accepted+rep.Rejected+rep.NotParsed != len(inputs) {
			t.Errorf("report counts %d+%d+%d inputs of %d", rep.Accepted, rep.Rejected, rep.NotParsed, len(inputs))
		}
	})
}
