package constraint

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Set is the compiled constraints of a grammar. It is immutable and
// safe for concurrent use; evaluation needs a Checker each.
type Set struct {
	g       *grammar.Graph
	rules   rules // the grammar's rules, numbered
	clauses []*Clause
	uses    fields // the Node fields some clause reads
}

// fields are Node fields that cost work to fill in.
type fields struct{ num, len bool }

// Clause is one compiled where clause.
type Clause struct {
	Where   *grammar.Where
	scope   string // the scope rule: Where.Scope, or the start rule
	scopeID int32  // its number

	prog     *vm.Program
	bindings []binding
	uses     fields
	// reach is what outside its scope occurrence the clause reads,
	// which Recheck needs to know which verdicts a change can alter.
	reach reach
	// each is the list symbol of a clause of the form all(Sym, pred):
	// then prog is compiled with Sym's first use replaced by the
	// one-element list eachName, and the clause has an instance per
	// element of Sym, which is what lets the search find which element
	// breaks it.
	each *binding
	// readsSelf is whether the expression names its scope (self, or the
	// scope rule); eachShared whether it names each's symbol more than
	// once, so that an instance reads the others.
	readsSelf, eachShared bool
	// inst is what lets a check take the clause's instances one by one
	// from the last evaluation (nil: it cannot).
	inst *instances
}

// binding is a symbol an expression names, and what it stands for.
type binding struct {
	sym      string
	id       int32 // sym's rule number
	list     bool  // a list of Nodes; else one Node or nil
	self     bool  // the scope occurrence itself
	optional bool
	shared   bool // read by every instance of an all clause (instances)
}

const (
	selfName = "self"
	eachName = "__each"
)

// Bounds on what a constraint may cost: a grammar file is untrusted, and
// its constraints run on every input. expr-lang evaluates without I/O
// and stops an evaluation past its memory budget (1e6 units); nested
// predicates are bounded here, for each level multiplies the work by a
// list's length.
const (
	maxLoopDepth = 3
	maxExprNodes = 2000
)

// disabled are expr-lang builtins a constraint may not call: those that
// read the clock or the system's time-zone files would make a verdict
// depend on when and where it is evaluated.
var disabled = []string{"now", "date", "timezone", "duration"}

// Compile compiles the where clauses of the grammar g was built from
// (g.Source.Where). Errors are a grammar.ErrorList with each clause's
// file:line:col: a malformed expression, a scope or symbol the grammar
// lacks, a symbol that cannot occur in the scope, an expression that is
// not a condition. A grammar without clauses gives an empty Set.
func Compile(g *grammar.Graph) (*Set, error) {
	if g.Source == nil {
		return &Set{g: g, rules: newRules(g)}, nil
	}
	return CompileClauses(g, g.Source.Where)
}

