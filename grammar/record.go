package grammar

import (
	"context"
	"math"
)

// recNode is one node of a recorded deterministic parse. A record lists
// the tree's nodes in pre-order; a node's children follow it, the first
// at the next index and each other one at its previous sibling's next,
// up to the node's own next. Sixteen bytes a node, against a Tree's 48
// and the pointer to it, and no pointers for the collector to follow.
type recNode struct {
	node   int32 // the graph node's ID
	next   int32 // the index after the node's subtree
	lo, hi int32 // a terminal's text: input[lo:hi] (0 for other nodes)
}

// Parser parses inputs by one graph as Graph.Parse and Graph.ParseLazy
// do, keeping its memory from one input to the next: the trees it builds
// and the parses it records are valid until its next call, as the bytes
// of a bufio.Scanner are. A loop over a corpus then allocates little more
// than each input's text per input. A Parser keeps the memory the largest
// input it parsed took until it is dropped: 16 bytes a tree node for a
// record, 56 more for a built tree (a JSON input has 1.3 to 3 nodes a
// byte). A Parser is not safe for concurrent use; a Graph may have any
// number of them.
type Parser struct {
	g      *Graph
	det    detParser
	nodes  []Tree  // the tree's nodes, in pre-order (Parse)
	kids   []*Tree // their child lists, end to end
	parsed Parsed
	// recMax, if not 0, is the most nodes a record holds, in Parse and
	// ParseLazy alike (tests change it).
	recMax int
}

// lazyRecordMax is the most nodes Parser.ParseLazy records: 1 MB of
// record, the tree of a JSON input of 20 to 50 KB. A larger input's
// parse goes on as a check and Visit parses it again, as Graph.ParseLazy
// does, so that reading a large input's features takes memory for its
// nesting only rather than 20 to 50 bytes per input byte.
const lazyRecordMax = 1 << 16

// NewParser returns a parser of inputs by g.
func (g *Graph) NewParser() *Parser {
	return &Parser{g: g}
}

// start readies the deterministic parser for an input, to record at
// most recMax nodes unless p.recMax says otherwise, with its speculation
// bounded and stopped when ctx is done.
func (p *Parser) start(ctx context.Context, in []byte, mode detMode, recMax int) *detParser {
	p.det.reset(p.g.ll, mode, in)
	p.det.bound(ctx)
	p.det.recMax = recMax
	if p.recMax > 0 {
		p.det.recMax = p.recMax
	}
	return &p.det
}

// Parse returns the input's derivation tree as Graph.Parse does. The
// tree's nodes are reused by the next call; its leaves' Values are
// strings of their own and stay valid.
func (p *Parser) Parse(input []byte) (*Tree, error) {
	return p.ParseContext(context.Background(), input, ParseOptions{})
}

// ParseContext is Parse within the options' budget, stopped when ctx is
// done, as Graph.ParseContext.
func (p *Parser) ParseContext(ctx context.Context, input []byte, opts ParseOptions) (*Tree, error) {
	if err := checkStart(ctx, input); err != nil {
		return nil, err
	}
	d := p.start(ctx, input, detRecord, math.MaxInt32)
	out := d.run(p.g.Root)
	switch {
	case out == detOK && !d.recFull:
		return p.build(d.rec, string(input)), nil
	case out == detOK:
		return nil, errTooLarge
	case out == detTooDeep:
		return nil, errTooDeep
	}
	trees, err := p.g.parseGeneralContext(ctx, input, ParseOptions{Budget: opts.Budget})
	if err != nil {
		return nil, err
	}
	return trees[0], nil
}

// build returns the tree of a record in the parser's reused memory.
func (p *Parser) build(rec []recNode, s string) *Tree {
	if cap(p.nodes) < len(rec) {
		p.nodes = make([]Tree, len(rec))
		p.kids = make([]*Tree, len(rec))
	}
	return buildRecord(p.g, rec, s, p.nodes[:len(rec)], p.kids[:len(rec)])
}

