package grammar

import (
	"fmt"
	"sort"
	"strings"
)

const infinite = 1 << 40

// analyse computes nullability, shortest derivations, minimum depths,
// productivity, lookahead tables and warnings. Every analysis visits each
// node and edge a bounded number of times, so that imported grammars of
// tens of thousands of rules build in well under a second.
func (g *Graph) analyse(errs *ErrorList) {
	g.nullable = g.nullables()
	g.shortest = g.least(false)
	g.minDepth = g.least(true)
	pos := g.rulePositions()
	for _, name := range g.Rules {
		body := g.Bodies[name]
		if g.shortest[body.ID] >= infinite {
			errs.add(pos[name], "rule %s is unproductive: it cannot derive any finite input (each alternative needs an unproductive rule again)", name)
		}
	}
	if len(*errs) > 0 {
		return
	}
	g.ll = g.lookahead()
	g.warnDuplicates()
	g.leftRec = g.leftRecursive()
	for _, r := range g.leftRec {
		g.Warnings = append(g.Warnings, Warning{Pos: pos[r],
			Msg: fmt.Sprintf("rule %s is left-recursive (arbor parses it, with the general parser)", r)})
	}
	sort.SliceStable(g.Warnings, func(i, j int) bool {
		a, b := g.Warnings[i].Pos, g.Warnings[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
}

// rulePositions maps each rule to where it is defined: looked up once,
// not once per message, which made many warnings quadratic.
func (g *Graph) rulePositions() map[string]Position {
	pos := make(map[string]Position, len(g.Rules))
	if g.Source != nil {
		for _, r := range g.Source.Rules {
			if _, ok := pos[r.Name]; !ok {
				pos[r.Name] = r.Pos
			}
		}
	}
	return pos
}

// parentsOf returns the parents of a node: the Refs to it for a
// right-hand side root, its one parent for any other node.
func (g *Graph) parentsOf(id int) []int32 {
	return g.parentIdx[g.parentOff[id]:g.parentOff[id+1]]
}

// buildParents lays out the reversed edges in one array (compressed
// rows), which every backward analysis and distance search walks.
func (g *Graph) buildParents() {
	off := make([]int32, len(g.Nodes)+1)
	for _, n := range g.Nodes {
		for _, c := range n.Children {
			off[c.ID+1]++
		}
	}
	for i := 1; i < len(off); i++ {
		off[i] += off[i-1]
	}
	idx := make([]int32, off[len(g.Nodes)])
	fill := append([]int32(nil), off[:len(g.Nodes)]...)
	for _, n := range g.Nodes {
		for _, c := range n.Children {
			idx[fill[c.ID]] = int32(n.ID)
			fill[c.ID]++
		}
	}
	g.parentOff, g.parentIdx = off, idx
}

// nullables finds the nullable nodes by propagating from the nullable
// leaves up the reversed edges: a Cat becomes nullable when its last
// non-nullable child does, any other node with its first nullable child.
// Each edge is crossed once.
func (g *Graph) nullables() []bool {
	nullable := make([]bool, len(g.Nodes))
	pending := make([]int32, len(g.Nodes)) // Cat: children not yet nullable
	var queue []int32
	mark := func(id int) {
		if !nullable[id] {
			nullable[id] = true
			queue = append(queue, int32(id))
		}
	}
	for _, n := range g.Nodes {
		switch n.Kind {
		case KindLit:
			if n.Name == "" {
				mark(n.ID)
			}
		case KindRegex:
			if n.re.nullable {
				mark(n.ID)
			}
		case KindQuant:
			if n.Min == 0 {
				mark(n.ID)
			}
		case KindCat:
			pending[n.ID] = int32(len(n.Children))
			if len(n.Children) == 0 {
				mark(n.ID)
			}
		}
	}
	for len(queue) > 0 {
		x := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, p := range g.parentsOf(int(x)) {
			if g.Nodes[p].Kind == KindCat {
				if pending[p]--; pending[p] > 0 {
					continue
				}
			}
			mark(int(p))
		}
	}
	return nullable
}

// least computes, for every node, the size of its smallest complete
// derivation (symbolic nodes; depth false) or its fewest nested Refs
// (depth true), infinite for unproductive nodes. Both are least
// solutions of equations whose right-hand sides are never smaller than
// any child's value (a Ref adds one, a Cat sums or takes the maximum, an
// Alt the minimum), so Knuth's generalization of Dijkstra's algorithm
// settles each node once, in increasing order of value:
// O((nodes + edges) log nodes).
func (g *Graph) least(depth bool) []int {
	n := len(g.Nodes)
	val := make([]int, n)
	done := make([]bool, n)
	pending := make([]int32, n) // Cat: children not yet settled
	acc := make([]int, n)       // Cat: sum (or maximum) of the settled children
	for i := range val {
		val[i] = infinite
	}
	var q valueHeap
	offer := func(id int32, v int) {
		if v < val[id] && !done[id] {
			val[id] = v
			q.push(valueItem{v, id})
		}
	}
	leaf := 1 // a terminal is one symbolic node
	if depth {
		leaf = 0
	}
	for _, nd := range g.Nodes {
		switch nd.Kind {
		case KindLit, KindRegex:
			offer(int32(nd.ID), leaf)
		case KindQuant:
			if nd.Min == 0 {
				offer(int32(nd.ID), 0)
			}
		case KindCat:
			pending[nd.ID] = int32(len(nd.Children))
			if len(nd.Children) == 0 {
				offer(int32(nd.ID), 0)
			}
		}
	}
	for len(q) > 0 {
		it := q.pop()
		if done[it.id] || it.v != val[it.id] {
			continue
		}
		done[it.id] = true
		v := it.v
		for _, p := range g.parentsOf(int(it.id)) {
			if done[p] {
				continue
			}
			pn := g.Nodes[p]
			switch pn.Kind {
			case KindRef:
				offer(p, min(infinite, v+1))
			case KindAlt:
				offer(p, v)
			case KindQuant:
				if depth {
					offer(p, v)
				} else {
					offer(p, min(infinite, pn.Min*v))
				}
			case KindCat:
				if depth {
					acc[p] = max(acc[p], v)
				} else {
					acc[p] = min(infinite, acc[p]+v)
				}
				if pending[p]--; pending[p] == 0 {
					offer(p, acc[p])
				}
			}
		}
	}
	return val
}

type valueItem struct {
	v  int
	id int32
}

// valueHeap is a binary min-heap ordered by value, then by id, so that
// the order of settling is deterministic (the values do not depend on it).
// It is typed rather than container/heap's, which boxes every item.
type valueHeap []valueItem

func (h valueHeap) less(i, j int) bool {
	return h[i].v < h[j].v || h[i].v == h[j].v && h[i].id < h[j].id
}

func (h *valueHeap) push(x valueItem) {
	*h = append(*h, x)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *valueHeap) pop() valueItem {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(q) {
			break
		}
		if c+1 < len(q) && q.less(c+1, c) {
			c++
		}
		if !q.less(c, i) {
			break
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
	*h = q
	return top
}

// canonical is a structural key for an expression below a node, used to
// spot duplicate alternatives.
func canonical(n *Node) string {
	if n.Kind.Symbolic() {
		return n.Label()
	}
	parts := make([]string, len(n.Children))
	for i, c := range n.Children {
		parts[i] = canonical(c)
	}
	switch n.Kind {
	case KindAlt:
		return "(" + strings.Join(parts, " | ") + ")"
	case KindQuant:
		return "(" + parts[0] + ")" + QuantSuffix(n.Min, n.Max)
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func (g *Graph) warnDuplicates() {
	for _, n := range g.Nodes {
		if n.Kind != KindAlt {
			continue
		}
		seen := map[string]int{}
		for i, c := range n.Children {
			key := canonical(c)
			if j, ok := seen[key]; ok {
				g.Warnings = append(g.Warnings, Warning{Pos: c.Pos, Msg: fmt.Sprintf(
					"in rule %s, alternative %d repeats alternative %d (%s); the grammar is ambiguous there",
					n.Rule, i+1, j+1, key)})
				continue
			}
			seen[key] = i
		}
	}
}

// leftRecursive lists the rules that can derive themselves as the leftmost
// symbol (after nullable symbols), sorted by name. The rules and their
// leftmost references form a graph; a rule is left-recursive when it lies
// on a cycle of it: in a strongly connected component of more than one
// rule, or with a reference to itself. Tarjan's algorithm finds the
// components in one pass over integer-indexed edges.
func (g *Graph) leftRecursive() []string {
	nr := len(g.Rules)
	ruleOf := make([]int32, len(g.Nodes)) // the rule whose right-hand side holds a node
	for i := range ruleOf {
		ruleOf[i] = -1
	}
	for i, name := range g.Rules {
		ruleOf[g.Bodies[name].ID] = int32(i)
	}
	// leftmost[id]: the node can start its rule's derivation. Within a
	// right-hand side a parent's id is smaller than its children's (ids
	// are breadth-first), so one pass in id order sees parents first.
	leftmost := make([]bool, len(g.Nodes))
	var edges [][2]int32
	for _, n := range g.Nodes {
		if p := n.Parent; p != nil {
			ruleOf[n.ID] = ruleOf[p.ID]
			switch p.Kind {
			case KindAlt, KindQuant:
				leftmost[n.ID] = leftmost[p.ID]
			case KindCat:
				leftmost[n.ID] = leftmost[p.ID] && (n.Index == 0 || leftmost[p.Children[n.Index-1].ID] && g.nullable[p.Children[n.Index-1].ID])
			}
		} else {
			leftmost[n.ID] = true
		}
		if n.Kind == KindRef && leftmost[n.ID] {
			edges = append(edges, [2]int32{ruleOf[n.ID], ruleOf[n.Children[0].ID]})
		}
	}
	// Compressed rows of the rule graph.
	off := make([]int32, nr+1)
	for _, e := range edges {
		off[e[0]+1]++
	}
	for i := 1; i <= nr; i++ {
		off[i] += off[i-1]
	}
	succ := make([]int32, len(edges))
	fill := append([]int32(nil), off[:nr]...)
	selfLoop := make([]bool, nr)
	for _, e := range edges {
		succ[fill[e[0]]] = e[1]
		fill[e[0]]++
		if e[0] == e[1] {
			selfLoop[e[0]] = true
		}
	}
	comp := sccs(off, succ)
	size := make([]int32, nr)
	for _, c := range comp {
		size[c]++
	}
	var out []string
	for i, name := range g.Rules {
		if size[comp[i]] > 1 || selfLoop[i] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// sccs numbers the strongly connected components of a graph given as
// compressed rows (the successors of v are succ[off[v]:off[v+1]]) with
// Tarjan's algorithm, iteratively so that long chains cannot exhaust the
// goroutine stack. It returns each vertex's component.
func sccs(off, succ []int32) []int32 {
	n := len(off) - 1
	index := make([]int32, n) // discovery order + 1; 0 for unvisited
	low := make([]int32, n)
	comp := make([]int32, n)
	onStack := make([]bool, n)
	next := make([]int32, n) // the next successor to look at
	var stack, call []int32
	counter, ncomp := int32(0), int32(0)
	for root := range n {
		if index[root] != 0 {
			continue
		}
		call = append(call, int32(root))
		counter++
		index[root], low[root], next[root] = counter, counter, off[root]
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			v := call[len(call)-1]
			if next[v] < off[v+1] {
				w := succ[next[v]]
				next[v]++
				switch {
				case index[w] == 0:
					counter++
					index[w], low[w], next[w] = counter, counter, off[w]
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, w)
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1]
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}