// CompileClauses compiles clauses over g other than those of its source:
// a clause a tool writes (a relation targeting must satisfy, a mined
// candidate), checked as Compile checks the grammar's own.
func CompileClauses(g *grammar.Graph, clauses []*grammar.Where) (*Set, error) {
	s := &Set{g: g, rules: newRules(g)}
	var errs grammar.ErrorList
	shapes := map[[2]string]shape{} // occurrences by scope and symbol, for all clauses
	for _, w := range clauses {
		c, err := compileClause(g, w, shapes)
		if err != nil {
			var e *grammar.Error
			if errors.As(err, &e) {
				errs = append(errs, e)
			} else {
				errs = append(errs, &grammar.Error{Pos: w.Pos, Msg: err.Error()})
			}
			continue
		}
		c.scopeID = s.rules.id(c.scope)
		for i := range c.bindings {
			c.bindings[i].id = s.rules.id(c.bindings[i].sym)
		}
		if c.reach.rules != nil {
			c.reach.ids = make([]bool, len(s.rules.ids))
			for r := range c.reach.rules {
				if id := s.rules.id(r); id >= 0 {
					c.reach.ids[id] = true
				}
			}
		}
		c.inst = s.instancesOf(c)
		s.clauses = append(s.clauses, c)
		s.uses.num = s.uses.num || c.uses.num
		s.uses.len = s.uses.len || c.uses.len
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// Len is the number of clauses.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.clauses)
}

// Clauses returns the compiled clauses in textual order.
func (s *Set) Clauses() []*Clause { return s.clauses }

// Graph is the grammar the constraints belong to.
func (s *Set) Graph() *grammar.Graph { return s.g }

// String is the clause as written.
func (c *Clause) String() string { return grammar.FormatWhere(c.Where) }

// shape is how often a symbol can occur in a scope (occurrences).
type shape struct {
	most     int
	optional bool
}

func compileClause(g *grammar.Graph, w *grammar.Where, shapes map[[2]string]shape) (*Clause, error) {
	c := &Clause{Where: w, scope: w.Scope}
	if c.scope == "" {
		c.scope = g.Start
	} else if g.Bodies[c.scope] == nil {
		return nil, &grammar.Error{Pos: w.ScopePos, Msg: fmt.Sprintf("the constraint's scope %s is not a rule of the grammar", w.Scope)}
	}
	tree, err := parser.Parse(w.Expr)
	if err != nil {
		return nil, exprError(w, err)
	}
	// The symbols the expression names: identifiers that are rules.
	// Others (let and closure variables, self) are left to expr-lang's
	// checker, which rejects unknown names with their position.
	seen := map[string]bool{}
	var bad error
	var names identifiers
	ast.Walk(&tree.Node, &names)
	env := map[string]any{selfName: (*Node)(nil)}
	for _, id := range names.list {
		if seen[id.Value] || g.Bodies[id.Value] == nil {
			continue
		}
		seen[id.Value] = true
		b := binding{sym: id.Value}
		if id.Value == c.scope {
			b.self = true
		} else {
			key := [2]string{c.scope, id.Value}
			sh, ok := shapes[key]
			if !ok {
				sh.most, sh.optional = occurrences(g, c.scope, id.Value)
				shapes[key] = sh
			}
			most, optional := sh.most, sh.optional
			if most == 0 && bad == nil {
				bad = atError(w, id.Location().From, fmt.Sprintf("%s cannot occur inside %s, so it names nothing here", id.Value, c.scope))
			}
			b.list, b.optional = most > 1, optional
		}
		c.bindings = append(c.bindings, b)
		if b.list {
			env[b.sym] = []*Node(nil)
		} else {
			env[b.sym] = (*Node)(nil)
		}
	}
	if bad != nil {
		return nil, bad
	}
	c.uses = names.uses
	c.reach.any = names.method
	for _, call := range names.enclosing {
		fn := call.Callee.(*ast.IdentifierNode).Value
		var rule *ast.StringNode
		if len(call.Arguments) == 2 {
			rule, _ = call.Arguments[1].(*ast.StringNode)
		}
		if rule != nil && g.Bodies[rule.Value] == nil {
			return nil, atError(w, rule.Location().From, fmt.Sprintf("%s: %q is not a rule of the grammar", fn, rule.Value))
		}
		switch {
		case fn != "enclosing":
		case rule == nil:
			c.reach.any = true // a rule named by a computed string
		case c.reach.rules == nil:
			c.reach.rules = map[string]bool{rule.Value: true}
		default:
			c.reach.rules[rule.Value] = true
		}
	}
	if d, at := names.deepest, names.deepestAt; d > maxLoopDepth {
		return nil, atError(w, at, fmt.Sprintf("the expression nests %d predicates ({...}) inside each other; at most %d are allowed, for its evaluation time grows with the input's size to that power", d, maxLoopDepth))
	}
	opts := append([]expr.Option{expr.Env(env), expr.AsBool(), expr.MaxNodes(maxExprNodes), expr.Patch(inlineConstants{})}, functions()...)
	for _, b := range disabled {
		opts = append(opts, expr.DisableBuiltin(b))
	}
	for _, id := range names.list {
		c.readsSelf = c.readsSelf || id.Value == selfName || id.Value == c.scope
	}
	// all(Sym, pred) over a list symbol: one instance per element.
	if b, ok := tree.Node.(*ast.BuiltinNode); ok && b.Name == "all" && len(b.Arguments) == 2 {
		if id, ok := b.Arguments[0].(*ast.IdentifierNode); ok {
			for i := range c.bindings {
				if c.bindings[i].sym == id.Value && c.bindings[i].list {
					c.each = &c.bindings[i]
					named := 0
					for _, n := range names.list {
						if n.Value == id.Value {
							named++
						}
					}
					c.eachShared = named > 1
					env[eachName] = []*Node(nil)
					opts = append(opts, expr.Patch(&eachPatch{from: id.Location().From, sym: id.Value}))
				}
			}
		}
	}
	prog, err := expr.Compile(w.Expr, opts...)
	if err != nil {
		return nil, exprError(w, err)
	}
	c.prog = prog
	return c, nil
}

// reach is what a clause reads outside its scope occurrence: the
// occurrences of rules that hold it (through enclosing), or, with any,
// what cannot be known before it runs (a rule named by a computed
// string, a method call such as Parent).
type reach struct {
	any   bool
	rules map[string]bool
	ids   []bool // rules by number
}

// ruleArgument are the functions whose second argument names a rule,
// which Compile checks.
var ruleArgument = map[string]bool{"enclosing": true, "descendant": true, "descendants": true}

// identifiers collects the identifiers of an expression and its calls
// of functions that name rules.
type identifiers struct {
	uses      fields // the costly Node fields the expression reads
	method    bool   // the expression calls a method
	list      []*ast.IdentifierNode
	enclosing []*ast.CallNode
	deepest   int // most predicates nested in each other
	deepestAt int
}

func (v *identifiers) Visit(n *ast.Node) {
	switch n := (*n).(type) {
	case *ast.MemberNode:
		v.method = v.method || n.Method
		// A field read by name; a computed one (n["num"]) may be any.
		switch p, ok := n.Property.(*ast.StringNode); {
		case !ok:
			v.uses = fields{true, true}
		case p.Value == "num":
			v.uses.num = true
		case p.Value == "len":
			v.uses.len = true
		}
	case *ast.StringNode:
		// get(n, "num") reads a field too.
		v.uses.num = v.uses.num || n.Value == "num"
		v.uses.len = v.uses.len || n.Value == "len"
	case *ast.PredicateNode:
		if d := predicateDepth(n); d > v.deepest {
			v.deepest, v.deepestAt = d, n.Location().From
		}
	case *ast.IdentifierNode:
		v.list = append(v.list, n)
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && ruleArgument[id.Value] {
			v.enclosing = append(v.enclosing, n)
		}
	}
}

// eachPatch replaces the first argument of a top-level all (the
// identifier at offset from) by the one-element list of an instance.
type eachPatch struct {
	from int
	sym  string
}

func (p *eachPatch) Visit(n *ast.Node) {
	if id, ok := (*n).(*ast.IdentifierNode); ok && id.Value == p.sym && id.Location().From == p.from {
		ast.Patch(n, &ast.IdentifierNode{Value: eachName})
	}
}

// functions are the calls constraints have besides expr-lang's
// builtins: order and nesting of nodes.
func functions() []expr.Option {
	// A Node function returns an untyped nil for no node, so that x?.f
	// and x == nil see nil, not a nil *Node in an interface.
	node := func(n *Node) (any, error) {
		if n == nil {
			return nil, nil
		}
		return n, nil
	}
	pair := func(f func(a, b *Node) bool) func(...any) (any, error) {
		return func(p ...any) (any, error) {
			return f(asNode(p[0]), asNode(p[1])), nil
		}
	}
	// Every node argument is a *Node or a Node: expr-lang takes a
	// pointer's value where an operator (x ?? y) passes one on.
	pairTypes := []any{new(func(*Node, *Node) bool), new(func(Node, Node) bool), new(func(*Node, Node) bool), new(func(Node, *Node) bool)}
	return []expr.Option{
		// == between nodes is the same occurrence: expr-lang's own
		// compares the values field by field, and a node's num is NaN
		// where its text is no number, so that self == self was false.
		expr.Function("sameNode", pair(func(a, b *Node) bool { return a == b }), pairTypes...),
		expr.Function("otherNode", pair(func(a, b *Node) bool { return a != b }), pairTypes...),
		expr.Operator("==", "sameNode"),
		expr.Operator("!=", "otherNode"),
		expr.Function("before", pair(before), pairTypes...),
		expr.Function("after", pair(after), pairTypes...),
		expr.Function("inside", pair(inside), pairTypes...),
		expr.Function("enclosing", func(p ...any) (any, error) {
			return node(enclosing(asNode(p[0]), p[1].(string)))
		}, new(func(*Node, string) *Node), new(func(Node, string) *Node)),
		expr.Function("descendant", func(p ...any) (any, error) {
			return node(descendant(asNode(p[0]), p[1].(string)))
		}, new(func(*Node, string) *Node), new(func(Node, string) *Node)),
		expr.Function("descendants", func(p ...any) (any, error) {
			return descendants(asNode(p[0]), p[1].(string)), nil
		}, new(func(*Node, string) []*Node), new(func(Node, string) []*Node)),
	}
}

// asNode is a function's node argument: a *Node, or a Node where
// expr-lang took the pointer's value (x ?? y does), or nil.
func asNode(v any) *Node {
	switch n := v.(type) {
	case *Node:
		return n
	case Node:
		return &n
	}
	return nil
}

// exprError turns an error of expr-lang's parser or checker into a
// grammar error at its place in the grammar file.
func exprError(w *grammar.Where, err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		msg := fe.Message
		if name, ok := strings.CutPrefix(msg, "unknown name "); ok {
			msg = fmt.Sprintf("%s is neither a rule of the grammar nor a variable of the expression", name)
		}
		return atError(w, fe.From, msg)
	}
	return &grammar.Error{Pos: w.ExprPos, Msg: err.Error()}
}