// ParseLazy parses an input as Graph.ParseLazy does, and where the
// deterministic parser takes it and its tree has at most 65,536 nodes,
// records the parse as it goes: Visit then replays the record instead of
// parsing the input again, and Trees builds the tree from it. (A larger
// tree is not recorded, see lazyRecordMax.) The Parsed is valid until
// the parser's next call; the input must not change while it is in use.
func (p *Parser) ParseLazy(input []byte, limit int) (*Parsed, error) {
	return p.ParseLazyContext(context.Background(), input, ParseOptions{Trees: limit})
}

// ParseLazyContext is ParseLazy with up to opts.Trees trees, within the
// options' budget, stopped when ctx is done, as Graph.ParseLazyContext.
func (p *Parser) ParseLazyContext(ctx context.Context, input []byte, opts ParseOptions) (*Parsed, error) {
	if err := checkStart(ctx, input); err != nil {
		return nil, err
	}
	d := p.start(ctx, input, detRecord, lazyRecordMax)
	out := d.run(p.g.Root)
	stack := p.parsed.stack[:0]
	switch {
	case out == detOK && !d.recFull:
		p.parsed = Parsed{g: p.g, in: input, rec: d.rec, stack: stack}
		return &p.parsed, nil
	case out == detOK:
		// Too many nodes to record: Visit parses the input again.
		p.parsed = Parsed{g: p.g, in: input}
		return &p.parsed, nil
	case out == detTooDeep:
		return nil, errTooDeep
	}
	trees, err := p.g.parseGeneralContext(ctx, input, opts)
	if err != nil {
		return nil, err
	}
	p.parsed = Parsed{g: p.g, in: input, trees: trees, stack: stack}
	return &p.parsed, nil
}

// buildRecord makes the tree of a record: node i of the record becomes
// nodes[i], and the child lists are cut from kids, end to end (a tree
// has one child fewer than it has nodes). Leaves' Values are cut from
// s, the input.
func buildRecord(g *Graph, rec []recNode, s string, nodes []Tree, kids []*Tree) *Tree {
	nodes = nodes[:len(rec)]
	k := 0
	for i, r := range rec {
		n := g.Nodes[r.node]
		// Each node is written once, whole.
		if r.next == int32(i+1) {
			switch n.Kind {
			case KindLit:
				nodes[i] = Tree{Node: n, Value: n.Name}
			case KindRegex:
				nodes[i] = Tree{Node: n, Value: s[r.lo:r.hi]}
			default: // an empty repetition
				nodes[i] = Tree{Node: n}
			}
			continue
		}
		first := k
		for c := int32(i + 1); c < r.next; c = rec[c].next {
			kids[k] = &nodes[c]
			k++
		}
		nodes[i] = Tree{Node: n, Children: kids[first:k:k]}
	}
	return &nodes[0]
}

// replay tells v the nodes of a recorded parse, as the deterministic
// parser's visiting mode would: Enter at each node in pre-order, with a
// terminal's text, and Leave after its subtree.
func (p *Parsed) replay(v Visitor) {
	s, rec, nodes := p.Input(), p.rec, p.g.Nodes
	open := p.stack[:0] // the nodes entered and not yet left
	for i, r := range rec {
		for len(open) > 0 && rec[open[len(open)-1]].next == int32(i) {
			v.Leave(nodes[rec[open[len(open)-1]].node])
			open = open[:len(open)-1]
		}
		n := nodes[r.node]
		var text string
		switch n.Kind {
		case KindLit:
			text = n.Name
		case KindRegex:
			text = s[r.lo:r.hi]
		}
		v.Enter(n, text)
		if r.next == int32(i+1) {
			v.Leave(n)
		} else {
			open = append(open, int32(i))
		}
	}
	for j := len(open) - 1; j >= 0; j-- {
		v.Leave(nodes[rec[open[j]].node])
	}
	p.stack = open[:0]
}

// recordTree builds the tree of a recorded parse in memory of its own.
func (p *Parsed) recordTree() *Tree {
	return buildRecord(p.g, p.rec, p.Input(), make([]Tree, len(p.rec)), make([]*Tree, len(p.rec)))
}
