package antlr

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/arbor-fuzz/arbor/grammar"
)

// A directly left-recursive rule (expr : expr '*' expr | expr '+' expr
// | '-' expr | INT ;) means in ANTLR what its left-recursion rewrite
// makes of it: a greedy precedence-climbing loop, expr[p] : primary
// (op expr[q])*, where an alternative listed earlier binds tighter, a
// binary alternative's right operand is expr[p+1] (expr[p] with
// <assoc=right>), a prefix alternative's operand is expr[p] of its own
// precedence, a suffix applies wherever the loop stands, and every other
// reference to the rule is expr[0]. Converted as written, the rule would
// be ambiguous (1+2*3 two ways) and arbor's general parser slow on long
// inputs. It is converted instead into a grammar whose one tree for an
// input is the tree ANTLR builds.
//
// The binary and suffix alternatives are levels, 0 the loosest (listed
// last), and the rule becomes a chain of level rules, as a grammar
// written by hand has them: expr := Add | expr_1 ; expr_1 := Mul |
// expr_2 ; ... down to the level of the other alternatives. (A rule
// that listed every alternative of its level or tighter would be a
// level shallower, but all of its alternatives but one would start
// with the same rule, and the deterministic parser's look-ahead across
// them grows exponentially with nested parentheses.) A level rule is
// described by three things: s, the loosest level its loop may apply
// (the operators along its left edge are at s or tighter: expr[p]'s
// bound); j, its place in the chain (the operators between s and j are
// the other rules'); and f, the level of an operator that follows it,
// which nothing at its right edge may take (the greedy loop would have
// given the operator to the right operand, or to a prefix's operand:
// -a*b is -(a*b) where * binds tighter than -, never (-a)*b). The rule
// of (s, j, f) holds
//
//	the binary operator b at level j, unless it would take an operator
//	at f:   (s, s, b) op (b+1, b+1, f)   ((s, s, b) op (b, b, f) with
//	        <assoc=right>)
//	the suffix at level j:
//	        (s, s, j) op
//	and the next level, (s, j+1, f);
//	at the last level, the prefix alternatives whose operand would not
//	take an operator at f, op (their level, their level, f), and every
//	other alternative, their references to the rule (0, 0, none).
//
// A left operand is (s, s, b): a suffix looser than b may stand there
// (a.b[c] where [ ] binds tighter than .), as ANTLR's loop applies a
// suffix to whatever it has built. Levels whose operator (s, j, f)
// leaves out are skipped, and many triples have the same rules: they
// are merged where their rules are the same (partition refinement, as a
// DFA is minimized). The rule itself is (0, 0, none); the others are
// named after it and their j, expr_2, with primes for more rules of one
// j (expr_2', an expr_2 that may not end in a prefix operator's
// operand). An alternative label keeps its rule (Add := expr '+'
// expr_1); where the alternative stands with different operands in
// different levels, each gets a rule, the label's name with primes
// (Add'). Two alternatives at different levels that share a label get
// rules Label and Label2.
//
// An alternative that ends in the rule only inside a group ('if' e
// 'then' (e | 'skip')) is taken as closed: its inner expression and an
// operator after the whole alternative are two trees of one input, of
// which ANTLR's greedy loop takes the first. Telling them apart would
// need the alternative without its endings in the rule, which the
// conversion does not build. Indirect left recursion (a rule that
// reaches itself through another rule first) is converted as written.

// Kinds of the alternatives of a left-recursive rule, as ANTLR's
// LeftRecursiveRuleWalker tells them apart.
const (
	lrOther  = iota // no recursion at either end (a primary)
	lrBinary        // e ... e
	lrSuffix        // e ... (not ending in e)
	lrPrefix        // ... e (not starting with e)
)

type lrAlt struct {
	a     *Alt
	elems []Elem // without actions
	kind  int
	level int // binary and suffix: 0 is the loosest
	// open is the level of the operand at the alternative's right end,
	// whose operators at that level or tighter it takes: a prefix
	// alternative's operand level; m (no operator) for the others.
	open  int
	label string // the label's rule base name, "" for none
	first bool   // the first conversion of the alternative (warnings)
}

