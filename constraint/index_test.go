package constraint

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestIndexInside: an index's occurrences of a rule inside another,
// found through its lists by rule, are those a scan of every occurrence
// inside it finds (nested occurrences of the stop rule skipped), on
// random programs whose scopes nest; and the text it realizes is the
// tree's.
func TestIndexInside(t *testing.T) {
	g, set, err := build(t, varsGrammar)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var prog func(depth int) string
	prog = func(depth int) string {
		var stmts []string
		for range 1 + r.IntN(4) {
			name := string(rune('a' + r.IntN(3)))
			switch k := r.IntN(5); {
			case k == 0 && depth < 4:
				stmts = append(stmts, "{"+prog(depth+1)+"}")
			case k < 3:
				stmts = append(stmts, "let "+name)
			default:
				stmts = append(stmts, "print "+name)
			}
		}
		return strings.Join(stmts, ";")
	}
	rules := set.rules
	ids := []int32{-1}
	for _, id := range rules.ids {
		ids = append(ids, id)
	}
	var x index
	for range 200 {
		input := prog(0)
		tree, err := g.Parse([]byte(input))
		if err != nil {
			t.Fatalf("%q: %v", input, err)
		}
		x.build(g, &rules, tree, nil)
		if x.text != input {
			t.Fatalf("the index realizes %q, want %q", x.text, input)
		}
		for id := range x.byRule {
			if !slices.IsSorted(x.byRule[id]) {
				t.Fatalf("%q: occurrences of rule %d out of order: %v", input, id, x.byRule[id])
			}
		}
		for i := range x.occ {
			for _, sym := range ids[1:] {
				for _, stop := range ids {
					var got []int
					x.inside(i, sym, stop, func(j int) bool {
						got = append(got, j)
						return true
					})
					want := scanInside(&x, i, sym, stop)
					if !slices.Equal(got, want) {
						t.Fatalf("%q: inside(%d, %d, %d) = %v, a scan finds %v", input, i, sym, stop, got, want)
					}
					first := -1
					if len(want) > 0 {
						first = want[0]
					}
					if f := x.first(i, sym, stop); f != first {
						t.Fatalf("%q: first(%d, %d, %d) = %d, want %d", input, i, sym, stop, f, first)
					}
				}
			}
		}
	}
}

// scanInside is index.inside as a scan of every occurrence inside i.
func scanInside(x *index, i int, sym, stop int32) []int {
	var out []int
	for j := i + 1; j <= x.occ[i].last; j++ {
		o := &x.occ[j]
		if o.id == sym {
			out = append(out, j)
		}
		if stop >= 0 && o.id == stop {
			j = o.last
		}
	}
	return out
}
