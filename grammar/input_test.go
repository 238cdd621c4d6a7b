package grammar

import (
	"math/rand/v2"
	"testing"
)

// TestRoundTrip parses the text of seeded random trees of every bundled
// grammar: the parse must succeed and derive the same text.
func TestRoundTrip(t *testing.T) {
	for _, name := range bundledNames(t) {
		t.Run(name, func(t *testing.T) {
			g := bundled(t, name)
			r := rand.New(rand.NewPCG(1, uint64(len(name))))
			det := 0
			const n = 300
			for i := 0; i < n; i++ {
				want := randomTree(g, r, 12).String()
				tree, err := g.Parse([]byte(want))
				if err != nil {
					t.Fatalf("input %d %q: %v", i, want, err)
				}
				if got := tree.String(); got != want {
					t.Fatalf("input %d: tree derives %q, want %q", i, got, want)
				}
				if g.parseDeterministic([]byte(want)) != nil {
					det++
				}
			}
			t.Logf("%s: %d of %d inputs parsed by the deterministic parser", name, det, n)
			if name == "json" && det != n {
				t.Errorf("json: only %d of %d inputs took the deterministic parser; the json grammar is meant to be LL(1)", det, n)
			}
		})
	}
}