type leftRec struct {
	cv    *converter
	r     *Rule
	alts  []*lrAlt
	m     int      // binary and suffix alternatives: the levels
	opAt  []*lrAlt // the alternative of each level
	extra []*grammar.Rule
	order map[string]int // label rule name -> its alternative's index
	// The (s, j, f) triples reached from (0, 0, none), their merged
	// classes, and each class's rule name.
	keys    []lrKey
	classOf map[lrKey]int
	names   []string
	labelV  map[string]string // alternative and operand classes -> label rule
	labelN  map[string]int    // label rule -> its variants so far
	rank    map[string]int    // level rule name -> its place: by level, then primes
}

// lrKey is a triple (s, j, f): the loosest level the loop applies (s),
// the level of the rule in the chain of levels (j, at least s: the
// operators between s and j are those of the levels before), and the
// level of the operator after the expression (f, -1: none).
type lrKey struct{ s, j, f int }

// leftRecursive converts r if it is directly left-recursive in a form
// ANTLR rewrites (every left-recursive alternative e ... with something
// after the e); ok is false otherwise.
func (cv *converter) leftRecursive(r *Rule) (body grammar.Expr, extra []*grammar.Rule, ok bool) {
	lr := &leftRec{cv: cv, r: r, order: map[string]int{}, labelV: map[string]string{}, labelN: map[string]int{}, rank: map[string]int{}}
	self := func(e Elem) bool {
		ref, ok := e.(*Ref)
		return ok && ref.Name == r.Name
	}
	recursive, primary := false, false
	for _, a := range r.Body.Alts {
		x := &lrAlt{a: a, first: true}
		for _, e := range a.Elems {
			if _, ok := e.(*Action); !ok {
				x.elems = append(x.elems, e)
			}
		}
		n := len(x.elems)
		switch {
		case n > 0 && self(x.elems[0]):
			if n == 1 {
				return nil, nil, false // e : e | ... is not a form ANTLR rewrites
			}
			recursive = true
			x.kind = lrSuffix
			if self(x.elems[n-1]) {
				x.kind = lrBinary
			}
		case n > 1 && self(x.elems[n-1]):
			x.kind = lrPrefix
			primary = true
		default:
			primary = true
		}
		lr.alts = append(lr.alts, x)
	}
	if !recursive || !primary {
		return nil, nil, false
	}
	for _, x := range lr.alts {
		if x.kind == lrBinary || x.kind == lrSuffix {
			lr.m++
		}
	}
	lr.opAt = make([]*lrAlt, lr.m)
	seen := 0
	for _, x := range lr.alts {
		switch x.kind {
		case lrBinary, lrSuffix:
			seen++
			x.level = lr.m - seen
			lr.opAt[x.level] = x
			x.open = lr.m
		case lrPrefix:
			x.open = lr.m - seen
		default:
			x.open = lr.m
		}
	}
	if !lr.reach() {
		cv.warnf(r.Pos, "rule %s has too many precedence levels (%d) to stratify; it is converted as written, without its precedence", r.Name, lr.m)
		return nil, nil, false
	}
	lr.labels() // only now: the rule as written names its labels itself
	lr.merge()
	lr.nameLevels()
	var levels []*grammar.Rule
	for c := range lr.names {
		b := lr.levelBody(c)
		if c == 0 {
			body = b
			continue
		}
		levels = append(levels, &grammar.Rule{Name: lr.names[c], Pos: r.Pos, Body: b})
	}
	// The rule's own extra rules: the labels' in the order of their
	// alternatives, each followed by its variants, then the levels.
	slices.SortStableFunc(lr.extra, func(a, b *grammar.Rule) int { return lr.order[a.Name] - lr.order[b.Name] })
	slices.SortStableFunc(levels, func(a, b *grammar.Rule) int { return lr.rank[a.Name] - lr.rank[b.Name] })
	return body, append(lr.extra, levels...), true
}