// atError is an error at the runes'th character of w's expression.
func atError(w *grammar.Where, runes int, msg string) error {
	pos := w.ExprPos
	for i, r := range w.Expr {
		if runes == 0 {
			break
		}
		runes--
		pos.Offset += utf8.RuneLen(r)
		if r == '\n' {
			pos.Line++
			pos.Col = 1
		} else {
			pos.Col += utf8.RuneLen(r)
		}
		_ = i
	}
	return &grammar.Error{Pos: pos, Msg: msg}
}

// predicateDepth is the number of predicates nested in n, n included.
func predicateDepth(n *ast.PredicateNode) int {
	var inner nested
	ast.Walk(&n.Node, &inner)
	return 1 + inner.most
}

type nested struct{ most int }

func (v *nested) Visit(n *ast.Node) {
	if p, ok := (*n).(*ast.PredicateNode); ok {
		v.most = max(v.most, predicateDepth(p))
	}
}

// inlineConstants replaces the uses of a let variable bound to a string
// literal by the literal, so that a regular expression given that way
// (let p = "^[a-z]+$"; x matches p) is compiled once, with the clause,
// as expr-lang does for a literal, not at every evaluation. (expr-lang
// refuses to bind a name anew inside its scope; binds checks all the
// same, for a version that would not.)
type inlineConstants struct{}

