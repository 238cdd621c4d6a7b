package grammar

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the input parser.
const (
	MaxInput = 1 << 30 // the largest input, in bytes
	// MaxDepth is the deepest nesting of rule expansions (Refs) a tree may
	// have: about 12,000 levels of JSON arrays, more than encoding/json's
	// 10,000. Parsing recurses over the nesting, so this bounds its stack.
	MaxDepth = 50000
	// DefaultTreeLimit is how many trees of an ambiguous input arbor takes
	// by default when it needs their union (k-path features, coverage).
	DefaultTreeLimit = 16
)

var errTooDeep = fmt.Errorf("the input nests rule expansions more than %d deep; arbor does not parse inputs that deep", MaxDepth)

// errTooLarge is the error of a tree of more nodes than a parse record
// holds (2^31), which would take over 100 GB as Trees.
var errTooLarge = errors.New("the input's derivation tree has more than 2^31 nodes; arbor does not build trees that large")

// Parse parses an input by the graph and returns its derivation tree. For
// an ambiguous input it returns the first tree found; ParseAll returns more.
// An input outside the language gets a *ParseError.
//
// Inputs whose every decision is settled by one byte of lookahead are
// parsed by a deterministic parser in linear time; the others (ambiguous
// or non-LL(1) parts of a grammar, such as left recursion) by a general
// Earley parser. Both give the same tree where both apply. The general
// parser works within the default budget (ParseOptions.Budget): an
// input that needs more, almost always because the grammar is
// ambiguous, gets a *BudgetError.
//
// Parse is safe for concurrent use.
func (g *Graph) Parse(input []byte) (*Tree, error) {
	return g.ParseContext(context.Background(), input, ParseOptions{})
}

// ParseContext is Parse within the options' budget, stopped when ctx is
// done: the error then wraps ctx.Err(). The options' Trees is not used.
func (g *Graph) ParseContext(ctx context.Context, input []byte, opts ParseOptions) (*Tree, error) {
	if err := checkStart(ctx, input); err != nil {
		return nil, err
	}
	if t, err := g.parseDeterministicContext(ctx, input); t != nil || err != nil {
		return t, err
	}
	trees, err := g.parseGeneralContext(ctx, input, ParseOptions{Budget: opts.Budget})
	if err != nil {
		return nil, err
	}
	return trees[0], nil
}

// ParseAll returns up to limit derivation trees of an input (at least one
// if it parses). Trees that would contain a derivation of a node over the
// same span inside itself, and empty repetitions beyond a repetition's
// minimum, are not produced, so the number of trees is finite. Where the
// budget runs out reading more trees, the trees found so far are returned.
func (g *Graph) ParseAll(input []byte, limit int) ([]*Tree, error) {
	return g.ParseAllContext(context.Background(), input, ParseOptions{Trees: limit})
}

// ParseAllContext is ParseAll with up to opts.Trees trees, within the
// options' budget, stopped when ctx is done.
func (g *Graph) ParseAllContext(ctx context.Context, input []byte, opts ParseOptions) ([]*Tree, error) {
	if err := checkStart(ctx, input); err != nil {
		return nil, err
	}
	if t, err := g.parseDeterministicContext(ctx, input); t != nil || err != nil {
		// The deterministic parser only succeeds when every decision had a
		// single viable choice, so the tree is the only one.
		if err != nil {
			return nil, err
		}
		return []*Tree{t}, nil
	}
	return g.parseGeneralContext(ctx, input, opts)
}

// Parsed is an input that parsed, with its derivation trees. Where the
// deterministic parser parses the input, its one tree is not built:
// Graph.ParseLazy keeps nothing of the parse, and Visit parses the input
// again to tell its nodes, so that reading features or writing the tree
// out takes memory for the input and its nesting only, where the tree of
// a JSON input takes 75 to 160 bytes per input byte; Parser.ParseLazy
// records the parse (16 bytes a node, in memory the Parser reuses), and
// Visit replays the record. Trees builds the tree. A Parsed is not safe
// for concurrent use.
type Parsed struct {
	g     *Graph
	in    []byte
	s     string    // in as a string, made on first use
	trees []*Tree   // the general parser's trees; nil for a deterministic parse
	rec   []recNode // the deterministic parse, if recorded (Parser.ParseLazy)
	stack []int32   // replay's, kept for the next replay
}

// ParseLazy parses an input as ParseAll does, but builds its trees only
// if it needs the general parser. The input must not change while the
// Parsed is in use.
func (g *Graph) ParseLazy(input []byte, limit int) (*Parsed, error) {
	return g.ParseLazyContext(context.Background(), input, ParseOptions{Trees: limit})
}

