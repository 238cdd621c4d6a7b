package grammar

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestPackedChartMatchesWide parses generated inputs of every bundled
// grammar, and mutations of them, with the packed chart and with the wide
// one (items of three int32s, the chart's layout before packing): the
// trees, in order, and the errors must be the same.
func TestPackedChartMatchesWide(t *testing.T) {
	inputs := 120
	if testing.Short() {
		inputs = 30
	}
	for _, name := range bundledNames(t) {
		g := bundled(t, name)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(23, uint64(len(name))))
			for i := 0; i < inputs; i++ {
				in := []byte(randomTree(g, r, 4+i%6).String())
				if i%2 == 1 && len(in) > 0 {
					k := r.IntN(len(in))
					in = append(in[:k:k], append([]byte{in[r.IntN(len(in))]}, in[k:]...)...)
				}
				if len(in) > 20000 {
					continue
				}
				packed, perr := g.parseEarley(in, 3, false)
				wide, werr := g.parseEarley(in, 3, true)
				if (perr == nil) != (werr == nil) || perr != nil && perr.Error() != werr.Error() {
					t.Fatalf("input %q: packed error %v, wide %v", in, perr, werr)
				}
				if len(packed) != len(wide) {
					t.Fatalf("input %q: packed %d trees, wide %d", in, len(packed), len(wide))
				}
				for k := range packed {
					if d := sameTree(packed[k], wide[k], ""); d != "" {
						t.Fatalf("input %q, tree %d: %s", in, k, d)
					}
				}
			}
		})
	}
}

// TestChartKeys checks that packed keys round-trip and sort as items do.
func TestChartKeys(t *testing.T) {
	g := bundled(t, bundledNames(t)[0])
	in := bytes.Repeat([]byte("x"), 1000)
	e := newEarley(g, in, false)
	defer e.release()
	if !e.packed {
		t.Fatal("a small input should have a packed chart")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var prev item
	var prevKey uint64
	for i := 0; i < 10000; i++ {
		it := item{r.Int32N(e.start + 1), r.Int32N(e.maxDot+2) - 1, r.Int32N(int32(len(in)) + 1)}
		k := e.key(it)
		if e.unkey(k) != it {
			t.Fatalf("%v packs to %x, which unpacks to %v", it, k, e.unkey(k))
		}
		if i > 0 && (cmpItem(prev, it) < 0) != (prevKey < k) {
			t.Fatalf("%v < %v is %v, but their keys say %v", prev, it, cmpItem(prev, it) < 0, prevKey < k)
		}
		prev, prevKey = it, k
	}
}
