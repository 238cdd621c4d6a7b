package grammar

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sameTree reports where two trees differ ("" if nowhere): nodes, values
// and children.
func sameTree(a, b *Tree, path string) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return path + ": one tree is nil"
		}
		return ""
	case a.Node != b.Node:
		return fmt.Sprintf("%s: node %s, want %s", path, a.Node.Label(), b.Node.Label())
	case a.Value != b.Value:
		return fmt.Sprintf("%s: value %q, want %q", path, a.Value, b.Value)
	case len(a.Children) != len(b.Children):
		return fmt.Sprintf("%s/%s: %d children, want %d", path, a.Node.Label(), len(a.Children), len(b.Children))
	}
	for i := range a.Children {
		if d := sameTree(a.Children[i], b.Children[i], path+"/"+a.Node.Label()); d != "" {
			return d
		}
	}
	return ""
}

// TestDeterministicMatchesGeneral parses many generated inputs of every
// bundled grammar, and mutations of them, with the deterministic parser
// (which decides lookahead conflicts by speculation) and with the general
// parser. Wherever the deterministic parser gives a tree, the input must
// have exactly that one tree by the general parser; wherever it refuses
// an input, Parse still gives the general parser's first tree. Checking
// without building must agree with building.
func TestDeterministicMatchesGeneral(t *testing.T) {
	inputs := 300
	if testing.Short() {
		inputs = 60
	}
	for _, name := range bundledNames(t) {
		g := bundled(t, name)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(17, uint64(len(name))))
			det := 0
			for i := 0; i < inputs; i++ {
				in := []byte(randomTree(g, r, 6+i%6).String())
				if i%3 == 2 && len(in) > 0 {
					// A mutation: most are outside the language.
					k := r.IntN(len(in))
					switch r.IntN(3) {
					case 0:
						in = append(in[:k:k], in[k+1:]...)
					case 1:
						in = append(in[:k:k], append([]byte{in[r.IntN(len(in))]}, in[k:]...)...)
					default:
						in = bytes.Clone(in)
						in[k] = in[r.IntN(len(in))]
					}
				}
				if len(in) > 20000 {
					continue
				}
				dt, derr := g.parseDeterministic(in)
				ok, cerr := g.checkDeterministic(in)
				if (dt != nil) != ok || (derr == nil) != (cerr == nil) {
					t.Fatalf("input %q: building gives %v, %v; checking %v, %v", in, dt != nil, derr, ok, cerr)
				}
				if derr != nil {
					continue
				}
				trees, err := g.parseGeneral(in, 2)
				if dt == nil {
					continue
				}
				det++
				if err != nil {
					t.Fatalf("input %q: the deterministic parser gives a tree, the general parser %v", in, err)
				}
				if len(trees) != 1 {
					t.Fatalf("input %q: the deterministic parser gives a tree, the general parser %d", in, len(trees))
				}
				if d := sameTree(dt, trees[0], ""); d != "" {
					t.Fatalf("input %q: trees differ at %s", in, d)
				}
				var a, b strings.Builder
				if err := dt.WriteText(&a, true); err != nil {
					t.Fatal(err)
				}
				p, err := g.ParseLazy(in, DefaultTreeLimit)
				if err != nil {
					t.Fatal(err)
				}
				tw := NewTextWriter(&b, true)
				p.Visit(0, tw)
				if err := tw.Flush(); err != nil {
					t.Fatal(err)
				}
				if a.String() != b.String() {
					t.Fatalf("input %q: the visited outline differs from the tree's", in)
				}
			}
			t.Logf("%s: %d of %d inputs parsed deterministically", name, det, inputs)
		})
	}
}
