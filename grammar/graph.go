package grammar

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Kind is the kind of a graph node.
type Kind uint8

// Symbolic kinds (Ref, Lit, Regex) stand for grammar symbols; synthetic
// kinds (Alt, Cat, Quant) only give structure to right-hand sides.
const (
	KindRef   Kind = iota // use of a non-terminal; its one child is the rule's right-hand side
	KindLit               // literal terminal
	KindRegex             // regular-expression terminal
	KindAlt               // alternation: a derivation takes exactly one child
	KindCat               // concatenation of the children in order
	KindQuant             // repetition of the one child, Min..Max times
)

var kindNames = [...]string{"Ref", "Lit", "Regex", "Alt", "Cat", "Quant"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Symbolic reports whether nodes of this kind are grammar symbols.
func (k Kind) Symbolic() bool { return k <= KindRegex }

// Node is one occurrence of a symbol or construct in a right-hand side.
// Nodes are identified by ID, assigned breadth-first from the graph's root.
type Node struct {
	ID       int
	Kind     Kind
	Name     string   // KindRef: the rule name; KindLit: the literal text; KindRegex: the source
	Min, Max int      // KindQuant: repetition bounds; Max is Unbounded for no limit
	Children []*Node  // KindRef: the referenced right-hand side (shared by all its Refs)
	Rule     string   // the rule whose right-hand side holds this node
	Parent   *Node    // parent within that right-hand side; nil for the right-hand side's root
	Index    int      // position among Parent's children
	Pos      Position // where the node was written

	re *matcher // KindRegex
}

// Label is the node's name without its id: a rule name, a quoted literal,
// a /regex/ or the synthetic kind.
func (n *Node) Label() string {
	switch n.Kind {
	case KindRef:
		return n.Name
	case KindLit:
		return QuoteLit(n.Name)
	case KindRegex:
		return QuoteRegex(n.Name)
	case KindQuant:
		return "Quant" + QuantSuffix(n.Min, n.Max)
	}
	return n.Kind.String()
}

// String is the label with the id, as in AddExpr_0 or "x"_39.
func (n *Node) String() string { return n.Label() + "_" + strconv.Itoa(n.ID) }

// Graph is the grammar graph of docs/notation.md together with its static
// analyses. It is immutable once built and safe for concurrent use.
type Graph struct {
	Nodes    []*Node          // indexed by ID
	Root     *Node            // the start rule's right-hand side; ID 0
	Start    string           // the start symbol
	Rules    []string         // rule names in textual order
	Bodies   map[string]*Node // right-hand side root of each rule
	Warnings []Warning
	Source   *Grammar // the syntax the graph was built from

	nullable []bool
	shortest []int // fewest symbolic nodes in a complete derivation of the node
	minDepth []int // fewest nested Refs in a complete derivation of the node
	ll       *ll1  // lookahead tables for the deterministic parser
	leftRec  []string

	// The reversed edges as compressed rows: the parents of node i are
	// parentIdx[parentOff[i]:parentOff[i+1]].
	parentOff, parentIdx []int32

	refs       [][]int32 // per right-hand side root: the Refs to it
	earleyPool sync.Pool // *earley buffers, reused across parses
	detPool    sync.Pool // *detParser, reused across parses

	distMu sync.Mutex
	distTo map[int][]int32 // target node ID -> distance from every node
}

// Build resolves names, builds the grammar graph and runs the static
// analyses. Undefined, duplicate, unreachable and unproductive rules are
// errors (an ErrorList); duplicate alternatives and left recursion are
// reported in Graph.Warnings.
func Build(src *Grammar) (*Graph, error) {
	var errs ErrorList
	if len(src.Rules) == 0 {
		errs.add(Position{Filename: src.Filename}, "the grammar has no rules")
		return nil, errs
	}
	g := &Graph{Source: src, Start: src.Rules[0].Name, Bodies: map[string]*Node{}}
	defs := map[string]*Rule{}
	for _, r := range src.Rules {
		if prev, ok := defs[r.Name]; ok {
			errs.add(r.Pos, "rule %s is defined twice (first at %s); merge the two with |", r.Name, prev.Pos)
			continue
		}
		defs[r.Name] = r
		g.Rules = append(g.Rules, r.Name)
	}
	b := &builder{defs: defs, errs: &errs}
	for _, name := range g.Rules {
		r := defs[name]
		g.Bodies[name] = b.node(r.Body, name, nil, 0)
	}
	for _, ref := range b.refs {
		body, ok := g.Bodies[ref.Name]
		if !ok {
			errs.add(ref.Pos, "undefined symbol %s%s", ref.Name, suggest(ref.Name, g.Rules))
			continue
		}
		ref.Children = []*Node{body}
	}
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	g.Root = g.Bodies[g.Start]
	g.number()
	for _, name := range g.Rules {
		if g.Bodies[name].ID < 0 {
			errs.add(defs[name].Pos, "rule %s is unreachable from the start symbol %s", name, g.Start)
		}
	}
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	for _, n := range g.Nodes {
		if n.Kind == KindRegex {
			m, err := compileMatcher(n.Name)
			if err != nil {
				errs.add(n.Pos, "bad regular expression /%s/: %v", n.Name, err)
				continue
			}
			n.re = m
		}
	}
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	g.refs = refsTo(g.Nodes)
	g.buildParents()
	g.analyse(&errs)
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	return g, nil
}

type builder struct {
	defs map[string]*Rule
	errs *ErrorList
	refs []*Node
}

// node converts an expression into unnumbered nodes (ID -1).
func (b *builder) node(e Expr, rule string, parent *Node, index int) *Node {
	n := &Node{ID: -1, Rule: rule, Parent: parent, Index: index, Pos: e.Pos(), Max: 0}
	switch e := e.(type) {
	case *Alt:
		if len(e.Alts) == 1 {
			return b.node(e.Alts[0], rule, parent, index)
		}
		n.Kind = KindAlt
		for i, a := range e.Alts {
			n.Children = append(n.Children, b.node(a, rule, n, i))
		}
	case *Seq:
		if len(e.Items) == 1 {
			return b.node(e.Items[0], rule, parent, index)
		}
		n.Kind = KindCat
		for i, x := range e.Items {
			n.Children = append(n.Children, b.node(x, rule, n, i))
		}
	case *Repeat:
		n.Kind, n.Min, n.Max = KindQuant, e.Min, e.Max
		n.Children = []*Node{b.node(e.X, rule, n, 0)}
	case *Ref:
		n.Kind, n.Name = KindRef, e.Name
		b.refs = append(b.refs, n)
	case *Lit:
		n.Kind, n.Name = KindLit, e.Text
	case *Regex:
		n.Kind, n.Name = KindRegex, e.Src
	default:
		b.errs.add(e.Pos(), "unknown expression %T", e)
		n.Kind = KindCat
	}
	return n
}

// number assigns IDs breadth-first from the root, children in textual
// order; a shared right-hand side is numbered when first reached.
func (g *Graph) number() {
	g.Root.ID = 0
	queue := []*Node{g.Root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		g.Nodes = append(g.Nodes, n)
		for _, c := range n.Children {
			if c.ID < 0 {
				c.ID = len(g.Nodes) + len(queue)
				queue = append(queue, c)
			}
		}
	}
}

// suggest proposes a defined rule for a misspelt name.
func suggest(name string, rules []string) string {
	best, bestD := "", 3
	for _, r := range rules {
		if d := editDistance(strings.ToLower(name), strings.ToLower(r)); d < bestD {
			best, bestD = r, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Symbolic returns the symbolic nodes (Ref, Lit, Regex) in ID order.
func (g *Graph) Symbolic() []*Node {
	var out []*Node
	for _, n := range g.Nodes {
		if n.Kind.Symbolic() {
			out = append(out, n)
		}
	}
	return out
}

// SymbolicChildren returns the symbolic nodes reachable from a node through
// synthetic nodes only, in pre-order: the next elements a k-path through n
// can take. For a Ref they lie in the referenced right-hand side.
func (g *Graph) SymbolicChildren(n *Node) []*Node {
	var out []*Node
	var walk func(*Node)
	walk = func(m *Node) {
		if m.Kind.Symbolic() {
			out = append(out, m)
			return
		}
		for _, c := range m.Children {
			walk(c)
		}
	}
	for _, c := range n.Children {
		walk(c)
	}
	return out
}

// Nullable reports whether the node derives the empty string.
func (g *Graph) Nullable(n *Node) bool { return g.nullable[n.ID] }

// Shortest is the number of symbolic nodes in the smallest complete
// derivation tree rooted at n (the fewest expansions that close it).
func (g *Graph) Shortest(n *Node) int { return g.shortest[n.ID] }

// MinDepth is the fewest nested rule expansions (Refs) on the deepest path
// of any complete derivation tree rooted at n. A generator that is at depth
// d with a bound of D may choose n only if d+MinDepth(n) <= D.
func (g *Graph) MinDepth(n *Node) int { return g.minDepth[n.ID] }

// Distance is the number of edges on a shortest path from one node to
// another in the graph, or -1 if to is not reachable from from.
func (g *Graph) Distance(from, to *Node) int {
	return int(g.distancesTo(to)[from.ID])
}

// Reachable reports whether to can be reached from from (a node reaches itself).
func (g *Graph) Reachable(from, to *Node) bool { return g.Distance(from, to) >= 0 }

// distancesTo computes, once per target, the distance of every node to it
// by breadth-first search over the reversed edges: O(nodes + edges) for
// the first query of a target, a map lookup for every later one. The
// result is shared by all callers and never changed.
func (g *Graph) distancesTo(to *Node) []int32 {
	g.distMu.Lock()
	defer g.distMu.Unlock()
	if d, ok := g.distTo[to.ID]; ok {
		return d
	}
	if g.distTo == nil {
		g.distTo = map[int][]int32{}
	}
	d := make([]int32, len(g.Nodes))
	for i := range d {
		d[i] = -1
	}
	d[to.ID] = 0
	queue := make([]int32, 1, 64)
	queue[0] = int32(to.ID)
	for head := 0; head < len(queue); head++ {
		x := queue[head]
		for _, p := range g.parentsOf(int(x)) {
			if d[p] < 0 {
				d[p] = d[x] + 1
				queue = append(queue, p)
			}
		}
	}
	g.distTo[to.ID] = d
	return d
}

// Node returns the node with the given ID, or nil.
func (g *Graph) Node(id int) *Node {
	if id < 0 || id >= len(g.Nodes) {
		return nil
	}
	return g.Nodes[id]
}

// Stats summarises the graph's size.
type Stats struct {
	Rules     int
	Nodes     int
	Symbolic  int // Ref, Lit and Regex nodes: the 1-paths
	ByKind    map[Kind]int
	Nullable  []string // rules that derive the empty string
	LeftRec   []string // left-recursive rules
	Conflicts int      // decisions the deterministic parser cannot make with one byte of lookahead
}

// Stats computes summary figures of the graph.
func (g *Graph) Stats() Stats {
	s := Stats{Rules: len(g.Rules), Nodes: len(g.Nodes), ByKind: map[Kind]int{}}
	for _, n := range g.Nodes {
		s.ByKind[n.Kind]++
		if n.Kind.Symbolic() {
			s.Symbolic++
		}
	}
	for _, r := range g.Rules {
		if g.nullable[g.Bodies[r].ID] {
			s.Nullable = append(s.Nullable, r)
		}
	}
	s.LeftRec = append([]string(nil), g.leftRec...)
	s.Conflicts = len(g.ll.conflicts)
	sort.Strings(s.Nullable)
	return s
}

// matchEnds returns the ends of the matches of a terminal node at pos.
func (n *Node) matchEnds(in []byte, pos int) []int {
	if n.Kind == KindLit {
		if len(in)-pos >= len(n.Name) && string(in[pos:pos+len(n.Name)]) == n.Name {
			return []int{pos + len(n.Name)}
		}
		return nil
	}
	return n.re.ends(in, pos, nil)
}