// labels names the labels' rules. Alternatives that share a label share
// its rule where they are all primaries; otherwise each alternative
// after the first gets a rule of its own, numbered, as they sit at
// different levels.
func (lr *leftRec) labels() {
	shared := map[string]bool{}
	for _, x := range lr.alts {
		if x.a.Label == "" {
			continue
		}
		if _, ok := shared[x.a.Label]; !ok {
			shared[x.a.Label] = true
		}
		if x.kind != lrOther {
			shared[x.a.Label] = false
		}
	}
	taken := map[string]string{}
	for i, x := range lr.alts {
		l := x.a.Label
		if l == "" {
			continue
		}
		if name, ok := taken[l]; ok && shared[l] {
			x.label = name
			continue
		}
		name := l
		if lr.cv.labels[name] {
			name = lr.cv.freshName(l)
			if _, ok := taken[l]; ok {
				lr.cv.warnf(x.a.LabelPos, "alternative label %s is shared by alternatives at different precedence levels; this one's rule is named %s", l, name)
			} else {
				lr.cv.warnf(x.a.LabelPos, "alternative label %s is also a rule's name; its rule is named %s", l, name)
			}
		}
		lr.cv.labels[name] = true
		taken[l] = name
		x.label = name
		lr.order[name] = i
	}
}

// included reports whether alternative x is an expression of (s, j, f).
func (lr *leftRec) included(x *lrAlt, k lrKey) bool {
	switch x.kind {
	case lrBinary:
		// A left-associative operator at level b takes an operator at
		// b+1 or tighter into its right operand; a right-associative
		// one, at b or tighter.
		taken := x.level + 1
		if x.a.Assoc == "right" {
			taken = x.level
		}
		return x.level == k.j && (k.f < 0 || k.f < taken)
	case lrSuffix:
		return x.level == k.j
	case lrPrefix:
		return k.j == lr.m && (k.f < 0 || k.f < x.open)
	}
	return k.j == lr.m
}

// resolve skips the levels from j on whose operator (s, j, f) leaves out:
// their rule would only refer to the next.
func (lr *leftRec) resolve(k lrKey) lrKey {
	for ; k.j < lr.m; k.j++ {
		if lr.included(lr.opAt[k.j], k) {
			break
		}
	}
	return k
}

// next is the triple of the level after k's, which k's rule refers to
// besides its operator; none for the primaries' level.
func (lr *leftRec) next(k lrKey) (lrKey, bool) {
	if k.j >= lr.m {
		return k, false
	}
	return lr.resolve(lrKey{k.s, k.j + 1, k.f}), true
}

// operands are the triples of alternative x's left and right operands in
// (s, j, f) (one for a suffix or a prefix, none for the others).
func (lr *leftRec) operands(x *lrAlt, k lrKey) []lrKey {
	switch x.kind {
	case lrBinary:
		right := x.level + 1
		if x.a.Assoc == "right" {
			right = x.level
		}
		return []lrKey{lr.resolve(lrKey{k.s, k.s, x.level}), lr.resolve(lrKey{right, right, k.f})}
	case lrSuffix:
		return []lrKey{lr.resolve(lrKey{k.s, k.s, x.level})}
	case lrPrefix:
		return []lrKey{lr.resolve(lrKey{x.open, x.open, k.f})}
	}
	return nil
}

// reach lists the triples reached from (0, 0, none), breadth first; it
// reports false if there are more than maxLevelRules.
// maxLevelRules bounds the triples reach lists: they grow as the cube of
// the levels, and a rule with hundreds of operator alternatives is
// more likely a fuzzer's than a grammar's (Java's expression has some
// 25 and makes a few thousand).
const maxLevelRules = 50000

func (lr *leftRec) reach() bool {
	seen := map[lrKey]bool{{0, 0, -1}: true}
	lr.keys = []lrKey{{0, 0, -1}}
	for i := 0; i < len(lr.keys); i++ {
		k := lr.keys[i]
		for _, x := range lr.alts {
			if !lr.included(x, k) {
				continue
			}
			for _, o := range lr.operands(x, k) {
				if !seen[o] {
					seen[o] = true
					lr.keys = append(lr.keys, o)
				}
			}
		}
		if o, ok := lr.next(k); ok && !seen[o] {
			seen[o] = true
			lr.keys = append(lr.keys, o)
		}
		if len(lr.keys) > maxLevelRules {
			return false
		}
	}
	return true
}

