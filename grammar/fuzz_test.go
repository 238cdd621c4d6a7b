package grammar

import (
	"context"
	"errors"
	"os"
	"testing"
)

// FuzzNotation checks that no grammar text makes the notation parser or
// the graph builder panic, that every error has a position, and that a
// grammar that parses is printed back by Format into text that parses to
// the same printout.
func FuzzNotation(f *testing.F) {
	for _, name := range bundledNames(f) {
		src, err := os.ReadFile("../datasets/grammars/" + name + ".grammar")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("S := R R ;\nR := /[0-9]+/ ;\nwhere S: R[0].num <= R[1].num ;\nwhere all(R, {let x = #; x.len > 0}) ; // c\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		ast, err := Parse("fuzz.grammar", src)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty ErrorList: %v", err)
			}
			for _, e := range list {
				if !e.Pos.IsValid() || e.Pos.Offset > len(src) {
					t.Fatalf("error without a valid position: %v", e)
				}
			}
			return
		}
		text := Format(ast)
		ast2, err := Parse("fuzz2.grammar", []byte(text))
		if err != nil {
			t.Fatalf("formatted grammar does not parse: %v\n%s", err, text)
		}
		if text2 := Format(ast2); text2 != text {
			t.Fatalf("format is not stable:\n%s\n---\n%s", text, text2)
		}
		g, err := Build(ast)
		if err != nil {
			return
		}
		g2, err := Build(ast2)
		if err != nil {
			t.Fatalf("formatted grammar does not build: %v", err)
		}
		if len(g.Nodes) != len(g2.Nodes) {
			t.Fatalf("formatted grammar has %d nodes, original %d", len(g2.Nodes), len(g.Nodes))
		}
		// Exercise the analyses.
		_ = g.Stats()
		for _, n := range g.Nodes {
			_ = g.Shortest(n) + g.MinDepth(n)
		}
	})
}

// fuzzGrammars are the grammars FuzzInput parses with; the first input byte picks one.
var fuzzGrammars = []string{"json", "expr", "url", "csv", "xml", "ini"}

// FuzzInput checks, on the bundled grammars, that no input makes the
// parser panic, that a parsed tree derives exactly the input, that a
// rejection is a *ParseError inside the input, and that the deterministic
// parser, where it succeeds, agrees with the general parser.
func FuzzInput(f *testing.F) {
	graphs := make([]*Graph, len(fuzzGrammars))
	for i, name := range fuzzGrammars {
		graphs[i] = bundled(f, name)
	}
	for _, s := range []string{
		"\x00{\"a\": [1, -2.5e+3, true, null, \"\\u00e9\\n\"]}",
		"\x01x+42*(y--3)",
		"\x02https://user:pw@[::1]:8080/a/b%20c?q=1#frag",
		"\x03a,\"b\"\"c\",d\r\n1,2,3\n",
		"\x04<?xml version=\"1.0\"?><a x='1'>t&amp;<![CDATA[c]]><!-- c --></a>",
		"\x05; comment\n[section]\nkey = value\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 2048 {
			return
		}
		g := graphs[int(data[0])%len(graphs)]
		in := data[1:]
		tree, err := g.Parse(in)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
			if pe.Pos.Offset < 0 || pe.Pos.Offset > len(in) || pe.Pos.Line < 1 {
				t.Fatalf("bad error position %+v for %d bytes", pe.Pos, len(in))
			}
			return
		}
		if got := tree.String(); got != string(in) {
			t.Fatalf("tree derives %q, input is %q", got, in)
		}
		if det, _ := g.parseDeterministicContext(context.Background(), in); det != nil {
			gen, err := g.parseGeneral(in, 2)
			if err != nil {
				t.Fatalf("deterministic parser accepted, general parser rejected: %v", err)
			}
			if len(gen) != 1 {
				t.Fatalf("deterministic parser accepted an ambiguous input (%d trees)", len(gen))
			}
			if dump(gen[0]) != dump(det) {
				t.Fatalf("parsers disagree:\ndet %s\ngen %s", dump(det), dump(gen[0]))
			}
		}
	})
}