// ParseLazyContext is ParseLazy with up to opts.Trees trees, within the
// options' budget, stopped when ctx is done.
func (g *Graph) ParseLazyContext(ctx context.Context, input []byte, opts ParseOptions) (*Parsed, error) {
	if err := checkStart(ctx, input); err != nil {
		return nil, err
	}
	ok, err := g.checkDeterministicContext(ctx, input)
	if err != nil {
		return nil, err
	}
	if ok {
		return &Parsed{g: g, in: input}, nil
	}
	trees, err := g.parseGeneralContext(ctx, input, opts)
	if err != nil {
		return nil, err
	}
	return &Parsed{g: g, in: input, trees: trees}, nil
}

// Len is the number of trees.
func (p *Parsed) Len() int {
	if p.trees == nil {
		return 1
	}
	return len(p.trees)
}

// Input is the input as a string: the text every tree derives.
func (p *Parsed) Input() string {
	if p.s == "" && len(p.in) > 0 {
		p.s = string(p.in)
	}
	return p.s
}

// Visit tells v the nodes of tree i (0 <= i < Len) in pre-order.
func (p *Parsed) Visit(i int, v Visitor) {
	switch {
	case p.trees != nil:
		p.trees[i].Visit(v)
	case p.rec != nil:
		p.replay(v)
	default:
		p.g.visitDeterministic(p.in, p.Input(), v)
	}
}

// Trees returns the trees, building the deterministic parse's tree.
func (p *Parsed) Trees() ([]*Tree, error) {
	if p.trees != nil {
		return p.trees, nil
	}
	if p.rec != nil {
		return []*Tree{p.recordTree()}, nil
	}
	t, err := p.g.buildDeterministic(p.in, p.Input())
	if err == nil && t == nil {
		// ParseLazy's check accepted the input; the same parser cannot
		// refuse it now.
		err = errors.New("the deterministic parser refused an input it had accepted")
	}
	if err != nil {
		return nil, err
	}
	return []*Tree{t}, nil
}

// checkStart refuses an input too large to parse, and a parse whose
// context is already done.
func checkStart(ctx context.Context, input []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("parse not started: %w", err)
	}
	return checkSize(input)
}

func checkSize(input []byte) error {
	if len(input) > MaxInput {
		return fmt.Errorf("input is %d bytes; the parser accepts at most %d", len(input), MaxInput)
	}
	return nil
}

// ParseError reports an input outside the grammar's language.
type ParseError struct {
	Pos      Position // of the first byte that could not be parsed; Filename is set by callers that know it
	Found    string   // that byte (or character) quoted, or "end of input"
	Expected []string // terminals that would have been accepted there
}

func newParseError(in []byte, off int, expected []string) *ParseError {
	pos := Position{Offset: off, Line: 1, Col: 1}
	for i := 0; i < off && i < len(in); i++ {
		if in[i] == '\n' {
			pos.Line++
			pos.Col = 1
		} else {
			pos.Col++
		}
	}
	found := "end of input"
	if off < len(in) {
		r, n := utf8.DecodeRune(in[off:])
		if r == utf8.RuneError && n <= 1 {
			found = fmt.Sprintf("byte 0x%02x", in[off])
		} else {
			found = strconv.QuoteRune(r)
		}
	}
	return &ParseError{Pos: pos, Found: found, Expected: expected}
}

func (e *ParseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (byte %d): unexpected %s", e.Pos, e.Pos.Offset, e.Found)
	if len(e.Expected) > 0 {
		const show = 12
		b.WriteString("; expected ")
		if len(e.Expected) > 1 {
			b.WriteString("one of ")
		}
		list := e.Expected
		if len(list) > show {
			list = list[:show]
		}
		b.WriteString(strings.Join(list, ", "))
		if len(e.Expected) > show {
			fmt.Fprintf(&b, " and %d more", len(e.Expected)-show)
		}
	}
	return b.String()
}

// arena allocates tree nodes and child lists in blocks, which makes
// building a large tree several times cheaper than one allocation per node.
type arena struct {
	nodes []Tree
	kids  []*Tree
	block int
}

func newArena(inputLen int) *arena {
	// A JSON-like input has about two tree nodes per byte.
	return &arena{block: min(max(2*inputLen, 32), 8192)}
}

func (a *arena) node() *Tree {
	if len(a.nodes) == cap(a.nodes) {
		a.nodes = make([]Tree, 0, a.block)
	}
	a.nodes = a.nodes[:len(a.nodes)+1]
	return &a.nodes[len(a.nodes)-1]
}

// wrap returns a tree node for n with the single child c (a Ref or an Alt).
func (a *arena) wrap(n *Node, c *Tree) *Tree {
	t := a.node()
	t.Node, t.Children = n, a.children(1)
	t.Children[0] = c
	return t
}

func (a *arena) children(n int) []*Tree {
	if n == 0 {
		return nil
	}
	if n > a.block/4 {
		return make([]*Tree, n)
	}
	if len(a.kids)+n > cap(a.kids) {
		a.kids = make([]*Tree, 0, a.block)
	}
	s := a.kids[len(a.kids) : len(a.kids)+n : len(a.kids)+n]
	a.kids = a.kids[:len(a.kids)+n]
	return s
}
