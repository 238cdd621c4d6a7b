package grammar_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/grammar/bnf"
	"github.com/arbor-fuzz/arbor/synth"
)

// chainGrammar is a chain of n rules, each the next one after a literal
// (lead "a") or alone (lead ""): r0 := "a" r1 ; ... ; r(n-1) := "x" ;
func chainGrammar(n int, lead string) []byte {
	var b strings.Builder
	for i := 0; i < n-1; i++ {
		if lead != "" {
			fmt.Fprintf(&b, "r%d := %q r%d ;\n", i, lead, i+1)
		} else {
			fmt.Fprintf(&b, "r%d := r%d ;\n", i, i+1)
		}
	}
	fmt.Fprintf(&b, "r%d := \"x\" ;\n", n-1)
	return []byte(b.String())
}

// chainJSON is chainGrammar's chain in fuzzingbook's JSON form.
func chainJSON(n int, lead string) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n-1; i++ {
		fmt.Fprintf(&b, "%q: [%q],\n", fmt.Sprintf("<r%d>", i), fmt.Sprintf("%s<r%d>", lead, i+1))
	}
	fmt.Fprintf(&b, "%q: [\"x\"]}", fmt.Sprintf("<r%d>", n-1))
	return []byte(b.String())
}

// TestChainGrammarLinear: a grammar of 40,000 chained rules (1 MB) is
// read, built with its analyses, generates an input and parses it back
// within a memory bound linear in its size (issue 29, item 8). The
// lookahead tables kept every node's whole known prefix, so a chain of
// rules each starting with a literal allocated 1.6 GB.
func TestChainGrammarLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a grammar of 40,000 rules")
	}
	const n = 40000
	tests := []struct {
		name  string
		json  bool
		lead  string
		bound uint64 // bytes allocated in all
	}{
		{"chain", false, "", 300 << 20},
		{"chain after literals", false, "a", 300 << 20},
		{"JSON chain after literals", true, "a", 300 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var src []byte
			if tt.json {
				src = chainJSON(n, tt.lead)
			} else {
				src = chainGrammar(n, tt.lead)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var ast *grammar.Grammar
			var err error
			if tt.json {
				ast, err = bnf.ParseJSON("chain.json", src)
			} else {
				ast, err = grammar.Parse("chain.grammar", src)
			}
			if err != nil {
				t.Fatal(err)
			}
			g, err := grammar.Build(ast)
			if err != nil {
				t.Fatal(err)
			}
			gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
			in := gen.Generate().String()
			if want := strings.Repeat(tt.lead, n-1) + "x"; in != want {
				t.Fatalf("generated %.20q... of %d bytes, want %d bytes", in, len(in), len(want))
			}
			if _, err := g.Parse([]byte(in)); err != nil {
				t.Fatalf("parse: %v", err)
			}
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > tt.bound {
				t.Errorf("allocated %d MB, want at most %d MB", alloc>>20, tt.bound>>20)
			} else {
				t.Logf("allocated %d MB", alloc>>20)
			}
		})
	}
}
