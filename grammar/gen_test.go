package grammar

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"
)

// Test helpers: bundled grammars read from disk (this package cannot import
// datasets, which imports it) and a seeded random tree generator.

func bundledNames(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../datasets/grammars/*.grammar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled grammars found: %v", err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".grammar"))
	}
	return names
}

func bundled(t testing.TB, name string) *Graph {
	t.Helper()
	src, err := os.ReadFile("../datasets/grammars/" + name + ".grammar")
	if err != nil {
		t.Fatal(err)
	}
	return mustBuild(t, name+".grammar", string(src))
}

func mustBuild(t testing.TB, filename, src string) *Graph {
	t.Helper()
	ast, err := Parse(filename, []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v", filename, err)
	}
	g, err := Build(ast)
	if err != nil {
		t.Fatalf("build %s: %v", filename, err)
	}
	return g
}

// randomTree expands the graph at random, choosing at each Alt among the
// alternatives that fit in the remaining depth.
func randomTree(g *Graph, r *rand.Rand, maxDepth int) *Tree {
	var gen func(n *Node, depth int) *Tree
	gen = func(n *Node, depth int) *Tree {
		t := &Tree{Node: n}
		switch n.Kind {
		case KindLit:
			t.Value = n.Name
		case KindRegex:
			t.Value = randomRegexString(n.Name, r)
		case KindRef:
			t.Children = []*Tree{gen(n.Children[0], depth+1)}
		case KindAlt:
			var fit []*Node
			best := n.Children[0]
			for _, c := range n.Children {
				if depth+g.MinDepth(c) <= maxDepth {
					fit = append(fit, c)
				}
				if g.MinDepth(c) < g.MinDepth(best) {
					best = c
				}
			}
			if len(fit) == 0 {
				fit = []*Node{best}
			}
			t.Children = []*Tree{gen(fit[r.IntN(len(fit))], depth)}
		case KindCat:
			for _, c := range n.Children {
				t.Children = append(t.Children, gen(c, depth))
			}
		case KindQuant:
			hi := n.Max
			if hi == Unbounded {
				hi = n.Min + 3
			}
			if depth+g.MinDepth(n.Children[0]) > maxDepth {
				hi = n.Min
			}
			for i, k := 0, n.Min+r.IntN(hi-n.Min+1); i < k; i++ {
				t.Children = append(t.Children, gen(n.Children[0], depth))
			}
		}
		return t
	}
	return gen(g.Root, 0)
}

func randomRegexString(src string, r *rand.Rand) string {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	var gen func(re *syntax.Regexp)
	gen = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			for _, c := range re.Rune {
				b.WriteRune(c)
			}
		case syntax.OpCharClass:
			i := r.IntN(len(re.Rune)/2) * 2
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi > lo+200 {
				hi = lo + 200 // stay near the start of huge ranges: readable and valid
			}
			c := lo + rune(r.IntN(int(hi-lo)+1))
			if !utf8.ValidRune(c) {
				c = lo
			}
			b.WriteRune(c)
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte(byte('a' + r.IntN(26)))
		case syntax.OpCapture:
			gen(re.Sub[0])
		case syntax.OpConcat:
			for _, s := range re.Sub {
				gen(s)
			}
		case syntax.OpAlternate:
			gen(re.Sub[r.IntN(len(re.Sub))])
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			lo, hi := 0, 3
			switch re.Op {
			case syntax.OpPlus:
				lo = 1
			case syntax.OpQuest:
				hi = 1
			case syntax.OpRepeat:
				lo, hi = re.Min, re.Max
				if hi < 0 {
					hi = lo + 3
				}
			}
			for i, k := 0, lo+r.IntN(hi-lo+1); i < k; i++ {
				gen(re.Sub[0])
			}
		}
	}
	gen(re)
	return b.String()
}

// dump is a canonical text of a tree's structure, for comparing trees.
func dump(t *Tree) string {
	var b strings.Builder
	var rec func(*Tree)
	rec = func(t *Tree) {
		if t == nil {
			b.WriteString("_")
			return
		}
		b.WriteString(t.Node.String())
		if t.Node.Kind == KindLit || t.Node.Kind == KindRegex {
			b.WriteString("=" + t.Value)
		}
		if len(t.Children) > 0 {
			b.WriteByte('(')
			for i, c := range t.Children {
				if i > 0 {
					b.WriteByte(' ')
				}
				rec(c)
			}
			b.WriteByte(')')
		}
	}
	rec(t)
	return b.String()
}

func isDet(g *Graph, in []byte) bool {
	// Bounded as Parse bounds it: unbounded, speculation on some inputs
	// of a typed expression grammar (cel's) takes exponential time.
	t, _ := g.parseDeterministicContext(context.Background(), in)
	return t != nil
}
