package features

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/arbor-fuzz/arbor/grammar"
)

// MaxEnumerate is the largest number of k-paths All will list. Counting is
// always possible; listing more than this would not fit comfortably in
// memory (each path costs k ints plus overhead).
const MaxEnumerate = 5_000_000

// ErrTooMany reports a k that has too many k-paths to list.
var ErrTooMany = errors.New("too many k-paths to list")

// symGraph is the graph restricted to symbolic nodes: an edge from a Ref
// to every symbolic node of its right-hand side reachable through
// synthetic nodes only.
type symGraph struct {
	nodes []*grammar.Node
	succ  map[int][]int // node ID -> successor IDs in pre-order
}

func newSymGraph(g *grammar.Graph) *symGraph {
	s := &symGraph{nodes: g.Symbolic(), succ: map[int][]int{}}
	for _, n := range s.nodes {
		for _, c := range g.SymbolicChildren(n) {
			s.succ[n.ID] = append(s.succ[n.ID], c.ID)
		}
	}
	return s
}

// Enumerate calls yield for every k-path of the graph, in increasing order
// of node ids, without materialising the set; it stops when yield returns
// false. The Path passed to yield is reused: copy it to keep it.
func Enumerate(g *grammar.Graph, k int, yield func(Path) bool) {
	if k < 1 {
		return
	}
	s := newSymGraph(g)
	for _, succ := range s.succ {
		sortInts(succ)
	}
	path := make(Path, 0, k)
	var walk func(id int) bool
	walk = func(id int) bool {
		path = append(path, id)
		defer func() { path = path[:len(path)-1] }()
		if len(path) == k {
			return yield(path)
		}
		for _, c := range s.succ[id] {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	for _, n := range s.nodes {
		if !walk(n.ID) {
			return
		}
	}
}

// All lists paths_k(G). It fails with ErrTooMany when there are more than
// MaxEnumerate of them.
func All(g *grammar.Graph, k int) ([]Path, error) {
	if k < 1 {
		return nil, fmt.Errorf("k must be at least 1, not %d", k)
	}
	n := Count(g, k)
	if n.Cmp(big.NewInt(MaxEnumerate)) > 0 {
		return nil, fmt.Errorf("%w: the grammar has %v %d-paths (the limit is %d)", ErrTooMany, n, k, MaxEnumerate)
	}
	out := make([]Path, 0, n.Int64())
	Enumerate(g, k, func(p Path) bool {
		out = append(out, append(Path(nil), p...))
		return true
	})
	return out, nil
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