func (inlineConstants) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.ArrayNode, *ast.MapNode:
		// A literal of constants is made once, not at every
		// evaluation: inside a predicate, a map literal (an operator's
		// precedence by name) cost more than the rest of the clause.
		if v, ok := constantValue(x); ok {
			ast.Patch(n, &ast.ConstantNode{Value: v})
		}
		return
	}
	decl, ok := (*n).(*ast.VariableDeclaratorNode)
	if !ok {
		return
	}
	s, ok := decl.Value.(*ast.StringNode)
	if !ok {
		return
	}
	var b binds
	b.name = decl.Name
	ast.Walk(&decl.Expr, &b)
	if !b.found {
		ast.Walk(&decl.Expr, &substitute{name: decl.Name, value: s.Value})
	}
}

// binds finds a let that binds name.
type binds struct {
	name  string
	found bool
}

func (v *binds) Visit(n *ast.Node) {
	if d, ok := (*n).(*ast.VariableDeclaratorNode); ok && d.Name == v.name {
		v.found = true
	}
}

// substitute replaces identifier name by a string literal.
type substitute struct{ name, value string }

func (v *substitute) Visit(n *ast.Node) {
	if x, ok := (*n).(*ast.IdentifierNode); ok && x.Value == v.name {
		ast.Patch(n, &ast.StringNode{Value: v.value})
	}
}

// constantValue is the value of a literal made of constants only (Walk
// is post-order: inner literals are ConstantNodes already); ok is false
// for anything else.
func constantValue(n ast.Node) (any, bool) {
	switch x := n.(type) {
	case *ast.StringNode:
		return x.Value, true
	case *ast.IntegerNode:
		return x.Value, true
	case *ast.FloatNode:
		return x.Value, true
	case *ast.BoolNode:
		return x.Value, true
	case *ast.ConstantNode:
		return x.Value, true
	case *ast.ArrayNode:
		out := make([]any, len(x.Nodes))
		for i, e := range x.Nodes {
			v, ok := constantValue(e)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	case *ast.MapNode:
		out := make(map[string]any, len(x.Pairs))
		for _, p := range x.Pairs {
			pair, ok := p.(*ast.PairNode)
			if !ok {
				return nil, false
			}
			k, ok := pair.Key.(*ast.StringNode)
			if !ok {
				return nil, false
			}
			v, ok := constantValue(pair.Value)
			if !ok {
				return nil, false
			}
			out[k.Value] = v
		}
		return out, true
	}
	return nil, false
}
