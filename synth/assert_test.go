package synth

import (
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
)

// TestAssertionsNotDrawn checks that a regex alternative that is only an
// assertion (\b, \B, ^, $) is never drawn where another alternative
// exists: whether it holds depends on characters the draw cannot see.
func TestAssertionsNotDrawn(t *testing.T) {
	tests := []struct{ src, want string }{
		{`(?:a|\b|\B)`, "a"},
		{`(?:a|\B)`, "a"},
		{`x(?:\n|$)`, "x\n"},
		{`(?:^|y)`, "y"},
	}
	for _, tt := range tests {
		ast, err := grammar.Parse("t", []byte("s := /"+tt.src+"/ ;\n"))
		if err != nil {
			t.Fatal(err)
		}
		g, err := grammar.Build(ast)
		if err != nil {
			t.Fatal(err)
		}
		gen := NewGenerator(g, NewRandom(1), RandomPolicy)
		for i := 0; i < 50; i++ {
			if got := gen.Generate().String(); got != tt.want {
				t.Errorf("%s drew %q, want %q", tt.src, got, tt.want)
				break
			}
		}
	}
}
