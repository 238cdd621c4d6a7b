package features

import (
	"math/big"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Coverage accumulates the k-paths (k = 1..MaxK) covered by a set of
// inputs: pathcov_k of the set is |∪ paths_k(t)| / |paths_k(G)|.
type Coverage struct {
	g       *grammar.Graph
	maxK    int
	covered []map[string]Path // per k
	totals  []*big.Int
	inputs  int
}

// NewCoverage returns an empty coverage of g's k-paths for k = 1..maxK.
func NewCoverage(g *grammar.Graph, maxK int) *Coverage {
	c := &Coverage{g: g, maxK: maxK, covered: make([]map[string]Path, maxK), totals: CountUpTo(g, maxK)}
	for k := range c.covered {
		c.covered[k] = map[string]Path{}
	}
	return c
}

// Add adds the k-paths of one input. An ambiguous input may be given all
// its trees (as from grammar.Graph.ParseAll): its k-paths are their union.
func (c *Coverage) Add(trees ...*grammar.Tree) {
	c.inputs++
	var key []byte
	for _, t := range trees {
		c.add(t, &key)
	}
}

// AddParsed adds the k-paths of one parsed input, the union over its
// trees, reading them off the parse without building a tree where it can.
func (c *Coverage) AddParsed(p *grammar.Parsed) {
	c.inputs++
	var key []byte
	f := forest{parsed: p}
	for i := range f.len() {
		f.visit(i, &pathWalker{f: func(stack []int) { c.addStack(stack, &key) }})
	}
}

func (c *Coverage) add(t *grammar.Tree, key *[]byte) {
	walkPaths(t, func(stack []int) { c.addStack(stack, key) })
}

// addStack adds the k-paths that end at the top of stack.
func (c *Coverage) addStack(stack []int, key *[]byte) {
	for k := 1; k <= c.maxK && k <= len(stack); k++ {
		p := Path(stack[len(stack)-k:])
		*key = p.appendKey((*key)[:0])
		if _, ok := c.covered[k-1][string(*key)]; !ok {
			c.covered[k-1][string(*key)] = append(Path(nil), p...)
		}
	}
}

// Inputs is the number of trees added.
func (c *Coverage) Inputs() int { return c.inputs }

// Covered is the number of distinct k-paths covered.
func (c *Coverage) Covered(k int) int { return len(c.covered[k-1]) }

// Total is |paths_k(G)|.
func (c *Coverage) Total(k int) *big.Int { return c.totals[k-1] }

// Fraction is the k-path coverage of the set, in [0, 1].
func (c *Coverage) Fraction(k int) float64 {
	total := c.totals[k-1]
	if total.Sign() == 0 {
		return 1
	}
	f, _ := new(big.Rat).SetFrac(big.NewInt(int64(c.Covered(k))), total).Float64()
	return f
}

// Has reports whether k-path p is covered.
func (c *Coverage) Has(p Path) bool {
	if len(p) < 1 || len(p) > c.maxK {
		return false
	}
	_, ok := c.covered[len(p)-1][string(p.appendKey(nil))]
	return ok
}

// CoveredPaths returns the covered k-paths, sorted.
func (c *Coverage) CoveredPaths(k int) []Path {
	out := make([]Path, 0, len(c.covered[k-1]))
	for _, p := range c.covered[k-1] {
		out = append(out, p)
	}
	sortPaths(out)
	return out
}

// MissingCount is |paths_k(G)| minus the covered k-paths.
func (c *Coverage) MissingCount(k int) *big.Int {
	return new(big.Int).Sub(c.totals[k-1], big.NewInt(int64(c.Covered(k))))
}

// FirstMissing returns up to n k-paths that no input covers, in increasing
// order of ids, enumerating paths_k(G) lazily and stopping once it has n.
// It looks at no more than MaxEnumerate paths, so for an astronomically
// large grammar space it may return fewer.
func (c *Coverage) FirstMissing(k, n int) []Path {
	var out []Path
	seen := 0
	Enumerate(c.g, k, func(p Path) bool {
		seen++
		if !c.Has(p) {
			out = append(out, append(Path(nil), p...))
		}
		return len(out) < n && seen < MaxEnumerate
	})
	return out
}

// Missing lists the k-paths of the grammar that no input covers, sorted.
// It enumerates paths_k(G) and fails with ErrTooMany where that is too large.
func (c *Coverage) Missing(k int) ([]Path, error) {
	all, err := All(c.g, k)
	if err != nil {
		return nil, err
	}
	var out []Path
	for _, p := range all {
		if !c.Has(p) {
			out = append(out, p)
		}
	}
	return out, nil
}
