package grammar

// First and follow sets as closures over inclusion graphs, in linear time.
//
// Every equation of the first and follow sets has the form
// set(v) = constant(v) ∪ set(w1) ∪ set(w2) ∪ ..., so set(v) is the union of
// the constants of every node v reaches in the graph of those inclusions.
// Nodes of one strongly connected component reach the same nodes and
// get the same set; with Tarjan's algorithm, which finishes a component
// only after every component it reaches, each component's set is the
// union of its members' constants and its successors' finished sets
// (DeRemer and Pennello's digraph algorithm). Each node and inclusion is
// visited once, where repeating rounds over the whole graph until nothing
// changes took as many rounds as the grammar's cycles are long.

// inclusions collects the edges of an inclusion graph as compressed rows.
type inclusions struct {
	from, to []int32
}

func (in *inclusions) add(v, w int) {
	in.from, in.to = append(in.from, int32(v)), append(in.to, int32(w))
}

// rows lays the edges out as compressed rows over n nodes.
func (in *inclusions) rows(n int) (off, succ []int32) {
	off = make([]int32, n+1)
	for _, v := range in.from {
		off[v+1]++
	}
	for i := 1; i <= n; i++ {
		off[i] += off[i-1]
	}
	succ = make([]int32, len(in.from))
	fill := append([]int32(nil), off[:n]...)
	for i, v := range in.from {
		succ[fill[v]] = in.to[i]
		fill[v]++
	}
	return off, succ
}

// closeSets replaces each node's constant in sets by the union of the
// constants of all nodes it reaches (itself included).
func closeSets(sets []byteSet, in *inclusions) {
	n := len(sets)
	off, succ := in.rows(n)
	comp := sccs(off, succ)
	ncomp := int32(0)
	for _, c := range comp {
		ncomp = max(ncomp, c+1)
	}
	// The members of each component, by counting sort.
	start := make([]int32, ncomp+1)
	for _, c := range comp {
		start[c+1]++
	}
	for i := int32(1); i <= ncomp; i++ {
		start[i] += start[i-1]
	}
	members := make([]int32, n)
	fill := append([]int32(nil), start[:ncomp]...)
	for v, c := range comp {
		members[fill[c]] = int32(v)
		fill[c]++
	}
	result := make([]byteSet, ncomp)
	for c := range ncomp {
		r := &result[c]
		for _, v := range members[start[c]:start[c+1]] {
			r.union(&sets[v])
			for _, w := range succ[off[v]:off[v+1]] {
				if comp[w] != c {
					r.union(&result[comp[w]]) // finished: components complete in reverse topological order
				}
			}
		}
	}
	for v, c := range comp {
		sets[v] = result[c]
	}
}

// firstFollow computes the first and follow sets of every node.
func (g *Graph) firstFollow(ll *ll1) {
	var in inclusions
	for _, nd := range g.Nodes {
		switch nd.Kind {
		case KindLit:
			if nd.Name != "" {
				ll.first[nd.ID].add(int(nd.Name[0]))
			}
		case KindRegex:
			ll.first[nd.ID].union(&nd.re.first)
		case KindRef, KindAlt, KindQuant:
			for _, c := range nd.Children {
				in.add(nd.ID, c.ID)
			}
		case KindCat:
			for _, c := range nd.Children {
				in.add(nd.ID, c.ID)
				if !g.nullable[c.ID] {
					break
				}
			}
		}
	}
	closeSets(ll.first, &in)

	in.from, in.to = in.from[:0], in.to[:0]
	ll.follow[g.Root.ID].add(eof)
	for _, nd := range g.Nodes {
		switch nd.Kind {
		case KindRef, KindAlt:
			for _, c := range nd.Children {
				in.add(c.ID, nd.ID)
			}
		case KindQuant:
			c := nd.Children[0]
			in.add(c.ID, nd.ID)
			if nd.Max != 1 {
				ll.follow[c.ID].union(&ll.first[c.ID])
			}
		case KindCat:
			// What may follow child i: the first bytes of the children
			// after it up to the first non-nullable one, and what follows
			// the Cat if they are all nullable; built from the end.
			var rest byteSet
			restNullable := true
			for i := len(nd.Children) - 1; i >= 0; i-- {
				c := nd.Children[i]
				ll.follow[c.ID].union(&rest)
				if restNullable {
					in.add(c.ID, nd.ID)
				}
				if !g.nullable[c.ID] {
					rest, restNullable = byteSet{}, false
				}
				rest.union(&ll.first[c.ID])
			}
		}
	}
	closeSets(ll.follow, &in)
}