// merge puts the triples whose rules are the same in one class: first by
// the alternatives they hold, then, until nothing changes, by the
// classes of their operands. Class 0 holds (0, none).
func (lr *leftRec) merge() {
	sig := func(k lrKey, class map[lrKey]int) string {
		var b strings.Builder
		for i, x := range lr.alts {
			if !lr.included(x, k) {
				continue
			}
			fmt.Fprintf(&b, "%d", i)
			if class != nil {
				for _, o := range lr.operands(x, k) {
					fmt.Fprintf(&b, ",%d", class[o])
				}
			}
			b.WriteByte(';')
		}
		if o, ok := lr.next(k); ok {
			b.WriteString("next")
			if class != nil {
				fmt.Fprintf(&b, ",%d", class[o])
			}
		}
		return b.String()
	}
	number := func(class map[lrKey]int) (map[lrKey]int, int) {
		ids := map[string]int{}
		out := map[lrKey]int{}
		for _, k := range lr.keys {
			s := sig(k, class)
			if class != nil {
				s = fmt.Sprintf("%d|%s", class[k], s)
			}
			id, ok := ids[s]
			if !ok {
				id = len(ids)
				ids[s] = id
			}
			out[k] = id
		}
		return out, len(ids)
	}
	class, n := number(nil)
	for {
		next, m := number(class)
		class = next
		if m == n {
			break
		}
		n = m
	}
	lr.classOf = class
	lr.names = make([]string, n)
}

// nameLevels names the classes: class 0 is the rule; a class with a
// triple (s, j, none) is r_j for its least such j, the others r_j with
// primes for their least j, in the order they were reached.
func (lr *leftRec) nameLevels() {
	type info struct{ free, j, first int }
	infos := make([]info, len(lr.names))
	for i := range infos {
		infos[i] = info{free: -1, j: -1, first: -1}
	}
	for i, k := range lr.keys {
		in := &infos[lr.classOf[k]]
		if in.first < 0 {
			in.first = i
		}
		if k.f < 0 && (in.free < 0 || k.j < in.free) {
			in.free = k.j
		}
		if in.j < 0 || k.j < in.j {
			in.j = k.j
		}
	}
	order := make([]int, 0, len(infos))
	for c := 1; c < len(infos); c++ {
		order = append(order, c)
	}
	// Those with an (s, j, none) triple take the plain names first.
	slices.SortStableFunc(order, func(a, b int) int {
		fa, fb := infos[a].free < 0, infos[b].free < 0
		switch {
		case fa != fb:
			if fa {
				return 1
			}
			return -1
		}
		return infos[a].first - infos[b].first
	})
	lr.names[0] = lr.r.Name
	used := map[string]int{}
	for _, c := range order {
		j := infos[c].free
		if j < 0 {
			j = infos[c].j
		}
		base := lr.r.Name
		if j > 0 {
			base = fmt.Sprintf("%s_%d", lr.r.Name, j)
		}
		if j == 0 {
			used[base] = max(used[base], 1) // the rule itself has the plain name
		}
		name := base + primes(used[base])
		lr.rank[name] = j*len(lr.names) + used[base]
		used[base]++
		if lr.cv.labels[name] {
			name = lr.cv.freshName(name)
		}
		lr.cv.labels[name] = true
		lr.names[c] = name
	}
}

// primes marks the c-th variant of a rule: expr', expr”, expr”', then
// expr'4, expr'5, ... (a rule with prefix operators at many levels has
// many).
func primes(c int) string {
	if c <= 3 {
		return strings.Repeat("'", c)
	}
	return "'" + strconv.Itoa(c)
}

// rep is the first triple of class c.
func (lr *leftRec) rep(c int) lrKey {
	for _, k := range lr.keys {
		if lr.classOf[k] == c {
			return k
		}
	}
	return lrKey{}
}

// levelBody is the body of class c's rule: the alternatives its triples
// hold, in the order the rule has them.
func (lr *leftRec) levelBody(c int) grammar.Expr {
	k := lr.rep(c)
	out := &grammar.Alt{At: lr.r.Body.Pos}
	labelled := map[string]bool{}
	for _, x := range lr.alts {
		if !lr.included(x, k) || x.label != "" && labelled[x.label] {
			continue
		}
		labelled[x.label] = x.label != ""
		out.Alts = append(out.Alts, lr.alt(x, k))
	}
	if o, ok := lr.next(k); ok {
		out.Alts = append(out.Alts, &grammar.Ref{At: lr.r.Body.Pos, Name: lr.names[lr.classOf[o]]})
	}
	if len(out.Alts) == 1 {
		return out.Alts[0]
	}
	return out
}

// alt is alternative x in triple k: a reference to its label's rule, or
// its body where it has no label.
func (lr *leftRec) alt(x *lrAlt, k lrKey) grammar.Expr {
	var ops []string
	for _, o := range lr.operands(x, k) {
		ops = append(ops, lr.names[lr.classOf[o]])
	}
	if x.label == "" {
		return lr.body(x, ops)
	}
	key := x.label + " " + strings.Join(ops, " ")
	name, ok := lr.labelV[key]
	if !ok {
		n := lr.labelN[x.label]
		lr.labelN[x.label]++
		name = x.label + primes(n)
		if n > 0 {
			if lr.cv.labels[name] {
				name = lr.cv.freshName(name)
			}
			lr.cv.labels[name] = true
		}
		lr.labelV[key] = name
		lr.order[name] = lr.order[x.label]
		rule := &grammar.Rule{Name: name, Pos: x.a.LabelPos}
		lr.extra = append(lr.extra, rule)
		rule.Body = lr.body(x, ops)
		// Primaries sharing the label join its rule.
		for _, y := range lr.alts {
			if y != x && y.label == x.label {
				rule.Body = joinAlt(rule.Body, lr.body(y, nil))
			}
		}
	}
	return &grammar.Ref{At: x.a.LabelPos, Name: name}
}

func joinAlt(a, b grammar.Expr) grammar.Expr {
	if alt, ok := a.(*grammar.Alt); ok {
		alt.Alts = append(alt.Alts, b)
		return alt
	}
	return &grammar.Alt{At: a.Pos(), Alts: []grammar.Expr{a, b}}
}

// body converts alternative x's elements with its operands referring to
// the rules named in ops.
func (lr *leftRec) body(x *lrAlt, ops []string) grammar.Expr {
	cv := lr.cv
	// An alternative is converted once per level it stands in; its
	// warnings are given once.
	warned, failed := len(cv.warnings), len(cv.errs.list)
	defer func() {
		if !x.first {
			cv.warnings, cv.errs.list = cv.warnings[:warned], cv.errs.list[:failed]
		}
		x.first = false
	}()
	ref := func(e Elem, name string) grammar.Expr { return &grammar.Ref{At: e.At(), Name: name} }
	seq := &grammar.Seq{At: x.a.Pos}
	add := func(elems []Elem) {
		for _, e := range elems {
			if y := cv.parserElem(e); y != nil {
				seq.Items = append(seq.Items, y)
			}
		}
	}
	n := len(x.elems)
	switch x.kind {
	case lrBinary:
		seq.Items = append(seq.Items, ref(x.elems[0], ops[0]))
		add(x.elems[1 : n-1])
		seq.Items = append(seq.Items, ref(x.elems[n-1], ops[1]))
	case lrSuffix:
		seq.Items = append(seq.Items, ref(x.elems[0], ops[0]))
		add(x.elems[1:])
	case lrPrefix:
		add(x.elems[:n-1])
		seq.Items = append(seq.Items, ref(x.elems[n-1], ops[0]))
	default:
		add(x.elems)
	}
	for _, e := range x.a.Elems {
		if a, ok := e.(*Action); ok && x.first {
			cv.parserElem(a) // its warning or error
		}
	}
	for _, cmd := range x.a.Commands {
		cv.errorf(cmd.Pos, "lexer command -> %s in a parser rule", cmd.Name)
	}
	if len(seq.Items) == 0 {
		return &grammar.Seq{At: x.a.Pos}
	}
	return flatten(seq)
}
